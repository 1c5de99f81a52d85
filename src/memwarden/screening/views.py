"""The forms of a text that screening patterns are matched against.

An instruction hidden from a pattern is still read by a model, so screening folds every trick
that leaves the words legible:

- ``plain_view``: the redaction normalisation (``govern.normalization``: NFKC, invisible characters
  removed, tag characters decoded, digits ASCII), then NFC, combining marks removed (Arabic
  tashkeel, stacked accents), small capitals (``ɪɢɴᴏʀᴇ``, which NFKC keeps) made ASCII letters,
  case folded, spaces collapsed line by line;
- ``folded_view``: ``plain_view`` with look-alike letters replaced by the ASCII letter they
  imitate (the Unicode TR39 confusables data, from the ``confusable_homoglyphs`` package: a
  Cyrillic ``о`` in ``ignоre`` becomes ``o``) and leetspeak undone inside words that mix letters
  with digits or symbols (``1gn0r3`` → ``ignore``);
- ``despaced_view``: ``folded_view`` with letters spaced out one by one joined (``i g n o r e`` →
  ``ignore``), matched by the English patterns with every space optional;
- ``unhyphenated_view``: ``folded_view`` with words split by hyphens joined (``ig-nore pre-vious``
  → ``ignore previous``); screening matches its patterns against this form of the folded view.

Patterns run on both: Russian, Arabic or Greek text keeps its own letters in ``plain_view``,
while English phrasings written with borrowed letters are found in ``folded_view``.
"""

from __future__ import annotations

import json
import re
import unicodedata

from memwarden.govern.normalization import normalize_text

_SPACE = re.compile(r"[^\S\n]+")
# A word with leet digits or symbols in it ("1gn0r3", "7h3", and plain numbers such as "17"),
# matched from its first character only: each word is scanned once, so a long run of letters
# costs its length, not its length squared.
_LEET_WORD = re.compile(r"(?<![a-z0-9@$!|+])[a-z]*[0-9@$!|+][a-z0-9@$!|+]*")
_ALNUM = re.compile(r"[a-z0-9]")
_LEET = str.maketrans(
    {
        "0": "o",
        "1": "i",
        "3": "e",
        "4": "a",
        "5": "s",
        "7": "t",
        "8": "b",
        "9": "g",
        "@": "a",
        "$": "s",
        "!": "i",
        "|": "l",
        "+": "t",
    }
)
# Three or more single letters in a row, each followed by separators: "i g n o r e", "i.g.n.o.r.e".
_SPACED = re.compile(r"(?<![^\W_])(?:[^\W\d_][ .\-_*·/|']{1,3}){3,}[^\W\d_](?![^\W_])")
_SEPARATORS = re.compile(r"[ .\-_*·/|']")
# A hyphen inside a word, or ending a line inside one: "ig-nore", "instruc-\ntions".
_HYPHEN_SPLIT = re.compile(r"(?<=[^\W\d_])-(?:[^\S\n]*\n)?[^\S\n]*(?=[^\W\d_])")
_skeleton: dict[int, str] = {}


def _small_capitals() -> dict[int, str]:
    """LATIN LETTER SMALL CAPITAL X → x: NFKC and the TR39 data leave most of them alone."""
    table: dict[int, str] = {}
    for code in (*range(0x0250, 0x02B0), *range(0x1D00, 0x1D2C), *range(0xA720, 0xA800)):
        name = unicodedata.name(chr(code), "")
        if name.startswith("LATIN LETTER SMALL CAPITAL ") and len(name) == len(
            "LATIN LETTER SMALL CAPITAL X"
        ):
            table[code] = name[-1].lower()
    table[0x01EB] = "q"  # o with ogonek stands in for the missing small capital q
    return table


_SMALL_CAPITALS = _small_capitals()
_SMALL_CAPITAL_CHARS = re.compile("[" + "".join(map(chr, _SMALL_CAPITALS)) + "]")


def skeleton_table() -> dict[int, str]:
    """Non-ASCII character → the ASCII letter or digit it is confusable with (TR39 prototypes).

    Built on first use from ``confusables.json`` shipped in ``confusable_homoglyphs`` (generated
    from Unicode's confusables.txt): an entry with a single homoglyph that is ASCII names the
    prototype the character folds to.
    """
    if not _skeleton:
        from importlib import resources  # only writes screen text: keep it off the read commands' import path

        data = json.loads(
            resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
        )
        table: dict[int, str] = {}
        for char, glyphs in data.items():
            if len(char) != 1 or char.isascii() or len(glyphs) != 1:
                continue
            target = glyphs[0]["c"].strip("\u200e\u200f")
            if len(target) == 1 and target.isascii() and target.isalnum():
                table[ord(char)] = target
        _skeleton.update(table)
    return _skeleton


def _fold_case(text: str) -> str:
    folded = unicodedata.normalize("NFC", text.casefold())
    if not folded.isascii():
        folded = "".join(ch for ch in folded if unicodedata.category(ch) != "Mn")
        if _SMALL_CAPITAL_CHARS.search(folded):
            folded = folded.translate(_SMALL_CAPITALS)
    return "\n".join(_SPACE.sub(" ", line).strip() for line in folded.splitlines())


def normal_form(text: str) -> str:
    """The redaction normalisation, composed (NFC) for matching."""
    return unicodedata.normalize("NFC", normalize_text(text))


def plain_view(text: str) -> str:
    """Normalised, case-folded, without combining marks, runs of spaces made one (newlines kept)."""
    return _fold_case(normal_form(text))


def folded_view(normal: str) -> str:
    """``normal`` (from ``normal_form``) with look-alike letters and leetspeak undone, case-folded.

    Look-alikes are folded before case folding: a Cyrillic capital Т imitates T, its small form
    imitates nothing.
    """
    text = normal if normal.isascii() else normal.translate(skeleton_table())
    return _LEET_WORD.sub(_unleet, _fold_case(text))


def _unleet(match: re.Match[str]) -> str:
    word = match.group()
    return word.translate(_LEET) if _ALNUM.search(word) else word  # "!!!" alone is punctuation


def despaced_view(folded: str) -> str:
    """``folded`` with letters spaced out one by one joined ("i g n o r e" → "ignore")."""
    return _SPACED.sub(lambda m: _SEPARATORS.sub("", m.group()), folded)


def unhyphenated_view(folded: str) -> str:
    """``folded`` with words split by hyphens joined ("ig-nore pre-vious" → "ignore previous");
    the same text when it has no hyphen."""
    return _HYPHEN_SPLIT.sub("", folded) if "-" in folded else folded


__all__ = ["despaced_view", "folded_view", "normal_form", "plain_view", "skeleton_table", "unhyphenated_view"]
