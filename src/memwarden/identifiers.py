"""The characters an identifier (project, kind, tag, thread) may hold: the policy, in one place.

Identifiers are printed where a reader (a model reading a recall block, an operator's terminal,
an Obsidian vault, a web page) could take markup or a line break for structure, so they take a
restricted set, refused with an error naming the character:

- no control characters or other invisible code points (Unicode categories ``Cc`` with tab,
  newline and carriage return, ``Cf`` such as zero-width and bidi controls, ``Cs`` surrogates,
  ``Co`` private use, ``Cn`` unassigned), no line or paragraph separators (``Zl``, ``Zp``;
  U+0085 is ``Cc``); except the zero-width non-joiner and joiner (U+200C, U+200D) between two
  non-ASCII letters, marks or symbols, where Persian, the Indic scripts and emoji sequences need
  them to spell a word ("می‌خواهم", "👩‍💻"); next to ASCII, at an end or doubled they hide
  nothing a reader needs and stay refused;
- no markup characters ``<`` ``>`` ``&`` ``"`` ``'`` and backtick (tags, entities, attribute
  quotes, code spans), nor a character that NFKC folds to one of them (fullwidth ``＜``…),
  which a model reads as the same character.

``escape_identifier`` maps a value stored before this policy (or written by a foreign writer)
to an allowed one, deterministically, keeping it readable: line breaks and tabs become spaces,
markup becomes a look-alike that is not markup, an invisible character becomes its code point
written out (``[U+200B]``), so a hidden trick shows. It is not injective (``a<b`` and ``a‹b``
meet); the store migration reports what it rewrote.

Standard library only, and not ``functools`` either: the prompt hook names a session's
project through here (``hooks.projects``).
"""

from __future__ import annotations

import unicodedata

from memwarden.errors import InvalidInput

MAX_PROJECT_CHARS = 100
MAX_TAG_CHARS = 64
MAX_THREAD_CHARS = 200
MARKUP = "<>&\"'`"
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Readable stand-ins for the markup characters; none of them folds (NFKC) back to markup.
_STAND_INS = {"<": "\u2039", ">": "\u203a", "&": "+", '"': "\u201d", "'": "\u2019", "`": "\u02cb"}
_FIELD_NAMES = {"tags": "a tag", "tag": "a tag"}
# Names for the invisible characters unicodedata leaves unnamed (C0 and C1 controls).
_CONTROL_NAMES = {
    "\t": "TAB",
    "\n": "LINE FEED",
    "\r": "CARRIAGE RETURN",
    "\x1b": "ESCAPE",
    "\x85": "NEXT LINE",
}


def is_refused(ch: str) -> bool:
    """Whether the single character ``ch`` may not appear in an identifier."""
    if ch in MARKUP:
        return True
    if ch.isascii():
        return not ch.isprintable()
    if unicodedata.category(ch) in _REFUSED_CATEGORIES:
        return True
    return any(folded in MARKUP for folded in unicodedata.normalize("NFKC", ch))


_JOINERS = "\u200c\u200d"


def _joins(value: str, at: int) -> bool:
    """Whether the joiner at ``value[at]`` stands between two non-ASCII letters, marks or
    symbols (its place in a word of a script that needs it, or in an emoji sequence)."""
    if at == 0 or at == len(value) - 1:
        return False
    before, after = value[at - 1], value[at + 1]
    return all(
        not ch.isascii() and unicodedata.category(ch)[0] in "LMS" and not is_refused(ch)
        for ch in (before, after)
    )


def refused_at(value: str, at: int) -> bool:
    """Whether the character at ``value[at]`` may not stand there (``is_refused``, with the
    joiners allowed in a joining place)."""
    ch = value[at]
    if ch in _JOINERS:
        return not _joins(value, at)
    return is_refused(ch)


def first_refused(value: str) -> str | None:
    """The first character of ``value`` the policy refuses, or None when it has none."""
    if value.isascii() and value.isprintable():  # the common case, without a loop in Python
        return next((ch for ch in value if ch in MARKUP), None)
    return next((value[at] for at in range(len(value)) if refused_at(value, at)), None)


def describe_character(ch: str) -> str:
    """``'<' (U+003C LESS-THAN SIGN)``; an invisible character by its code point and name only."""
    code = f"U+{ord(ch):04X}"
    name = _CONTROL_NAMES.get(ch) or unicodedata.name(ch, "")
    if not name and unicodedata.category(ch) == "Cc":
        name = "CONTROL CHARACTER"
    label = f"({code} {name})" if name else f"({code})"
    visible = ch.isprintable() and not ch.isspace() and unicodedata.category(ch) not in _REFUSED_CATEGORIES
    return f"{ch!r} {label}" if visible else label.strip("()")


def check_identifier(field: str, value: str) -> str:
    """``value`` when the policy allows every character of it, else InvalidInput naming the
    field and the first refused character (never echoing the rest of the value)."""
    ch = first_refused(value)
    if ch is None:
        return value
    what = _FIELD_NAMES.get(field, field)
    raise InvalidInput(
        f"{what} may not contain {describe_character(ch)}: projects, kinds, tags and threads "
        "are identifiers and take no control characters, line breaks or markup "
        f"(< > & \" ' `); choose one without it",
        field=field,
        character=f"U+{ord(ch):04X}",
    )


def _stand_in(ch: str) -> str:
    if ch in _STAND_INS:
        return _STAND_INS[ch]
    if ch.isspace() or unicodedata.category(ch) in ("Zl", "Zp"):
        return " "
    folded = unicodedata.normalize("NFKC", ch)
    if unicodedata.category(ch) not in _REFUSED_CATEGORIES and any(c in MARKUP for c in folded):
        return "".join(_STAND_INS.get(c, c) for c in folded)
    return f"[U+{ord(ch):04X}]"


def escape_identifier(value: str, *, max_chars: int | None = None) -> str:
    """An allowed identifier for ``value`` (a stored value from before the policy): the same
    string when it is already allowed, else each refused character replaced (see the module
    docstring), spaces collapsed and trimmed.

    Deterministic and idempotent. ``""`` stays ``""`` (no thread). A value left with nothing
    visible is written out as code points. With ``max_chars``, a longer result is cut and ends
    in ``~`` and 8 hex digits of the original's SHA-256, so two long values stay apart.
    """
    if first_refused(value) is None:
        escaped = value
    else:
        escaped = " ".join(
            "".join(_stand_in(ch) if refused_at(value, at) else ch for at, ch in enumerate(value)).split()
        )
        if value and not any(unicodedata.category(c)[0] in "LNPS" for c in escaped):
            escaped = "".join(f"[U+{ord(ch):04X}]" for ch in value)
    if max_chars is not None and len(escaped) > max_chars:
        from memwarden.digests import sha256

        digest = sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        escaped = escaped[: max(0, max_chars - 9)].rstrip() + "~" + digest
    return escaped
