"""``openai``: any OpenAI-compatible ``POST /v1/embeddings`` (vLLM, TEI, LM Studio, llama.cpp).

MEMWARDEN_EMBED_URL is the API base, ending in ``/v1`` (``http://127.0.0.1:8000/v1``).
"""

from __future__ import annotations

from memwarden.embed.http_client import HTTPEmbedder
from memwarden.errors import EmbeddingUnavailable


class OpenAIEmbedder(HTTPEmbedder):
    """Answers look like ``{"data": [{"index": 0, "embedding": […]}, …]}``; errors
    ``{"error": {"message": …}}``. Rows are put back in input order by ``index``."""

    provider = "openai"

    def __init__(
        self, base_url: str, model: str, *, dimension: int | None, api_key: str = "", timeout: float
    ) -> None:
        super().__init__(base_url, model, dimension=dimension, timeout=timeout)
        self.api_key = api_key

    def _request(self, texts: list[str], timeout: float | None) -> list[list[float]]:
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        body = self._post(
            "/embeddings",
            {"model": self.model, "input": texts, "encoding_format": "float"},
            timeout=timeout,
            headers=headers,
        )
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list) or len(data) != len(texts):
            raise EmbeddingUnavailable(
                f"openai endpoint returned {len(data) if isinstance(data, list) else 'no'} embeddings for "
                f"{len(texts)} inputs",
                reason="bad_response",
            )
        try:
            ordered = sorted(data, key=lambda item: int(item.get("index", 0)))
            return [item["embedding"] for item in ordered]
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise EmbeddingUnavailable(
                "openai endpoint returned malformed 'data'", reason="bad_response"
            ) from exc
