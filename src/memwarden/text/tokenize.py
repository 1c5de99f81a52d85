"""Split text into words and CJK runs; CJK runs become overlapping bigrams.

Chinese and Japanese are written without spaces and Korean compounds run long, so a word
tokenizer sees a whole clause as one "word" and SQLite's default tokenizer cannot find anything
inside it. Overlapping character bigrams (数据库 → 数据, 据库) are the classic dictionary-free
answer: cheap, symmetric for documents and queries, and about as good as a segmenter for
retrieval (no jieba: it costs two seconds to load).
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
_CJK_SPLIT = f"([{_CJK_CHARS}]+)"
_CJK_RUN = f"[{_CJK_CHARS}]+"


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


WORD = "word"
CJK = "cjk"


def split_words(text: str) -> Iterator[tuple[str, str]]:
    """``(kind, piece)`` in order: ``("word", "Sunucu")`` or ``("cjk", "数据库")``.

    A word mixing scripts ("Python3教程") is cut where the CJK run starts and ends.
    """
    if text.isascii():
        for match in _ASCII_WORD.finditer(text):
            yield WORD, match.group()
        return
    cjk_split, cjk_run = _compiled(_CJK_SPLIT), _compiled(_CJK_RUN)
    for match in _compiled(_WORD).finditer(text):
        word = match.group()
        if word.isascii():
            yield WORD, word
            continue
        for piece in cjk_split.split(word):
            if not piece:
                continue
            yield (CJK if cjk_run.fullmatch(piece) else WORD), piece


def bigrams(run: str) -> list[str]:
    """Overlapping character bigrams of a CJK run; a single character stays as it is."""
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]
