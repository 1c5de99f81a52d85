"""``ollama``: Ollama's embed API (``POST /api/embed`` with ``{"model", "input": [...]}``)."""

from __future__ import annotations

from memwarden.embed.http_client import HTTPEmbedder
from memwarden.errors import EmbeddingUnavailable


class OllamaEmbedder(HTTPEmbedder):
    """Answers look like ``{"model": …, "embeddings": [[…], …]}``; errors ``{"error": "…"}``."""

    provider = "ollama"

    def _request(self, texts: list[str], timeout: float | None) -> list[list[float]]:
        body = self._post(
            "/api/embed", {"model": self.model, "input": texts, "truncate": True}, timeout=timeout, headers={}
        )
        vectors = body.get("embeddings") if isinstance(body, dict) else None
        if not isinstance(vectors, list):
            raise EmbeddingUnavailable("ollama answered without 'embeddings'", reason="bad_response")
        return vectors
