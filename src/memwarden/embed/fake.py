"""A deterministic hash embedder for tests: the same text always gives the same vector.

Words are hashed into buckets of a small vector, so texts sharing words are similar. Never a
production fallback; ``open_embedder`` cannot return it.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Sequence
from typing import Any

from memwarden.embed.base import normalize_rows
from memwarden.errors import EmbeddingUnavailable
from memwarden.models import VectorSpace

_WORD = re.compile(r"\w+", re.UNICODE)


class FakeEmbedder:
    """Hash-bucket vectors; ``fail`` and ``gate`` let tests make it break or stall."""

    min_similarity = 0.3
    fusion_weight = 0.7

    def __init__(self, dimension: int = 64, model_id: str = "fake-hash") -> None:
        self.identity = VectorSpace(model_id, dimension)
        self.fail = False
        self.loaded = False
        self.calls = 0
        #: When set, ``load`` and ``embed_query`` wait for it (a test controls warm-up and slowness).
        self.gate: threading.Event | None = None

    def load(self) -> None:
        if self.gate is not None:
            self.gate.wait(30)
        self.loaded = True

    def _vector(self, text: str) -> list[float]:
        vector = [0.0] * self.identity.dimension
        for word in _WORD.findall(text.casefold()):
            digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "little") % self.identity.dimension
            vector[bucket] += 1.0 if digest[4] % 2 else -1.0
        if not any(vector):
            vector[0] = 1.0
        return vector

    def embed_documents(self, texts: Sequence[str]) -> Any:
        self.calls += 1
        if self.fail:
            raise EmbeddingUnavailable("fake embedder told to fail", reason="test")
        return normalize_rows([self._vector(t) for t in texts])

    def embed_query(self, text: str, *, timeout: float | None = None) -> Any:
        if self.gate is not None and not self.gate.wait(timeout if timeout is not None else 30):
            raise EmbeddingUnavailable("fake embedder stalled", reason="timeout")
        return self.embed_documents([text])[0]

    def close(self) -> None:
        pass
