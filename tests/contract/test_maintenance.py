"""Store contract for whole-store operations: health probe, rebuild, bulk import/export, purge."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from contract_helpers import T0, index_of, make_memory, put, search_ids

from memwarden.store.base import Store


def test_a_healthy_store_has_no_problems_and_a_working_keyword_index(store: Any) -> None:
    put(store, "healthy")
    assert store.integrity_problems() == []
    assert store.probe_keyword_index() is None
    assert store.keyword_index_mismatch() is None
    assert store.table_counts()["memories"] == 1


def test_rebuilding_the_keyword_index_keeps_search_working(store: Any) -> None:
    a = put(store, "alpha note")
    gone = put(store, "beta note")
    store.soft_delete("t1", gone.id, T0)
    assert store.rebuild_keyword_index(index_of) == 1
    assert search_ids(store, "alpha") == [a.id] and search_ids(store, "beta") == []
    assert store.keyword_index_mismatch() is None


def test_iter_memories_yields_a_tenants_memories_oldest_first_in_batches(store: Any) -> None:
    made = [
        put(store, f"note {i}", at=T0 + timedelta(seconds=i), project="a" if i % 2 else "b") for i in range(7)
    ]
    store.soft_delete("t1", made[3].id, T0)
    put(store, "someone else's", tenant="t2")
    assert [m.id for m in store.iter_memories("t1", project=None, include_deleted=True, batch=2)] == [
        m.id for m in made
    ]
    live = [m.id for m in store.iter_memories("t1", project=None, include_deleted=False, batch=3)]
    assert live == [m.id for i, m in enumerate(made) if i != 3]
    assert [m.id for m in store.iter_memories("t1", project="a", include_deleted=True)] == [
        made[i].id for i in (1, 3, 5)
    ]


def test_import_keeps_ids_and_reports_same_id_and_duplicates(store: Any) -> None:
    existing = put(store, "already here")
    fresh = make_memory("imported fact")
    deleted = make_memory("deleted fact")._replace(deleted_at=T0)
    twin = make_memory("already here")
    same = make_memory("other text")._replace(id=existing.id)
    entries = [(m, index_of(m)) for m in (fresh, deleted, twin, same)]
    assert store.import_memories(entries) == ["inserted", "inserted", "duplicate", "same_id"]
    theirs = put(store, "another tenant's", tenant="t2")
    assert store.existing_ids([fresh.id, deleted.id, twin.id, theirs.id]) == {fresh.id, deleted.id, theirs.id}
    assert store.existing_ids([]) == set()
    assert store.get_many("t1", [fresh.id, deleted.id]) == [fresh, deleted]
    assert search_ids(store, "imported") == [fresh.id] and search_ids(store, "deleted") == []


def test_purge_expired_removes_only_memories_expired_before_the_cutoff(store: Store) -> None:
    old = put(store, "expired long ago", ttl=timedelta(hours=1))
    recent = put(store, "expired just now", ttl=timedelta(days=2))
    keep = put(store, "no expiry")
    purged = store.purge_expired(T0 + timedelta(days=1))  # type: ignore[attr-defined]
    assert purged == [old.id]
    assert [m.id for m in store.get_many("t1", [old.id, recent.id, keep.id])] == [recent.id, keep.id]


def test_vacuum_reports_sizes(store: Any) -> None:
    put(store, "something")
    sizes = store.vacuum()
    assert sizes["bytes_before"] > 0 and sizes["bytes_after"] > 0
