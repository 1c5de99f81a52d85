"""The one normalisation step in front of every redaction rule and every screening pattern.

Attackers hide a value from a regular expression with characters a reader never sees or reads
as the same: a zero-width space inside an e-mail, a soft hyphen inside a card number, an RTL
override, full-width or Arabic-Indic digits, Unicode "tag" characters that spell ASCII
invisibly. ``normalize`` turns text into the form the rules are written for:

- every character is NFKC-normalised (full-width ``４１１１`` → ``4111``, ``＠`` → ``@``);
- every default-ignorable character is removed: format characters (Unicode category Cf:
  zero-width space/joiners, bidi controls, soft hyphen, word joiner, BOM …), variation
  selectors (U+FE00–FE0F, U+180B–180F, U+E0100–E01EF), the combining grapheme joiner
  (U+034F), the Khmer inherent vowels (U+17B4–17B5), the Hangul fillers and the reserved
  default-ignorable code points: characters a reader never sees, whatever their category;
- every dash (Unicode category Pd: en and em dash, U+2010 hyphen, U+2011 non-breaking hyphen …)
  and the minus sign U+2212 becomes ``-``: ``123–45–6789`` is written the way the rules expect;
- tag characters U+E0020–E007E become the ASCII they encode (hidden text is made visible);
- every Unicode decimal digit (Arabic-Indic, Devanagari, Thai …) becomes its ASCII digit;
- every other blank becomes an ASCII space: the Unicode spaces and separators (categories Zs,
  Zl, Zp: no-break spaces, U+1680 ogham space, U+2028 line and U+2029 paragraph separators),
  U+0085 next line, the ASCII vertical tab, form feed and information separators (U+001C–001F),
  and the braille blank U+2800. A reader (and the keyword analyzer) sees a gap between two digit
  groups; the rules must see the space they are written for, or ``4111\u20281111 …`` is no card.
  Tab, line feed and carriage return stay: rules tell them apart from a space.

It keeps a map from offsets in the normalised text back to the original, so a rule that
matches ``4111111111111111`` in the normalised text replaces the original span, invisible
characters and full-width digits included (``Normalized.original_span``). Pure-ASCII text
takes a fast path (nothing to map). Normalisation is per character: it never composes across
characters, so the map stays exact.
"""

import re
import unicodedata
from bisect import bisect_left, bisect_right
from typing import NamedTuple

#: Blanks that are not the ASCII space, tab, line feed or carriage return: they become " ".
_ASCII_BLANKS = "\x0b\x0c\x1c\x1d\x1e\x1f"
_OTHER_BLANKS = frozenset(_ASCII_BLANKS + "\x85\u2800")
#: Default_Ignorable_Code_Point characters outside category Cf (Unicode's DerivedCoreProperties):
#: invisible, yet category Mn, Lo or unassigned, so the category test alone kept them.
_IGNORABLE_RANGES = (
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x115F, 0x1160),  # Hangul choseong and jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors (U+180E, a format character, too)
    (0x2065, 0x2065),  # reserved in the invisible operators' block
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors 1-16
    (0xFFA0, 0xFFA0),  # half-width Hangul filler
    (0xFFF0, 0xFFF8),  # reserved before the specials
    (0xE0000, 0xE0FFF),  # tags (those that spell ASCII are read first), variation selectors 17-256
)
# ASCII, which only the blanks above leave changed: removed in C before the distinct characters
# are collected (a set of every character of a text costs more than the scan).
_ASCII_RUNS = re.compile(r"[\x00-\x7f]+")
_CACHE_LIMIT = 50_000
_cache: dict[str, str] = {}


class _Table(dict[int, str]):
    """``str.translate`` table of ``normalize_char``, filled on first sight of each character."""

    def __missing__(self, code: int) -> str:
        if len(self) >= _CACHE_LIMIT:
            self.clear()
        out = self[code] = normalize_char(chr(code))
        return out


_TABLE = _Table()


def normalize_char(ch: str) -> str:
    """What one non-ASCII character becomes (``""`` when it is invisible)."""
    cached = _cache.get(ch)
    if cached is not None:
        return cached
    code = ord(ch)
    if 0xE0020 <= code <= 0xE007E:
        out = chr(code - 0xE0000)
    elif unicodedata.category(ch) == "Cf" or _ignorable(code):
        out = ""
    elif code == 0x2212 or unicodedata.category(ch) == "Pd":
        out = "-"
    elif ch in _OTHER_BLANKS or unicodedata.category(ch) in ("Zs", "Zl", "Zp"):
        out = " "
    else:
        out = unicodedata.normalize("NFKC", ch)
        if not out.isascii():
            out = "".join(_ascii_digit(c) for c in out)
    if len(_cache) >= _CACHE_LIMIT:
        _cache.clear()
    _cache[ch] = out
    return out


def _ignorable(code: int) -> bool:
    return any(low <= code <= high for low, high in _IGNORABLE_RANGES)


def _ascii_digit(ch: str) -> str:
    value = unicodedata.decimal(ch, None)
    return ch if value is None else chr(48 + value)


class Normalized(NamedTuple):
    """Normalised text and the edits that made it, to map offsets back to ``original``.

    ``edits`` holds ``(norm_start, norm_end, orig_start, orig_end)`` for every character that
    changed, in order; text between edits is the same in both.
    """

    original: str
    text: str
    edits: tuple[tuple[int, int, int, int], ...] = ()
    # The normalised start of each edit, for bisecting.
    norm_starts: tuple[int, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.edits)

    def original_start(self, n: int) -> int:
        """Original offset of the character at normalised offset ``n``."""
        if not self.edits:
            return n
        i = bisect_right(self.norm_starts, n) - 1
        if i < 0:
            return n
        _, norm_end, orig_start, orig_end = self.edits[i]
        if n < norm_end:
            return orig_start
        return orig_end + (n - norm_end)

    def original_end(self, n: int) -> int:
        """Original (exclusive) end offset for a normalised (exclusive) end offset ``n``."""
        if not self.edits:
            return n
        i = bisect_left(self.norm_starts, n) - 1
        if i < 0:
            return n
        _, norm_end, _, orig_end = self.edits[i]
        if n <= norm_end:
            return orig_end
        return orig_end + (n - norm_end)

    def original_span(self, start: int, end: int) -> tuple[int, int]:
        return self.original_start(start), self.original_end(end)


def normalize(text: str) -> Normalized:
    """``text`` in the form every rule sees, with the map back to ``text``."""
    if text.isascii() and not any(blank in text for blank in _ASCII_BLANKS):
        return Normalized(text, text)
    # Each distinct character once (a memory has a few dozen), then the places of only those
    # that change, found by ``str.find`` in C: a text of CJK or Cyrillic with a few full-width
    # commas costs a handful of steps, not one per character of its non-ASCII runs.
    candidates = {*_ASCII_RUNS.sub("", text), *(blank for blank in _ASCII_BLANKS if blank in text)}
    changing = [ch for ch in candidates if _TABLE[ord(ch)] != ch]
    if not changing:
        return Normalized(text, text)
    places: list[int] = []
    for ch in changing:
        at = text.find(ch)
        while at >= 0:
            places.append(at)
            at = text.find(ch, at + 1)
    places.sort()
    parts: list[str] = []
    edits: list[tuple[int, int, int, int]] = []
    cursor = 0  # original offset copied so far
    length = 0  # normalised length so far
    for offset in places:
        out = _TABLE[ord(text[offset])]
        if offset > cursor:
            parts.append(text[cursor:offset])
            length += offset - cursor
        parts.append(out)
        edits.append((length, length + len(out), offset, offset + 1))
        length += len(out)
        cursor = offset + 1
    parts.append(text[cursor:])
    return Normalized(text, "".join(parts), tuple(edits), tuple(e[0] for e in edits))


def normalize_text(text: str) -> str:
    """Just the normalised text."""
    return normalize(text).text


__all__ = ["Normalized", "normalize", "normalize_char", "normalize_text"]
