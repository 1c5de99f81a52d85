"""Which Snowball stemmers a word gets without configuration: its script, and stopword evidence.

``MEMWARDEN_LANGUAGES`` used to be the whole story: every word went through every configured
stemmer, so with the default (English, Turkish) an Arabic, Greek, Russian or Hindi word was cut
to five letters by the Turkish rule and a German word was stemmed as English. Now:

- **Script first.** A word in a script that only some Snowball languages are written in gets
  the configured languages of that script, or, when none is configured, the script's own
  language: Arabic script → Arabic (Persian when the text has Persian-only letters), Greek →
  Greek, Cyrillic → Russian, Devanagari → Hindi, Armenian → Armenian, Tamil → Tamil. The
  script of a word is certain, so documents and queries always agree on these.
- **Latin script: stopword evidence.** Latin words keep the configured Latin languages, and a
  text whose function words point clearly at another language with a stopword list (at least
  ``MIN_EVIDENCE`` of its stopwords, more than any configured language and than any other
  candidate) adds that language's stemmer and stopwords. Adding, never replacing: a short query
  guessed wrong still carries the configured terms, so it still meets its memory on them.
- **No guess on Vietnamese.** Its syllables are full of Spanish- and French-looking stopwords
  ("la", "de"), but it has no Snowball stemmer; letters only Vietnamese uses stop the guess.

Why not a statistical detector (py3langid and the like): on texts of a few words they guess
often wrong, they cost an import and a model load on the hook's cold path, and a word's script
already settles most of what matters here (docs/search.md has the measurements).
"""

from __future__ import annotations

from collections.abc import Iterable

from memwarden.text.stopwords import as_compared, stopwords_for

LATIN = "latin"
# Snowball languages by the script they are written in; every other one is Latin. Serbian is
# written in both.
LANGUAGE_SCRIPTS: dict[str, tuple[str, ...]] = {
    "arabic": ("arabic",),
    "persian": ("arabic",),
    "greek": ("greek",),
    "russian": ("cyrillic",),
    "serbian": ("cyrillic", LATIN),
    "hindi": ("devanagari",),
    "nepali": ("devanagari",),
    "tamil": ("tamil",),
    "armenian": ("armenian",),
    "yiddish": ("hebrew",),
}
# The language a script's words are stemmed in when no configured language is written in it.
SCRIPT_LANGUAGE = {
    "arabic": "arabic",
    "greek": "greek",
    "cyrillic": "russian",
    "devanagari": "hindi",
    "tamil": "tamil",
    "armenian": "armenian",
}
# Code point ranges of the scripts above (main blocks and their supplements).
_SCRIPT_RANGES = (
    (0x0370, 0x03FF, "greek"),
    (0x1F00, 0x1FFF, "greek"),
    (0x0400, 0x052F, "cyrillic"),
    (0x1C80, 0x1C8F, "cyrillic"),
    (0x2DE0, 0x2DFF, "cyrillic"),
    (0xA640, 0xA69F, "cyrillic"),
    (0x0530, 0x058F, "armenian"),
    (0x0590, 0x05FF, "hebrew"),
    (0x0600, 0x06FF, "arabic"),
    (0x0750, 0x077F, "arabic"),
    (0x08A0, 0x08FF, "arabic"),
    (0xFB50, 0xFDFF, "arabic"),
    (0xFE70, 0xFEFF, "arabic"),
    (0x0900, 0x097F, "devanagari"),
    (0xA8E0, 0xA8FF, "devanagari"),
    (0x0B80, 0x0BFF, "tamil"),
)
# Letters of the Arabic script that Persian writes and Arabic does not (پ چ ژ گ).
_PERSIAN_LETTERS = frozenset("پچژگ")
# Letters only Vietnamese writes: ơ, ư, đ and the stacked-diacritic block (ạ ả ấ … ỹ).
_VIETNAMESE_RANGE = (0x1EA0, 0x1EF9)
_VIETNAMESE_LETTERS = frozenset("ơưđƠƯĐ")
# Stopwords of the guessed language a text needs before its stemmer is added.
MIN_EVIDENCE = 2
# Latin-script languages with a stopword list: the only ones evidence can point at.
_CANDIDATES = (
    "english",
    "turkish",
    "german",
    "french",
    "spanish",
    "italian",
    "portuguese",
    "dutch",
    "romanian",
)


def script_of(word: str) -> str:
    """The script of a word, by its first letter outside ASCII ("latin" for ASCII words)."""
    if word.isascii():
        return LATIN
    for ch in word:
        code = ord(ch)
        if code < 0x0370:
            continue
        for low, high, script in _SCRIPT_RANGES:
            if low <= code <= high:
                return script
        return LATIN if 0x1E00 <= code <= 0x1EFF else "other"
    return LATIN


def scripts_of(language: str) -> tuple[str, ...]:
    return LANGUAGE_SCRIPTS.get(language, (LATIN,))


class LanguageGuesser:
    """Stopword evidence for the Latin-script language of one text (see the module docstring)."""

    def __init__(self, configured: Iterable[str]) -> None:
        self.configured = tuple(configured)
        # Each stopword with the candidate languages it belongs to, so a text is read once.
        owners: dict[str, list[int]] = {}
        for number, name in enumerate(_CANDIDATES):
            for word in stopwords_for(name):
                owners.setdefault(as_compared(word), []).append(number)
        self._owners = {word: tuple(numbers) for word, numbers in owners.items()}
        self._configured = [i for i, name in enumerate(_CANDIDATES) if name in self.configured]

    def latin_language(self, folded_words: list[str], raw_text: str) -> str | None:
        """The extra Latin-script language a text's stopwords point at, or None.

        ``folded_words`` are the text's words after ``fold`` (the form stopwords are kept in).
        """
        counts = [0] * len(_CANDIDATES)
        owners = self._owners
        for word in folded_words:
            for number in owners.get(word, ()):
                counts[number] += 1
        top = max(counts)
        if top < MIN_EVIDENCE or counts.count(top) > 1:
            return None
        if any(counts[i] >= top for i in self._configured):
            return None
        if self.is_vietnamese(raw_text):
            return None
        return _CANDIDATES[counts.index(top)]

    @staticmethod
    def is_vietnamese(raw_text: str) -> bool:
        """True when the text has letters only Vietnamese writes (ơ, ư, đ, ạ … ỹ)."""
        if raw_text.isascii():
            return False
        low, high = _VIETNAMESE_RANGE
        return any(ch in _VIETNAMESE_LETTERS or low <= ord(ch) <= high for ch in raw_text)

    @staticmethod
    def arabic_script_language(raw_text: str) -> str:
        """Persian when the text has letters only Persian writes, else Arabic."""
        return "persian" if any(ch in _PERSIAN_LETTERS for ch in raw_text) else "arabic"
