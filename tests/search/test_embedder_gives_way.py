"""The background embedder gives way to requests: it waits for a pause in the writes (within a
bound), and runs at a lower OS priority than the threads that answer requests."""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

import pytest

from memwarden.app import build_service
from memwarden.config import Settings
from memwarden.embed.fake import FakeEmbedder
from memwarden.search import vector_path


class CountingEmbedder(FakeEmbedder):
    """The official fake, recording when each document batch was embedded, and from which thread."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[tuple[float, int]] = []
        self.threads: set[int] = set()

    def embed_documents(self, texts: Sequence[str]) -> Any:
        self.batches.append((time.monotonic(), len(texts)))
        self.threads.add(threading.get_native_id())
        return super().embed_documents(texts)


def _wait_embedded(svc: Any, bound_s: float = 20) -> None:
    deadline = time.monotonic() + bound_s
    while svc.searcher.vector_status(probe=False)["missing"]:
        assert time.monotonic() < deadline, "the background embedder never caught up"
        time.sleep(0.01)


def _ready_service(settings: Settings, embedder: FakeEmbedder) -> Any:
    svc = build_service(settings, embedder=embedder, background=True)
    assert svc.vectors is not None and svc.vectors.wait_ready(10)
    # The first drain after loading embeds whatever is queued at once, without waiting for a pause:
    # a burst that starts before it has run would have its first add embedded mid-burst (an empty
    # store has nothing missing before that drain, so waiting for "nothing missing" is not enough).
    assert svc.vectors.wait_caught_up(10)
    _wait_embedded(svc)
    return svc


def test_a_burst_of_adds_is_embedded_after_it_in_one_drain(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A pause long enough that no gap between two adds reaches it, even on a loaded machine (a
    # shorter one was reached once in CI, an add stalled among three test workers on two cores);
    # the burst is then embedded that long after its last add.
    monkeypatch.setattr(vector_path, "QUIET_S", 5.0)
    monkeypatch.setattr(vector_path, "MAX_DEFER_S", 60.0)
    embedder = CountingEmbedder()
    svc = _ready_service(settings, embedder)
    try:
        for n in range(20):
            svc.memories.add(f"burst note number {n} about deploy windows")
        last_add = time.monotonic()
        _wait_embedded(svc)
        # Nothing was embedded while the adds kept coming (each came within QUIET_S of the one
        # before, and the burst was shorter than MAX_DEFER_S); then all of it at once.
        assert all(at >= last_add for at, _ in embedder.batches), (last_add, embedder.batches)
        assert sum(size for _, size in embedder.batches) == 20
        assert len(embedder.batches) == -(-20 // vector_path.DRAIN_STEP)
        result = svc.searcher.search("burst note number 7 deploy windows")
        assert result.degraded is False
        assert result.hits and result.hits[0].memory.content == "burst note number 7 about deploy windows"
    finally:
        svc.close()


def test_under_a_steady_stream_of_adds_each_memory_gets_its_vector_within_the_bound(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vector_path, "QUIET_S", 0.2)
    monkeypatch.setattr(vector_path, "MAX_DEFER_S", 0.3)
    embedder = CountingEmbedder()
    svc = _ready_service(settings, embedder)
    try:
        started = time.monotonic()
        while time.monotonic() - started < 3.0:  # never a pause of QUIET_S
            svc.memories.add(f"stream note written at {time.monotonic() - started:.3f} seconds")
            time.sleep(0.02)
        stream_ended = time.monotonic()
        # Waiting for a pause alone would have embedded nothing until the stream ended.
        during = [at for at, _ in embedder.batches if at < stream_ended]
        assert during, "the embedder waited for a pause that never came"
        # The bound, with room for a loaded machine (the embedder thread runs at a lower priority).
        assert during[0] - started < vector_path.MAX_DEFER_S + 1.5
        _wait_embedded(svc)
    finally:
        svc.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="per-thread niceness is Linux's")
def test_the_background_embedder_runs_at_a_lower_os_priority(settings: Settings) -> None:
    embedder = CountingEmbedder()
    svc = _ready_service(settings, embedder)
    try:
        svc.memories.add("a note to embed in the background")
        _wait_embedded(svc)
        (tid,) = embedder.threads
        here = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        assert tid != threading.get_native_id()
        try:
            niceness = os.getpriority(os.PRIO_PROCESS, tid)
        except OSError:  # the thread ended with the service: nothing left to check
            pytest.skip("the embedder thread is gone")
        assert niceness == min(19, here + vector_path.BACKGROUND_NICE)
        with open(f"/proc/self/task/{tid}/comm", encoding="ascii") as comm:
            assert comm.read().strip() == "memwarden-embed"
    finally:
        svc.close()
