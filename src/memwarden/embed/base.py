"""The embedder protocol, and the one place that turns settings into a provider.

A provider turns texts into unit-length float32 vectors. Its identity (``model_id`` and
``dimension``) travels with every stored vector, so vectors of different models are never
compared. Providers import their heavy libraries (numpy, onnxruntime, httpx) inside methods.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from memwarden.errors import ConfigError, EmbeddingUnavailable
from memwarden.models import VectorSpace

if TYPE_CHECKING:
    from memwarden.config import Settings
    from memwarden.config_hot import HotSettings

#: Texts per provider call on bulk paths (import, reindex, backfill).
BATCH_SIZE = 32


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


def _secret(value: object) -> str:
    """A secret setting as text (pydantic's SecretStr, or the hot reader's plain string)."""
    if value is None:
        return ""
    reveal = getattr(value, "get_secret_value", None)
    return str(reveal() if reveal is not None else value)


def open_embedder(settings: Settings | HotSettings) -> Embedder | None:
    """The provider the settings name; None for ``none``. Loads nothing yet."""
    kind = settings.embedder
    if kind == "none":
        return None
    if kind == "builtin":
        from memwarden.embed.builtin import open_builtin

        return open_builtin(settings.embed_model)
    if not settings.embed_url and kind == "openai":
        raise ConfigError("MEMWARDEN_EMBEDDER=openai needs MEMWARDEN_EMBED_URL (for example http://127.0.0.1:8000/v1)")
    if not settings.embed_model:
        raise ConfigError(f"MEMWARDEN_EMBEDDER={kind} needs MEMWARDEN_EMBED_MODEL (the model to ask for)")
    if kind == "ollama":
        from memwarden.embed.ollama import OllamaEmbedder

        return OllamaEmbedder(
            settings.embed_url or "http://127.0.0.1:11434", settings.embed_model,
            dimension=settings.embed_dimension or None, timeout=settings.embed_timeout_s,
        )
    from memwarden.embed.openai import OpenAIEmbedder

    return OpenAIEmbedder(
        settings.embed_url, settings.embed_model, dimension=settings.embed_dimension or None,
        api_key=_secret(settings.embed_api_key),
        timeout=settings.embed_timeout_s,
    )
