"""``open_embedder``: the embedding provider the settings name (kept apart from the protocol in
``base.py``, which knows no provider)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memwarden.embed.base import Embedder
from memwarden.errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.config import Settings
    from memwarden.settings_reader import HotSettings


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
    # Providers are imported only when chosen: each pulls in its own libraries.
    if kind == "builtin":
        from memwarden.embed.builtin import open_builtin

        return open_builtin(settings.embed_model)
    if not settings.embed_url and kind == "openai":
        raise ConfigError(
            "MEMWARDEN_EMBEDDER=openai needs MEMWARDEN_EMBED_URL (for example http://127.0.0.1:8000/v1)"
        )
    if not settings.embed_model:
        raise ConfigError(f"MEMWARDEN_EMBEDDER={kind} needs MEMWARDEN_EMBED_MODEL (the model to ask for)")
    if kind == "ollama":
        from memwarden.embed.ollama import OllamaEmbedder

        return OllamaEmbedder(
            settings.embed_url or "http://127.0.0.1:11434",
            settings.embed_model,
            dimension=settings.embed_dimension or None,
            timeout=settings.embed_timeout_s,
        )
    from memwarden.embed.openai import OpenAIEmbedder

    return OpenAIEmbedder(
        settings.embed_url,
        settings.embed_model,
        dimension=settings.embed_dimension or None,
        api_key=_secret(settings.embed_api_key),
        timeout=settings.embed_timeout_s,
    )
