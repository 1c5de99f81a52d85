"""Memories stored while the model loads: the first search by meaning finds them, or says it could not."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

from memwarden.app import build_service
from memwarden.config import Settings
from memwarden.embed.fake import FakeEmbedder


class StalledDrainEmbedder(FakeEmbedder):
    """The official fake, whose document embedding (the drain after warm-up) waits for a gate."""

    def __init__(self) -> None:
        super().__init__()
        self.documents_gate = threading.Event()

    def embed_documents(self, texts: Sequence[str]) -> Any:
        self.documents_gate.wait(30)
        return super().embed_documents(texts)

    def embed_query(self, text: str, *, timeout: float | None = None) -> Any:
        return FakeEmbedder.embed_documents(self, [text])[0]  # a query never waits for the drain


def _wait_embedded(svc: Any) -> None:
    deadline = time.monotonic() + 20
    while svc.searcher.vector_status()["missing"]:
        assert time.monotonic() < deadline, "the drain after warm-up never finished"
        time.sleep(0.02)


def test_a_memory_added_while_the_model_loads_is_embedded_before_a_search_by_meaning(
    settings: Settings,
) -> None:
    embedder = StalledDrainEmbedder()
    embedder.gate = threading.Event()  # the model "loads" until the gate opens
    tuned = settings.model_copy(update={"vector_warmup_wait_ms": 300, "embed_backfill_interval_s": 60.0})
    svc = build_service(tuned, embedder=embedder, background=True)
    try:
        svc.memories.add("Deploys happen on Tuesdays after the standup")
        embedder.gate.set()
        assert svc.vectors is not None and svc.vectors.wait_ready(10)
        embedder.gate = None
        # The model is ready but the memory stored during warm-up has no vector yet (the drain
        # is stalled): the search waits its bounded time, then answers by keywords and says so.
        started = time.monotonic()
        result = svc.searcher.search("deploys tuesdays")
        assert 0.25 <= time.monotonic() - started < 5.0
        assert result.degraded is True and result.degrade_reason == "warming_up"
        assert [h.memory.content for h in result.hits] == ["Deploys happen on Tuesdays after the standup"]
        embedder.documents_gate.set()
        _wait_embedded(svc)
        result = svc.searcher.search("deploys tuesdays")
        assert result.degraded is False
        assert [h.memory.content for h in result.hits] == ["Deploys happen on Tuesdays after the standup"]
    finally:
        embedder.documents_gate.set()
        svc.close()


def test_with_no_write_during_warm_up_a_search_does_not_wait_for_the_drain(settings: Settings) -> None:
    embedder = StalledDrainEmbedder()
    embedder.documents_gate.set()
    svc = build_service(settings, embedder=embedder, background=False)  # a one-shot: embeds at once
    svc.memories.add("Deploys happen on Tuesdays after the standup")
    svc.close()
    embedder = StalledDrainEmbedder()  # the drain would stall; nothing of this process is queued
    tuned = settings.model_copy(update={"vector_warmup_wait_ms": 3000})
    svc = build_service(tuned, embedder=embedder, background=True)
    try:
        assert svc.vectors is not None and svc.vectors.wait_ready(10)
        started = time.monotonic()
        result = svc.searcher.search("deploys tuesdays")
        assert time.monotonic() - started < 2.0
        assert result.degraded is False
    finally:
        embedder.documents_gate.set()
        svc.close()
