"""Time safety and interrupted operations on every backend: purge refuses on a clock jump,
health reports clock jumps and operations that did not finish."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memwarden.errors import Conflict
from memwarden.ops.markers import mark_complete, mark_incomplete
from memwarden.service import MemoryService

T0 = datetime(2030, 6, 1, 12, 0, tzinfo=UTC)  # after any row the fixture wrote at the real time


def test_purge_refuses_when_the_clock_jumped_forward_and_force_overrides(service: MemoryService) -> None:
    service.clock = lambda: T0
    short = service.memories.add("a memory that expires in an hour", ttl_hours=1).memory
    service.memories.add("a memory that never expires")
    service.clock = lambda: T0 + timedelta(days=45)  # the clock was set forward
    with pytest.raises(Conflict) as refused:
        service.operations.vacuum()
    assert (
        "45.0 days after the newest audit row" in refused.value.message and "--force" in refused.value.message
    )
    assert short.id in {m.id for m in service.memories.list(include_expired=True)}
    assert service.auditor is not None
    refused = [r for r in service.auditor.log.records() if r.action == "purge"]
    assert [r.outcome for r in refused] == ["conflict"]  # the refusal is recorded
    assert service.operations.purge_expired(force=True) == [short.id]


def test_purge_refuses_when_the_clock_went_back(service: MemoryService) -> None:
    service.clock = lambda: T0
    service.memories.add("stamped at T0", ttl_hours=1)
    service.clock = lambda: T0 - timedelta(hours=3)
    with pytest.raises(Conflict, match="before the newest audit row"):
        service.operations.purge_expired()


def test_health_reports_a_clock_that_went_back(service: MemoryService) -> None:
    service.clock = lambda: T0
    service.memories.add("stamped at noon")
    service.clock = lambda: T0 + timedelta(minutes=1)
    assert service.operations.health()["checks"]["clock"]["state"] == "ok"
    service.clock = lambda: T0 - timedelta(hours=2)  # set back two hours
    service.searcher.search("noon")
    health = service.operations.health()
    clock = health["checks"]["clock"]
    assert health["status"] == "degraded" and clock["state"] == "jumped"
    assert {j["kind"] for j in clock["jumps"]} == {"clock_back", "clock_ahead"}


def test_health_fails_on_an_interrupted_operation_and_says_what_to_do(service: MemoryService) -> None:
    # Left by a process on another host (one of this process would be reported running).
    mark_incomplete(service.store, "migrate", source="old.db", host="another-host")
    health = service.operations.health()
    assert health["status"] == "failing"
    interrupted = health["checks"]["operations"]["interrupted"]
    assert [i["operation"] for i in interrupted] == ["migrate"] and "dropdb" in interrupted[0]["advice"]
    assert interrupted[0]["source"] == "old.db"
    mark_complete(service.store, "migrate")
    assert service.operations.health()["checks"]["operations"] == {
        "ok": True,
        "state": "ok",
        "interrupted": [],
        "running": [],
    }


def test_an_operation_that_failed_in_a_living_process_is_interrupted_not_running(
    service: MemoryService,
) -> None:
    from memwarden.ops.markers import marked

    with pytest.raises(RuntimeError):
        with marked(service.store, "reindex-embeddings"):  # this process lives on, as a server does
            raise RuntimeError("the embedder went away")
    operations = service.operations.health()["checks"]["operations"]
    assert operations["state"] == "interrupted" and operations["running"] == []
    assert operations["interrupted"][0]["failed"] == "RuntimeError: the embedder went away"
    with marked(service.store, "reindex-embeddings"):  # done again: the marker is gone
        pass
    assert service.operations.health()["checks"]["operations"]["ok"] is True
