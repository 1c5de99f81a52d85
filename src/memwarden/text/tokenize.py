"""Split text into words, CJK runs and unspaced runs; both kinds of runs become overlapping bigrams.

Chinese and Japanese are written without spaces and Korean compounds run long, so a word
tokenizer sees a whole clause as one "word" and SQLite's default tokenizer cannot find anything
inside it. Overlapping character bigrams (数据库 → 数据, 据库) are the classic dictionary-free
answer: cheap, symmetric for documents and queries, and about as good as a segmenter for
retrieval (no jieba: it costs two seconds to load).

Thai, Lao, Khmer and Myanmar are written without spaces between words too (a space there ends a
phrase). Their runs become overlapping bigrams of character clusters (``cluster_bigrams``), for
the same reasons; docs/search.md compares them with a dictionary segmenter (ICU word break).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from memwarden.text.marks import MARKS

# Letters and digits (no underscore: snake_case splits like words) plus combining marks, which
# Python's \w leaves out and which Indic and Thai words need. The same on ASCII text: ASCII
# letters and digits. The patterns with the long classes below are compiled the first time
# non-ASCII text comes (an English `memwarden search` never pays for them).
_ASCII_WORD = re.compile(r"[A-Za-z0-9]+")
_WORD = rf"(?:[^\W_]|[{MARKS}])+"
_CJK_CHARS = (
    "\u1100-\u11ff"  # Hangul Jamo
    "\u3005-\u3007"  # 々 〆 〇
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3130-\u318f"  # Hangul compatibility Jamo
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\ua960-\ua97f"  # Hangul Jamo extended A
    "\uac00-\ud7ff"  # Hangul syllables, Jamo extended B
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\U00020000-\U0003134f"  # CJK extensions B-G
)
# Southeast Asian scripts written without spaces between words (spaces there separate phrases).
_UNSPACED_CHARS = (
    "\u0e00-\u0e7f"  # Thai
    "\u0e80-\u0eff"  # Lao
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
    "\u19e0-\u19ff"  # Khmer symbols
    "\ua9e0-\ua9ff"  # Myanmar extended B
    "\uaa60-\uaa7f"  # Myanmar extended A
)
_CJK_SPLIT = f"([{_CJK_CHARS}]+|[{_UNSPACED_CHARS}]+)"
_CJK_RUN = f"[{_CJK_CHARS}]+"
_UNSPACED_RUN = f"[{_UNSPACED_CHARS}]+"


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


WORD = "word"
CJK = "cjk"
UNSPACED = "unspaced"


def split_words(text: str) -> Iterator[tuple[str, str]]:
    """``(kind, piece)`` in order: ``("word", "Sunucu")``, ``("cjk", "数据库")`` or
    ``("unspaced", "ฐานข้อมูล")``.

    A word mixing scripts ("Python3教程") is cut where the CJK or unspaced run starts and ends.
    """
    if text.isascii():
        for match in _ASCII_WORD.finditer(text):
            yield WORD, match.group()
        return
    cjk_split, cjk_run, unspaced_run = _compiled(_CJK_SPLIT), _compiled(_CJK_RUN), _compiled(_UNSPACED_RUN)
    for match in _compiled(_WORD).finditer(text):
        word = match.group()
        if word.isascii():
            yield WORD, word
            continue
        for piece in cjk_split.split(word):
            if not piece:
                continue
            if cjk_run.fullmatch(piece):
                yield CJK, piece
            elif unspaced_run.fullmatch(piece):
                yield UNSPACED, piece
            else:
                yield WORD, piece


def bigrams(run: str) -> list[str]:
    """Overlapping character bigrams of a CJK run; a single character stays as it is."""
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


# A character cluster of the unspaced scripts: leading vowels (Thai and Lao write them before
# the consonant they follow in speech), one base letter, its marks and subscript consonants
# (Khmer coeng and Myanmar virama stack the next letter below), and trailing vowel letters.
_LEADING = "\u0e40-\u0e44\u0ec0-\u0ec4"
_STACKERS = "\u1039\u17d2"
_TRAILING = "\u0e30\u0e32\u0e33\u0e45\u0eb0\u0eb2\u0eb3"
_CLUSTER = f"[{_LEADING}]*(?:[^{MARKS}]|$)(?:[{_STACKERS}].|[{MARKS}])*[{_TRAILING}]*"


def clusters(run: str) -> list[str]:
    """The character clusters of a Thai, Lao, Khmer or Myanmar run (see ``_CLUSTER``)."""
    return [c for c in _compiled(_CLUSTER).findall(run) if c]


def cluster_bigrams(run: str) -> list[str]:
    """Overlapping pairs of character clusters (``ที่คะแนน`` → ``ที่คะ คะแน แนน``); one cluster
    stays as it is.

    Counting in clusters rather than code points keeps a vowel sign or tone mark from making a
    "bigram" of its own with the letter it sits on, so each pair spans two real syllable parts.
    """
    parts = clusters(run)
    if len(parts) < 2:
        return parts
    return [parts[i] + parts[i + 1] for i in range(len(parts) - 1)]
