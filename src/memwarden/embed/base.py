"""The embedder protocol, and the one place that turns settings into a provider.

A provider turns texts into unit-length float32 vectors. Its identity (``model_id`` and
``dimension``) travels with every stored vector, so vectors of different models are never
compared. Providers import their heavy libraries (numpy, onnxruntime, httpx) inside methods.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from memwarden.errors import EmbeddingUnavailable
from memwarden.models import VectorSpace

#: Texts per provider call on bulk paths (import, reindex, backfill): enough for the builtin
#: model to run several of its own small batches side by side, one per core.
BATCH_SIZE = 128


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length float32 vectors (numpy arrays, one row per text)."""

    #: Cosine below which a vector hit is treated as unrelated (model-specific; 0 keeps all).
    min_similarity: float
    #: Share of a fused hit's relevance that comes from the vector path (the rest: keywords).
    #: A model that is strong on its own needs less help from keywords; measured per model.
    fusion_weight: float

    @property
    def identity(self) -> VectorSpace:
        """Raises EmbeddingUnavailable(reason="warming_up") while it is still unknown."""
        ...

    def load(self) -> None:
        """Do the slow part (load weights, probe an endpoint). Idempotent; may raise."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> Any:
        """A ``(len(texts), dimension)`` float32 array. Raises EmbeddingUnavailable."""
        ...

    def embed_query(self, text: str, *, timeout: float | None = None) -> Any:
        """A ``(dimension,)`` float32 array for a search query. Raises EmbeddingUnavailable."""
        ...

    def close(self) -> None: ...


def normalize_rows(matrix: Any) -> Any:
    """Scale each row to unit length (cosine similarity becomes a dot product)."""
    import numpy as np

    array = np.asarray(matrix, dtype=np.float32)
    if array.ndim == 1:
        array = array.reshape(1, -1)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (array / norms).astype(np.float32, copy=False)


def check_dimension(matrix: Any, expected: int, rows: int, source: str) -> Any:
    """Refuse vectors of the wrong shape instead of storing a space that never matches."""
    shape = getattr(matrix, "shape", None)
    if shape is None or len(shape) != 2 or shape[0] != rows or shape[1] != expected:
        raise EmbeddingUnavailable(
            f"{source} returned vectors of shape {shape}, expected ({rows}, {expected}): "
            "check MEMWARDEN_EMBED_MODEL (a model change needs `memwarden reindex --embeddings`)",
            reason="wrong_dimension",
        )
    return matrix
