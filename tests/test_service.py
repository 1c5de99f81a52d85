from __future__ import annotations

import sqlite3
from datetime import timedelta

import pytest

from memwarden.errors import Conflict, InvalidInput, NotFound
from memwarden.models import Caller
from memwarden.service import MemoryService


def test_add_then_search_finds_the_memory(service: MemoryService) -> None:
    added = service.memories.add("The client prefers email over phone calls", project="acme", tags=["crm"])
    result = service.searcher.search("email", project="acme")
    assert [h.memory.id for h in result.hits] == [added.memory.id]
    assert result.degraded is False and result.degrade_reason is None
    assert result.hits[0].why


def test_duplicate_add_returns_existing_id(service: MemoryService) -> None:
    first = service.memories.add("Deploys happen on Tuesdays", project="ops")
    again = service.memories.add("  Deploys happen on Tuesdays\n", project="ops")
    assert again.duplicate is True
    assert again.memory.id == first.memory.id
    other_project = service.memories.add("Deploys happen on Tuesdays", project="web")
    assert other_project.duplicate is False


def test_update_with_stale_version_is_a_conflict_and_changes_nothing(service: MemoryService) -> None:
    memory = service.memories.add("Staging runs on port 8080").memory
    updated = service.memories.update(memory.id, content="Staging runs on port 9090", if_version=1)
    assert updated.version == 2
    with pytest.raises(Conflict):
        service.memories.update(memory.id, content="Staging runs on port 1", if_version=1)
    assert service.memories.get([memory.id])[0][0].content == "Staging runs on port 9090"
    assert [h.memory.id for h in service.searcher.search("9090").hits] == [memory.id]
    assert service.searcher.search("8080").hits == []


def test_update_into_an_existing_content_is_a_conflict(service: MemoryService) -> None:
    service.memories.add("alpha fact")
    beta = service.memories.add("beta fact").memory
    with pytest.raises(Conflict, match="already says exactly this"):
        service.memories.update(beta.id, content="alpha fact")
    assert service.memories.get([beta.id])[0][0].content == "beta fact"


def test_delete_is_soft_idempotent_and_unknown_id_is_not_found(service: MemoryService) -> None:
    memory = service.memories.add("temporary note").memory
    assert service.memories.delete(memory.id).already_deleted is False
    assert service.memories.delete(memory.id).already_deleted is True
    assert service.searcher.search("temporary").hits == []
    with pytest.raises(NotFound):
        service.memories.delete("01JD3Z5X9Q2W8E7R6T5Y4V3K2M")
    found, missing = service.memories.get([memory.id])
    assert found == [] and missing == [memory.id]


def test_expired_memories_are_hidden_unless_asked(service: MemoryService) -> None:
    memory = service.memories.add("short lived token rotation note", ttl_hours=1).memory
    service.clock = lambda: memory.created_at + timedelta(hours=2)
    assert service.searcher.search("rotation").hits == []
    assert service.memories.list() == []
    assert [h.memory.id for h in service.searcher.search("rotation", include_expired=True).hits] == [
        memory.id
    ]
    assert service.memories.stats()["expired"] == 1


def test_list_recent_and_pinned(service: MemoryService) -> None:
    a = service.memories.add("first", pinned=True).memory
    b = service.memories.add("second").memory
    assert [m.id for m in service.memories.list()] == [b.id, a.id]
    assert [m.id for m in service.memories.list(pinned=True)] == [a.id]


def test_usage_is_counted_only_for_returned_hits(service: MemoryService) -> None:
    ids = [service.memories.add(f"backup note number {i}").memory.id for i in range(5)]
    result = service.searcher.search("backup", limit=2)
    returned = {h.memory.id for h in result.hits}
    counts = {m.id: m.hit_count for m in service.memories.get(ids)[0]}
    assert all(counts[i] == (1 if i in returned else 0) for i in ids)


def test_tenants_never_see_each_other(service: MemoryService) -> None:
    other = Caller(actor="bob", tenant="other")
    mine = service.memories.add("shared secret plan").memory
    assert service.searcher.search("secret", caller=other).hits == []
    assert service.memories.get([mine.id], caller=other) == ([], [mine.id])
    with pytest.raises(NotFound):
        service.memories.delete(mine.id, caller=other)
    with pytest.raises(NotFound):
        service.memories.update(mine.id, content="hijacked", caller=other)
    assert service.memories.stats(caller=other)["memories"] == 0
    assert "database_bytes" not in service.memories.stats(
        caller=other
    )  # the shared file's size is the operator's
    assert service.memories.stats()["database_bytes"] > 0


def test_stats_counts_memories_per_project(service: MemoryService) -> None:
    service.memories.add("one", project="a")
    service.memories.add("two", project="b", pinned=True)
    stats = service.memories.stats()
    assert stats["memories"] == 2 and stats["pinned"] == 1
    assert stats["projects"] == {"a": 1, "b": 1}


def test_keyword_index_is_written_in_the_same_transaction(service: MemoryService, db_path) -> None:
    service.memories.add("indexed content")
    conn = sqlite3.connect(db_path)
    assert conn.execute("SELECT COUNT(*) FROM memories_fts").fetchone()[0] == 1
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] >= 1


def test_empty_query_lists_recent_memories(service: MemoryService) -> None:
    service.memories.add("older")
    newer = service.memories.add("newer").memory
    assert service.searcher.search("").hits[0].memory.id == newer.id


def test_update_requires_a_change(service: MemoryService) -> None:
    memory = service.memories.add("unchanged").memory
    with pytest.raises(InvalidInput, match="nothing to update"):
        service.memories.update(memory.id)


def test_usage_bookkeeping_skips_the_fsync_but_writes_stay_durable(service: MemoryService) -> None:
    store = service.store
    memory = service.memories.add("durability of counters").memory
    service.searcher.search("counters")
    conn = store.connection()
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL again after the bookkeeping write
    assert service.memories.get([memory.id])[0][0].hit_count == 1


def test_the_service_takes_request_models_and_the_keyword_form_alike(service: MemoryService) -> None:
    from memwarden.requests import (
        AddRequest,
        DeleteRequest,
        GetRequest,
        ListRequest,
        SearchRequest,
        StatsRequest,
        UpdateRequest,
    )

    typed = service.memories.add(
        AddRequest(content="Backups run at 02:00 UTC", project="ops", tags=["infra"])
    )
    keyword = service.memories.add("Backups run at 02:00 UTC", project="ops", tags=["infra"])
    assert keyword.duplicate and keyword.memory.id == typed.memory.id
    mid = typed.memory.id
    assert [h.memory.id for h in service.search(SearchRequest(query="backups", project="ops")).hits] == [mid]
    assert service.memories.update(UpdateRequest(id=mid, pinned=True)).pinned
    assert [m.id for m in service.memories.list(ListRequest(pinned=True))] == [mid]
    assert service.memories.get(GetRequest(ids=[mid]))[0][0].pinned
    assert service.memories.stats(StatsRequest(project="ops"))["memories"] == 1
    with pytest.raises(InvalidInput, match="not both"):
        service.memories.add(AddRequest(content="x"), project="ops")
    with pytest.raises(InvalidInput, match="ListRequest or keyword arguments"):
        service.memories.list({"limit": 3})  # type: ignore[arg-type]
    assert service.memories.delete(DeleteRequest(id=mid)).deleted
    assert service.memories.get(mid) == ([], [mid])


def test_a_refused_keyword_call_names_the_field_and_writes_nothing(service: MemoryService) -> None:
    with pytest.raises(InvalidInput) as caught:
        service.memories.add("A fine memory", tags=["ok", 7])
    assert caught.value.fields["field"] == "tags"
    assert service.memories.list() == []
