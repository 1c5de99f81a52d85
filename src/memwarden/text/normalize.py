"""Character-level normalization: Unicode NFKC, case folding that knows Turkish, accent folding.

Case folding has two forms because Turkish has four i's. ``fold_case`` is the
language-neutral form: ``İ`` becomes ``i`` (Python's ``casefold`` would give ``i`` plus a
combining dot, which then matches nothing) and ``I`` becomes ``i``. ``fold_case_turkish`` is
what a Turkish reader expects before stemming: ``I`` → ``ı`` and ``İ`` → ``i``, so the Turkish
stemmer sees real Turkish words ("KULLANICI" → "kullanıcı"). After stemming, ``fold_accents``
maps ``ı`` to ``i`` as well, so every spelling a user may type (with or without Turkish letters,
in any case) ends up on the same index term.

Accent folding is limited to Latin, Greek and Cyrillic letters: there a diacritic is usually
optional to the writer (cafe/café, sunucu/sunucu, ёлка/елка), while in other scripts marks are
part of the letter (Japanese ゛ turns か into が; Indic vowel signs), so they are kept.
"""

from __future__ import annotations

import unicodedata

# Letters that carry no decomposable accent but that a user typing without them would write as
# plain Latin letters.
_EXTRA_FOLDS = str.maketrans(
    {
        "ı": "i",
        "ø": "o",
        "ł": "l",
        "đ": "d",
        "ħ": "h",
        "ŧ": "t",
        "ŀ": "l",
        "æ": "ae",
        "œ": "oe",
        "ß": "ss",
        "þ": "th",
        "ð": "d",
    }
)
_TURKISH_UPPER_I = str.maketrans({"I": "ı", "İ": "i"})
_DOTTED_CAPITAL_I = str.maketrans({"İ": "i"})
# Latin, Greek, Cyrillic (with their supplements) and Latin Extended Additional / Greek Extended.
_FOLDABLE_MAX = 0x052F
_FOLDABLE_EXTRA = (0x1E00, 0x1FFF)


def nfkc(text: str) -> str:
    """Compatibility normalization: full-width letters, ligatures, superscripts become plain."""
    return unicodedata.normalize("NFKC", text)


def fold_case(word: str) -> str:
    """Language-neutral case folding that does not break the Turkish dotted capital İ."""
    return word.translate(_DOTTED_CAPITAL_I).casefold()


def fold_case_turkish(word: str) -> str:
    """Turkish lower case: I → ı, İ → i, then ordinary folding for everything else."""
    return word.translate(_TURKISH_UPPER_I).casefold()


def _foldable(word: str) -> bool:
    low, high = _FOLDABLE_EXTRA
    return all(ord(ch) <= _FOLDABLE_MAX or low <= ord(ch) <= high for ch in word)


def fold_accents(word: str) -> str:
    """Remove diacritics from Latin, Greek and Cyrillic letters (café → cafe, ı → i, ё → е).

    Words in other scripts come back unchanged; ASCII words take a fast path.
    """
    if word.isascii():
        return word
    if not _foldable(word):
        return word
    decomposed = unicodedata.normalize("NFD", word)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return unicodedata.normalize("NFC", stripped).translate(_EXTRA_FOLDS)


def fold(word: str) -> str:
    """Neutral case folding then accent folding: the form stopwords are compared in."""
    return fold_accents(fold_case(word))
