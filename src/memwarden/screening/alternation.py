"""Many regular expressions searched as one: the alternations screening's phrase rules are
compiled into (``screening.phrases`` holds the patterns).
"""

from __future__ import annotations

import re


def starts_outside_ascii(part: str) -> bool:
    """Whether ``part`` opens with a letter outside ASCII (after any ``(?:``): the phrases in other
    scripts. ``tests/screening`` checks with the regex parser that each such part can only start
    matching at a character outside ASCII."""
    while part.startswith("(?:"):
        part = part[3:]
    return part[:1] > "\x7f"


def union(parts: list[str]) -> str:
    """One alternation of ``parts``, the word boundary they start with factored out: at the
    positions that are no word boundary (most of a text) the alternatives are not tried at all.
    The phrases in other scripts sit behind one look-ahead for a character outside ASCII, so at
    the positions of ASCII text they are not tried either. Whether it matches anywhere is what
    searching each part would say."""
    bounded = [p[2:] for p in parts if p.startswith(r"\b")]
    alternatives = [r"\b(?=\w)(?:" + "|".join(f"(?:{p})" for p in bounded) + ")"] if bounded else []
    foreign = [p for p in parts if not p.startswith(r"\b") and starts_outside_ascii(p)]
    if foreign:
        alternatives.append(r"(?=[^\x00-\x7f])(?:" + "|".join(f"(?:{p})" for p in foreign) + ")")
    alternatives += [f"(?:{p})" for p in parts if not p.startswith(r"\b") and not starts_outside_ascii(p)]
    return "|".join(alternatives)


def _first_chars(pattern: str) -> frozenset[str] | None:
    """The characters a match of ``pattern`` can start with, read from the regex parser's tree;
    None when that cannot be told (a class such as ``\\w``, an empty match, a construct not
    handled here, or a Python whose parser is not where it was): the pattern is then always tried.
    A set too large is harmless; one too small would lose matches, so every unknown is None."""
    try:
        from re import _constants as sre  # type: ignore[attr-defined]
        from re import _parser as parser  # type: ignore[attr-defined]

        tree = parser.parse(pattern)
    except (ImportError, AttributeError, re.error):
        return None

    def first(items: list[tuple[object, object]]) -> tuple[set[str] | None, bool]:
        found: set[str] = set()
        for op, arg in items:
            if op is sre.LITERAL:
                found.add(chr(arg))  # type: ignore[arg-type]
                return found, False
            if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
                continue  # zero-width: the next item starts the match
            if op is sre.IN:
                for member, value in arg:  # type: ignore[attr-defined]
                    if member is sre.LITERAL:
                        found.add(chr(value))
                    elif member is sre.RANGE:
                        found.update(chr(c) for c in range(value[0], value[1] + 1))
                    else:
                        return None, False
                return found, False
            if op is sre.SUBPATTERN or op is sre.BRANCH:
                branches = [arg[-1]] if op is sre.SUBPATTERN else arg[1]  # type: ignore[index]
                empty = False
                for branch in branches:
                    chars, nullable = first(list(branch))
                    if chars is None:
                        return None, False
                    found |= chars
                    empty = empty or nullable
                if not empty:
                    return found, False
                continue
            if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
                low: int = arg[0]  # type: ignore[index]
                chars, nullable = first(list(arg[2]))  # type: ignore[index]
                if chars is None:
                    return None, False
                found |= chars
                if low > 0 and not nullable:
                    return found, False
                continue
            return None, False
        return found, True

    chars, nullable = first(list(tree))
    return None if chars is None or nullable else frozenset(chars)


def dispatched_union(parts: list[str], max_letters: int = 6) -> str:
    """``union(parts)`` for a yes-or-no search, faster: the alternatives that start at a word
    boundary are grouped by the letter they can start with, behind one look-ahead per letter, so
    at each word only the alternatives that can start with its first letter are tried. One that
    can start with several letters is in each of their groups, up to ``max_letters``; beyond that
    it is tried at every word behind one look-ahead for the class of its first characters (copies
    make the expression longer to compile, which a one-shot command pays once). It matches at the
    same positions as ``union(parts)``; the alternative that wins a position may differ, so it
    serves searches that only ask whether anything matches (``screening``'s ``any_view``)."""
    bounded = [p[2:] for p in parts if p.startswith(r"\b")]
    groups: dict[str, list[str]] = {}
    always: list[str] = []
    for part in bounded:
        chars = _first_chars(part)
        if chars is None:
            always.append(part)
            continue
        if len(chars) > max_letters or not all(c.isascii() and (c.isalnum() or c == "_") for c in chars):
            # Too many letters to copy it into each group: one look-ahead for the class of its first
            # characters still skips it at every word that cannot start it.
            always.append(f"(?=[{''.join(re.escape(c) for c in sorted(chars))}])(?:{part})")
            continue
        for char in sorted(chars):
            groups.setdefault(char, []).append(part)
    alternatives = [
        f"(?={re.escape(char)})(?:" + "|".join(f"(?:{p})" for p in members) + ")"
        for char, members in sorted(groups.items())
    ]
    alternatives += [f"(?:{p})" for p in always]
    rest = union([p for p in parts if not p.startswith(r"\b")])
    head = r"\b(?=\w)(?:" + "|".join(alternatives) + ")" if alternatives else ""
    return "|".join(x for x in (head, rest) if x)


def compile_union(parts: list[str]) -> re.Pattern[str]:
    return re.compile(union(parts), re.DOTALL)


__all__ = ["compile_union", "dispatched_union", "starts_outside_ascii", "union"]
