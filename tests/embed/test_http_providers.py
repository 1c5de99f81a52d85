"""ollama and openai providers against a real loopback server speaking their APIs."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from memwarden.embed.ollama import OllamaEmbedder
from memwarden.embed.openai import OpenAIEmbedder
from memwarden.errors import EmbeddingUnavailable

from .fake_endpoints import EmbeddingEndpoint


@pytest.fixture
def endpoint() -> Iterator[EmbeddingEndpoint]:
    with EmbeddingEndpoint(dimension=8) as server:
        yield server


def _providers(endpoint: EmbeddingEndpoint) -> list[OllamaEmbedder | OpenAIEmbedder]:
    return [
        OllamaEmbedder(endpoint.url, "nomic-embed-text", dimension=None, timeout=5),
        OpenAIEmbedder(
            endpoint.url + "/v1", "text-embedding-3-small", dimension=None, api_key="sk-test", timeout=5
        ),
    ]


def test_both_providers_learn_the_dimension_and_return_unit_vectors(endpoint: EmbeddingEndpoint) -> None:
    for provider in _providers(endpoint):
        provider.load()
        assert provider.identity.dimension == 8
        vectors = provider.embed_documents(["alpha beta", "gamma", "alpha beta"])
        assert vectors.shape == (3, 8) and vectors.dtype == np.float32
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
        assert np.allclose(vectors[0], vectors[2])
        query = provider.embed_query("alpha beta")
        assert np.allclose(query, vectors[0])
        provider.close()


def test_requests_use_each_apis_real_shape(endpoint: EmbeddingEndpoint) -> None:
    ollama, openai = _providers(endpoint)
    ollama.embed_documents(["one"])
    openai.embed_documents(["two"])
    assert endpoint.requests[0] == {"model": "nomic-embed-text", "input": ["one"], "truncate": True}
    assert endpoint.requests[1] == {
        "model": "text-embedding-3-small",
        "input": ["two"],
        "encoding_format": "float",
    }
    assert endpoint.headers[1].get("Authorization") == "Bearer sk-test"
    assert "Authorization" not in endpoint.headers[0]


def test_openai_rows_are_put_back_in_input_order(endpoint: EmbeddingEndpoint) -> None:
    openai = _providers(endpoint)[1]
    vectors = openai.embed_documents(["first text", "second other words", "third"])
    singles = [openai.embed_query(t) for t in ["first text", "second other words", "third"]]
    assert all(np.allclose(v, s) for v, s in zip(vectors, singles, strict=True))


def test_a_server_error_is_embedding_unavailable_with_the_apis_message(endpoint: EmbeddingEndpoint) -> None:
    endpoint.mode = "error"
    ollama, openai = _providers(endpoint)
    with pytest.raises(EmbeddingUnavailable, match="not found, try pulling it first") as info:
        ollama.load()
    assert info.value.fields["reason"] == "http_error" and info.value.fields["status"] == 500
    with pytest.raises(EmbeddingUnavailable, match="had an error while processing"):
        openai.load()


def test_a_malformed_answer_is_refused(endpoint: EmbeddingEndpoint) -> None:
    endpoint.mode = "garbage"
    for provider in _providers(endpoint):
        with pytest.raises(EmbeddingUnavailable) as info:
            provider.embed_documents(["x"])
        assert info.value.fields["reason"] == "bad_response"


def test_a_slow_answer_times_out_within_the_given_budget(endpoint: EmbeddingEndpoint) -> None:
    import time

    endpoint.mode = "slow"
    for provider in _providers(endpoint):
        started = time.monotonic()
        with pytest.raises(EmbeddingUnavailable) as info:
            provider.embed_query("anything", timeout=0.2)
        assert info.value.fields["reason"] == "timeout"
        assert time.monotonic() - started < 5.0  # the endpoint would hold it 10 s


def test_a_wrong_dimension_is_refused_not_stored(endpoint: EmbeddingEndpoint) -> None:
    for provider in _providers(endpoint):
        provider.load()
        endpoint.mode = "wrong_dimension"
        with pytest.raises(EmbeddingUnavailable, match="expected") as info:
            provider.embed_documents(["alpha"])
        assert info.value.fields["reason"] == "wrong_dimension"
        endpoint.mode = "ok"


def test_a_configured_dimension_that_disagrees_is_refused_at_load(endpoint: EmbeddingEndpoint) -> None:
    provider = OllamaEmbedder(endpoint.url, "m", dimension=16, timeout=5)
    provider.load()  # nothing to learn: the first real call checks
    with pytest.raises(EmbeddingUnavailable, match=r"expected \(1, 16\)"):
        provider.embed_query("alpha")


def test_an_unreachable_endpoint_is_embedding_unavailable() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    provider = OllamaEmbedder(f"http://127.0.0.1:{port}", "m", dimension=None, timeout=2)
    with pytest.raises(EmbeddingUnavailable, match="unreachable") as info:
        provider.load()
    assert info.value.fields["reason"] == "unreachable"
