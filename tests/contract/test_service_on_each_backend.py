"""The whole service (build_service from settings) behaves the same on every backend."""

from __future__ import annotations

import pytest

from memwarden.errors import Conflict, NotFound
from memwarden.models import Caller
from memwarden.service import MemoryService


def test_add_search_update_delete_round_trip(service: MemoryService) -> None:
    added = service.memories.add("The client prefers email over phone calls", project="acme", tags=["crm"])
    assert service.memories.add("The client prefers email over phone calls", project="acme").duplicate is True
    assert [h.memory.id for h in service.searcher.search("email", project="acme").hits] == [added.memory.id]
    updated = service.memories.update(added.memory.id, content="The client prefers Signal", if_version=1)
    assert updated.version == 2
    with pytest.raises(Conflict):
        service.memories.update(added.memory.id, content="stale", if_version=1)
    assert service.searcher.search("email").hits == []
    assert [h.memory.id for h in service.searcher.search("signal").hits] == [added.memory.id]
    assert service.memories.delete(added.memory.id).already_deleted is False
    assert service.searcher.search("signal").hits == [] and service.memories.stats()["deleted"] == 1


def test_tenants_never_see_each_other_on_any_backend(service: MemoryService) -> None:
    other = Caller(actor="bob", tenant="other")
    mine = service.memories.add("shared secret plan").memory
    assert service.searcher.search("secret", caller=other).hits == []
    assert service.memories.get([mine.id], caller=other) == ([], [mine.id])
    with pytest.raises(NotFound):
        service.memories.delete(mine.id, caller=other)
    assert service.memories.stats(caller=other)["memories"] == 0


def test_searches_count_usage_and_an_empty_query_lists_recent(service: MemoryService) -> None:
    older = service.memories.add("older note about lunch").memory
    newer = service.memories.add("newer note about dinner").memory
    assert [h.memory.id for h in service.searcher.search("").hits] == [newer.id, older.id]
    before = service.memories.get([older.id, newer.id])[0]
    service.searcher.search("lunch")
    after = service.memories.get([older.id, newer.id])[0]
    assert [m.hit_count - b.hit_count for m, b in zip(after, before, strict=True)] == [1, 0]


def test_health_review_export_and_import_work_on_every_backend(service: MemoryService) -> None:
    import json

    for i in range(3):
        service.memories.add(f"exported fact number {i}", project="exp", tags=["x"])
    health = service.operations.health()
    assert health["status"] == "ok" and health["backend"] == service.store.backend, health
    assert health["checks"]["keyword_index"]["ok"] and health["checks"]["integrity"]["ok"]
    assert service.operations.review()["counts"]
    document = service.operations.export(project="exp")
    assert len(document["memories"]) == 3
    assert service.operations.import_text(json.dumps(document))["skipped_same_id"] == 3
    from ulid import ULID

    for memory in document["memories"]:
        memory["id"] = str(ULID())
    other = Caller(actor="bob", tenant="importer")
    report = service.operations.import_text(json.dumps(document), caller=other)
    assert report["inserted"] == 3, report
    assert len(service.searcher.search("exported", caller=other).hits) == 3
    assert service.operations.import_text(json.dumps(document), caller=other)["skipped_same_id"] == 3
