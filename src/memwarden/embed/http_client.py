"""What the HTTP providers (ollama, openai) share: one client, errors turned into ours."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memwarden.embed.base import check_dimension, normalize_rows
from memwarden.errors import EmbeddingUnavailable
from memwarden.models import VectorSpace


class HTTPEmbedder:
    """Base of the endpoint providers: posts JSON, maps failures to EmbeddingUnavailable.

    The dimension is either configured (MEMWARDEN_EMBED_DIMENSION) or learned by ``load``,
    which embeds one probe text; a later answer of another size is refused, never stored.
    """

    provider = "http"
    #: The endpoint's model is unknown to us, so no floor: every nearest vector is a candidate.
    min_similarity = 0.0
    #: Unknown model: the weight measured for the default builtin model.
    fusion_weight = 0.7

    def __init__(self, base_url: str, model: str, *, dimension: int | None, timeout: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout = timeout
        self._dimension = dimension
        self._client: Any = None

    @property
    def identity(self) -> VectorSpace:
        if self._dimension is None:
            raise EmbeddingUnavailable(f"{self.provider} embedder not loaded yet", reason="warming_up")
        return VectorSpace(f"{self.provider}:{self.model}", self._dimension)

    def _http(self) -> Any:
        if self._client is None:
            import httpx

            self._client = httpx.Client(timeout=self.timeout, trust_env=False)
        return self._client

    def _post(
        self, path: str, body: dict[str, Any], *, timeout: float | None, headers: dict[str, str]
    ) -> Any:
        import httpx

        url = self.base_url + path
        try:
            response = self._http().post(
                url, json=body, headers=headers, timeout=self.timeout if timeout is None else timeout
            )
        except httpx.TimeoutException as exc:
            raise EmbeddingUnavailable(
                f"{self.provider} at {url} did not answer in time", reason="timeout"
            ) from exc
        except httpx.HTTPError as exc:
            raise EmbeddingUnavailable(
                f"{self.provider} at {url} is unreachable ({type(exc).__name__}): is it running? "
                "check MEMWARDEN_EMBED_URL",
                reason="unreachable",
            ) from exc
        if response.status_code != 200:
            raise EmbeddingUnavailable(
                f"{self.provider} at {url} answered {response.status_code}: {self._error_text(response)}",
                reason="http_error",
                status=response.status_code,
            )
        try:
            return response.json()
        except ValueError as exc:
            raise EmbeddingUnavailable(
                f"{self.provider} at {url} answered non-JSON", reason="bad_response"
            ) from exc

    @staticmethod
    def _error_text(response: Any) -> str:
        try:
            body = response.json()
        except ValueError:
            return str(response.text)[:200]
        error = body.get("error") if isinstance(body, dict) else None
        if isinstance(error, dict):
            return str(error.get("message", error))[:200]
        return str(error or body)[:200]

    def _request(self, texts: list[str], timeout: float | None) -> list[list[float]]:
        raise NotImplementedError

    def _embed(self, texts: Sequence[str], timeout: float | None) -> Any:
        import numpy as np

        rows = self._request(list(texts), timeout)
        try:
            matrix = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise EmbeddingUnavailable(
                f"{self.provider} returned malformed vectors", reason="bad_response"
            ) from exc
        if (
            self._dimension is None
            and matrix.ndim == 2
            and matrix.shape[0] == len(texts)
            and matrix.shape[1] > 0
        ):
            self._dimension = int(matrix.shape[1])
        expected = self._dimension if self._dimension is not None else -1
        return normalize_rows(
            check_dimension(matrix, expected, len(texts), f"{self.provider} model {self.model}")
        )

    def load(self) -> None:
        if self._dimension is None:
            self._embed(["memwarden dimension probe"], None)

    def embed_documents(self, texts: Sequence[str]) -> Any:
        if not texts:
            import numpy as np

            return np.zeros((0, self.identity.dimension), dtype=np.float32)
        return self._embed(texts, None)

    def embed_query(self, text: str, *, timeout: float | None = None) -> Any:
        return self._embed([text], timeout)[0]

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
