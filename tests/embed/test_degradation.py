"""Search degrades to keywords instead of hanging; adds keep memories when embedding fails."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from memwarden.app import build_service
from memwarden.config import Settings
from memwarden.embed.fake import FakeEmbedder
from memwarden.service import MemoryService

from .fake_endpoints import EmbeddingEndpoint


def _service(
    settings: Settings,
    embedder: FakeEmbedder,
    *,
    background: bool = True,
    timeout_ms: int = 250,
    warmup_wait_ms: int = 0,
) -> MemoryService:
    tuned = settings.model_copy(
        update={
            "vector_timeout_ms": timeout_ms,
            "embed_backfill_interval_s": 1.0,
            "vector_warmup_wait_ms": warmup_wait_ms,
        }
    )
    return build_service(tuned, embedder=embedder, background=background)


def test_no_embedder_answers_from_keywords_and_says_so(settings: Settings) -> None:
    svc = build_service(settings)  # MEMWARDEN_EMBEDDER=none in tests' settings
    try:
        svc.memories.add("The client prefers email")
        result = svc.searcher.search("email")
        assert result.degraded is True and result.degrade_reason == "no_embedder"
        assert [h.memory.content for h in result.hits] == ["The client prefers email"]
        assert svc.searcher.vector_status()["state"] == "off"
    finally:
        svc.close()


def test_searches_while_the_model_loads_are_keyword_results_marked_warming_up(settings: Settings) -> None:
    embedder = FakeEmbedder()
    embedder.gate = threading.Event()  # the model "loads" until the test opens the gate
    svc = _service(settings, embedder)
    try:
        added = svc.memories.add("Deploys happen on Tuesdays")
        assert added.embedding_failed is False  # not failed: embedded by the backfill once warm
        started = time.monotonic()
        result = svc.searcher.search("deploys")
        assert time.monotonic() - started < 5.0  # the stalled load would hold it 30 s
        assert result.degraded is True and result.degrade_reason == "warming_up"
        assert [h.memory.content for h in result.hits] == ["Deploys happen on Tuesdays"]
        assert svc.searcher.vector_status()["state"] == "loading"
        embedder.gate.set()
        assert svc.vectors is not None and svc.vectors.wait_ready(10)
        embedder.gate = None
        svc.vectors.backfill()  # what the backfill thread does after warm-up (it may have done it already)
        assert svc.searcher.vector_status()["missing"] == 0
        assert svc.searcher.search("deploys tuesdays").degraded is False
    finally:
        svc.close()


def test_a_search_during_loading_waits_a_bounded_time_and_reports_the_wait(settings: Settings) -> None:
    embedder = FakeEmbedder()
    embedder.gate = threading.Event()
    svc = _service(settings, embedder, warmup_wait_ms=300)
    try:
        svc.memories.add("Deploys happen on Tuesdays")
        started = time.monotonic()
        result = svc.searcher.search("deploys")
        assert 0.25 <= time.monotonic() - started < 5.0
        assert result.degrade_reason == "warming_up" and 250 <= result.vector_wait_ms < 5000
        assert result.to_dict()["vector_wait_ms"] == result.vector_wait_ms
    finally:
        embedder.gate.set()
        svc.close()


def test_the_prompt_hooks_recall_never_waits_for_the_model_to_load(settings: Settings) -> None:
    """A search waits for a loading model (MEMWARDEN_VECTOR_WARMUP_WAIT_MS); the prompt hook's
    recall does not: its budget is tens of milliseconds, and its keyword answer is the same."""
    embedder = FakeEmbedder()
    embedder.gate = threading.Event()
    svc = _service(settings, embedder, warmup_wait_ms=20_000)
    try:
        svc.memories.add("Deploys happen on Tuesdays")
        started = time.monotonic()
        result = svc.searcher.recall("deploys", projects=[None, "default"])
        assert time.monotonic() - started < 2.0  # a search would wait up to 20 s here
        assert result.degrade_reason == "warming_up" and result.vector_wait_ms == 0.0
        assert [h.memory.content for h in result.hits] == ["Deploys happen on Tuesdays"]
    finally:
        embedder.gate.set()
        svc.close()


def test_a_search_that_arrives_while_the_model_loads_gets_meaning_once_it_is_ready(
    settings: Settings,
) -> None:
    embedder = FakeEmbedder()
    embedder.gate = threading.Event()
    svc = _service(settings, embedder, warmup_wait_ms=20_000)
    try:
        svc.memories.add("Deploys happen on Tuesdays")
        threading.Timer(0.3, embedder.gate.set).start()  # the model finishes loading meanwhile
        result = svc.searcher.search("deploys tuesdays")
        assert result.degraded is False and result.vector_wait_ms >= 200
        ready = svc.searcher.search("deploys tuesdays")
        assert ready.degraded is False and ready.vector_wait_ms == 0.0
    finally:
        embedder.gate.set()
        svc.close()


def test_a_slow_query_embedding_gives_keyword_results_within_the_budget(settings: Settings) -> None:
    embedder = FakeEmbedder()
    svc = _service(settings, embedder, background=False, timeout_ms=100)
    try:
        svc.memories.add("Backups are encrypted with age")
        embedder.gate = threading.Event()  # every query embedding now stalls
        started = time.monotonic()
        result = svc.searcher.search("backups encrypted")
        elapsed = time.monotonic() - started
        assert result.degraded is True and result.degrade_reason == "query_timeout"
        assert [h.memory.content for h in result.hits] == ["Backups are encrypted with age"]
        assert elapsed < 5.0  # the stalled embedder would hold it 30 s
        embedder.gate.set()
    finally:
        svc.close()


def test_a_failing_embedder_gives_vector_error_and_keeps_added_memories(settings: Settings) -> None:
    embedder = FakeEmbedder()
    svc = _service(settings, embedder, background=False)
    try:
        embedder.fail = True
        added = svc.memories.add("The VPN drops every 8 hours")
        assert added.embedding_failed is True and "told to fail" in (added.embedding_error or "")
        assert added.to_dict()["embedding_failed"] is True
        assert svc.memories.get([added.memory.id])[0][0].content == "The VPN drops every 8 hours"
        result = svc.searcher.search("VPN drops")
        assert result.degraded is True and result.degrade_reason == "vector_error"
        assert [h.memory.id for h in result.hits] == [added.memory.id]
        status = svc.searcher.vector_status()
        assert status["missing"] == 1 and status["embedding_failed"] == 1
        embedder.fail = False
        assert svc.vectors is not None and svc.vectors.backfill() == 1  # the retry succeeds
        status = svc.searcher.vector_status()
        assert status["missing"] == 0 and status["embedding_failed"] == 0
        assert svc.searcher.search("VPN drops").degraded is False
    finally:
        svc.close()


@pytest.fixture
def endpoint() -> Iterator[EmbeddingEndpoint]:
    with EmbeddingEndpoint(dimension=8) as server:
        yield server


def _ollama_service(settings: Settings, url: str, timeout_ms: int = 300) -> MemoryService:
    tuned = settings.model_copy(
        update={
            "embedder": "ollama",
            "embed_url": url,
            "embed_model": "nomic-embed-text",
            "vector_timeout_ms": timeout_ms,
            "embed_timeout_s": 2.0,
        }
    )
    return build_service(tuned, background=False)


def test_an_ollama_endpoint_that_turns_slow_gives_query_timeout(
    settings: Settings, endpoint: EmbeddingEndpoint
) -> None:
    svc = _ollama_service(settings, endpoint.url)
    try:
        svc.memories.add("Carol prefers Rust examples")
        assert svc.searcher.vector_status()["with_vector"] == 1
        endpoint.mode = "slow"
        started = time.monotonic()
        result = svc.searcher.search("rust examples")
        assert time.monotonic() - started < 5.0  # the endpoint would hold it 10 s
        assert result.degrade_reason == "query_timeout"
        assert [h.memory.content for h in result.hits] == ["Carol prefers Rust examples"]
        endpoint.release.set()
    finally:
        svc.close()


def test_an_ollama_endpoint_that_fails_gives_vector_error_and_failed_adds(
    settings: Settings, endpoint: EmbeddingEndpoint
) -> None:
    svc = _ollama_service(settings, endpoint.url)
    try:
        assert svc.vectors is not None and svc.vectors.wait_ready(5)  # learned the dimension while it worked
        endpoint.mode = "error"
        added = svc.memories.add("Alice is allergic to peanuts")
        assert added.embedding_failed is True and "pulling" in (added.embedding_error or "")
        result = svc.searcher.search("peanuts")
        assert result.degrade_reason == "vector_error" and len(result.hits) == 1
    finally:
        svc.close()


def test_an_unreachable_endpoint_at_start_leaves_search_working(settings: Settings) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    svc = _ollama_service(settings, f"http://127.0.0.1:{port}")
    try:
        added = svc.memories.add("Bob owns billing")
        assert added.embedding_failed is False  # the embedder never loaded: nothing was tried
        result = svc.searcher.search("billing")
        assert result.degrade_reason == "vector_error" and len(result.hits) == 1
        status = svc.searcher.vector_status()
        assert status["state"] == "failed" and "unreachable" in status["error"]
    finally:
        svc.close()


def test_a_wrong_dimension_from_the_endpoint_is_never_stored(
    settings: Settings, endpoint: EmbeddingEndpoint
) -> None:
    svc = _ollama_service(settings, endpoint.url)
    try:
        assert svc.vectors is not None and svc.vectors.wait_ready(5)
        endpoint.mode = "wrong_dimension"
        added = svc.memories.add("The logo must be 24 pixels tall")
        assert added.embedding_failed is True and "expected" in (added.embedding_error or "")
        assert svc.searcher.vector_status()["with_vector"] == 0
    finally:
        svc.close()


class CountingEmbedder(FakeEmbedder):
    """The fake embedder, counting the queries it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.queries: list[str] = []

    def embed_query(self, text: str, *, timeout: float | None = None):  # type: ignore[no-untyped-def]
        self.queries.append(text)
        return super().embed_query(text, timeout=timeout)


def test_a_recall_over_two_projects_embeds_its_query_once_with_the_same_hits(settings: Settings) -> None:
    from memwarden.search.recall import recall

    embedder = CountingEmbedder()
    svc = _service(settings, embedder, background=False)
    try:
        svc.memories.add("The staging database moved to db-stage-3", project="acme")
        svc.memories.add("Staging deploys need a green build", project="default")
        embedder.queries.clear()
        hits = recall(svc, "where is the staging database", ["acme", "default"], 5)
        assert {h["project"] for h in hits} == {"acme", "default"}
        assert embedder.queries == ["where is the staging database"]
        again = svc.searcher.search("where is the staging database", project="acme")
        assert again.degraded is False and again.hits[0].memory.project == "acme"
        svc.searcher.search("a different question")
        assert embedder.queries == ["where is the staging database", "a different question"]
    finally:
        svc.close()
