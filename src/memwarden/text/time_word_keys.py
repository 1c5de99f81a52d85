r"""The words every match of a time-word pattern starts a word with, so a query without them skips it.

``text/time_word_patterns.py`` compiles a language's patterns on first use, and a cold process (a
one-shot search, the prompt hook without the daemon) pays for every pattern its query wakes.
``required_words(pattern)`` reads one pattern of the tables (``time_word_tables.py``) and gives
words such that every text the pattern matches has a word (a run of ``\w`` characters) that
begins with one of them. A query none of whose words begins with one cannot match: its pattern
is neither compiled nor run.

Reading the patterns costs a cold process more than the check saves, so
``time_word_core.REQUIRED_WORDS`` holds what ``required_words`` gives for each part of each
spaced language (``derived_table``), and tests/text/test_time_words.py checks that it still does:
when a pattern changes, ``python -m memwarden.text.time_word_keys`` prints the new table.

The words are as strict as the pattern allows. Optional parts give none ("the" of
``(?:the\s+)?day\s+before\s+yesterday``), and each sequence offers the most telling of the
parts it requires ("ago" rather than the numbers and units before it), so "the", "decide"
(not "december") or "email" (not the German "mai") wake nothing.

Only the regular expression syntax the tables use is read: literal characters, escapes,
classes, groups (lookarounds skipped), alternation and quantifiers. A word is taken only where
the pattern itself puts a word boundary before it (the pattern's start, which the tables' word
boundary guards, whitespace or punctuation); whatever this reader cannot vouch for gives no
word, and a pattern with any way through it that holds none gives None: it is always run.
"""

from __future__ import annotations

# One token of a pattern: an escape, a class, a lookaround or group opening, a closing or an
# alternation, a quantifier, a ``{n}`` placeholder (time_word_patterns fills it in), or one character.
_TOKEN = (
    r"\\.|\[\^?\]?(?:\\.|[^\]])*\]|\(\?<?[=!]|\(\?P<\w+>|\(\?:|[()|]"
    r"|\{\d*(?:,\d*)?\}\??|[?*+]\??|\{\w+\}|."
)
_QUANTIFIERS = ("?", "*", "+", "{0", "{1", "{2", "{3", "{4", "{5", "{6", "{7", "{8", "{9", "{,")


def part_pattern(name: str, part: str) -> str:
    """The patterns of one part (``time_word_patterns.PARTS``) of a language as one pattern,
    folded as they are compiled; "" for a part without patterns."""
    from memwarden.text.time_word_patterns import _as_compiled
    from memwarden.text.time_word_tables import LANGUAGES

    lang = LANGUAGES[name]
    if part == "fixed":
        pattern = "|".join(p for p, _, _ in lang.fixed)
    elif part == "ago":
        pattern = lang.ago  # its {n} (digits or number words) offers no word
    else:
        pattern = "|".join(lang.months)  # the endings after a month name only add to it
    return _as_compiled(pattern)


def derived_table() -> dict[tuple[str, str], str | None]:
    """``time_word_core.REQUIRED_WORDS`` as the patterns give it now."""
    from memwarden.text.time_word_tables import LANGUAGES

    table: dict[tuple[str, str], str | None] = {}
    for name, lang in LANGUAGES.items():
        if lang.spaced:
            for part in ("fixed", "ago", "months"):
                pattern = part_pattern(name, part)
                words = required_words(pattern) if pattern else ()
                table[name, part] = None if words is None else " ".join(words)
    return table


def table_source(table: dict[tuple[str, str], str | None]) -> str:
    """``table`` written as the assignment of ``time_word_core.REQUIRED_WORDS``."""
    lines = ["REQUIRED_WORDS: dict[tuple[str, str], str | None] = {"]
    for (name, part), words in table.items():
        key = f'    ("{name}", "{part}"): '
        if words is None or len(key) + len(words) + 3 <= 110:
            lines.append(f"{key}{'None' if words is None else chr(34) + words + chr(34)},")
            continue
        chunks, chunk = [], ""
        for word in words.split():
            if chunk and len(chunk) + len(word) > 96:
                chunks.append(chunk)
                chunk = ""
            chunk += word + " "
        chunks.append(chunk.rstrip())
        lines += [f"{key}(", *(f'        "{c}"' for c in chunks), "    ),"]
    return "\n".join([*lines, "}"])


def required_words(pattern: str) -> tuple[str, ...] | None:
    """Words one of which starts a word of every text ``pattern`` matches (matched with a word
    boundary before it, as time_word_patterns does), or None when the pattern does not say."""
    reader = _Reader(pattern)
    words, _ = reader.alternatives(True)
    return None if words is None else tuple(sorted(words))


def _optional(quantifier: str) -> bool:
    return quantifier.startswith(("?", "*", "{0", "{,"))


def _kind(token: str) -> str:
    """What one token matches: ``word`` (that \\w character), ``gap`` (characters that are not
    \\w), ``zero`` (no character) or ``any`` (maybe a \\w character)."""
    if token.startswith("\\"):
        escaped = token[1:]
        if escaped == "s":
            return "gap"
        if escaped in ("b", "B", "A", "Z"):
            return "zero"
        return "any" if escaped.isalnum() or escaped == "_" else "gap"
    if len(token) != 1 or token == ".":
        return "any"  # a class, a placeholder, the wildcard
    if token in ("^", "$"):
        return "zero"
    return "word" if token.isalnum() or token == "_" else "gap"


class _Reader:
    """Reads a pattern's tokens left to right."""

    def __init__(self, pattern: str) -> None:
        import re

        self.tokens = re.findall(_TOKEN, pattern, re.DOTALL)
        self.at = 0

    def _peek(self) -> str:
        return self.tokens[self.at] if self.at < len(self.tokens) else ""

    def _take(self) -> str:
        token = self._peek()
        self.at += 1
        return token

    def _quantifier(self) -> str:
        token = self._peek()
        if token.startswith(_QUANTIFIERS):
            self.at += 1
            return token
        return ""

    def alternatives(self, boundary: bool) -> tuple[frozenset[str] | None, bool]:
        """The alternatives up to the closing parenthesis (left unread) or the end: the words
        (None: some alternative holds none) and whether every alternative ends at a boundary
        (its last character is not \\w). ``boundary``: the text before them ends at one."""
        found: set[str] | None = set()
        ends = True
        while True:
            words, at_boundary = self._sequence(boundary)
            found = None if found is None or words is None else found | words
            ends = ends and at_boundary
            if self._peek() != "|":
                return (None if found is None else frozenset(found)), ends
            self.at += 1

    def _sequence(self, boundary: bool) -> tuple[frozenset[str] | None, bool]:
        """One alternative: the most telling set of words among the parts it requires (the
        longest shortest word, then the fewest words), and whether it ends at a boundary."""
        choices: list[frozenset[str]] = []
        run, run_at_boundary = "", False
        while self._peek() not in ("", "|", ")"):
            token = self._take()
            if token.startswith(("(?=", "(?!", "(?<")):  # a lookaround: matches no character
                self.alternatives(False)
                self._take()
                self._quantifier()
                if run and run_at_boundary:
                    choices.append(frozenset((run,)))
                run = ""
                continue
            if token.startswith("("):
                if run and run_at_boundary:
                    choices.append(frozenset((run,)))
                run = ""
                start = self.at
                words, ends = self.alternatives(boundary)
                self._take()
                quantifier = self._quantifier()
                if quantifier.startswith(("*", "+", "{")):  # again, after its own last character
                    after = self.at
                    self.at = start
                    _, again = self.alternatives(ends)
                    self.at = after
                    ends = ends and again
                if _optional(quantifier):
                    boundary = boundary and ends
                else:
                    if words:
                        choices.append(words)
                    boundary = ends
                continue
            quantifier = self._quantifier()
            kind = _kind(token)
            if kind == "word" and not _optional(quantifier):
                if not run:
                    run_at_boundary = boundary
                run += token
                boundary = False
                if quantifier:  # repeated: the word goes on with what only the pattern knows
                    if run_at_boundary:
                        choices.append(frozenset((run,)))
                    run = ""
                continue
            if run and run_at_boundary:
                choices.append(frozenset((run,)))
            run = ""
            if kind == "gap":
                boundary = boundary or not _optional(quantifier)
            elif kind != "zero":
                boundary = False
        if run and run_at_boundary:
            choices.append(frozenset((run,)))
        best = max(choices, key=lambda words: (min(map(len, words)), -len(words)), default=None)
        return best, boundary


__all__ = ["derived_table", "required_words"]

if __name__ == "__main__":
    print(table_source(derived_table()))
