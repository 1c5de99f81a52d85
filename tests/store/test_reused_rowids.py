"""A memory that is given the rowid of a purged one is still embedded.

``memories.rowid`` has no AUTOINCREMENT: once the newest memories are purged for good, the next
insert reuses a rowid that the embedding queue's watermark has already passed. Without the
``0010_reused_rowids`` trigger that memory was never embedded in the running process.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memwarden.app import build_service
from memwarden.config import Settings
from memwarden.models import VectorSpace
from memwarden.store.sqlite import SQLiteStore


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Any]:
    settings = Settings(
        db=str(tmp_path / "m.db"),
        log_file=str(tmp_path / "log"),
        backup_dir=str(tmp_path / "b"),
        audit=False,
        embedder="none",
    )
    # No model in the service: the queue below is the only embedder, and a memory it has not
    # embedded yet leaves no vector (nor removal) behind when it is purged.
    built = build_service(settings, background=False)
    yield built
    built.close()


def _rowid(store: SQLiteStore, memory_id: str) -> int:
    return int(
        store.connection().execute("SELECT rowid FROM memories WHERE id = ?", (memory_id,)).fetchone()[0]
    )


@pytest.mark.parametrize("embedded_before_purge", [False, True])
def test_a_reused_rowid_is_queued_for_embedding(service: Any, embedded_before_purge: bool) -> None:
    store: SQLiteStore = service.store
    space = VectorSpace("queue-under-test", 8)
    kept = service.memories.add("a note that stays", project="p").memory
    doomed = service.memories.add("a note that expires soon", project="p", ttl_hours=1).memory
    queued, mark = store.embedding_queue(space, None, limit=10)
    assert {m.id for m in queued} == {kept.id, doomed.id}
    if embedded_before_purge:
        vector = bytes(4 * space.dimension)
        store.put_vectors(space, [(m.id, m.version, vector) for m in queued])
        _, mark = store.embedding_queue(space, mark, limit=10)
    doomed_rowid = _rowid(store, doomed.id)
    assert store.purge_expired(datetime.now(UTC) + timedelta(days=1)) == [doomed.id]

    fresh = service.memories.add("a brand new note", project="p").memory
    assert _rowid(store, fresh.id) == doomed_rowid  # SQLite gave the purged rowid again
    queued, _ = store.embedding_queue(space, mark, limit=10)
    assert [m.id for m in queued] == [fresh.id]


def test_an_insert_above_every_purged_rowid_is_not_logged(service: Any) -> None:
    store: SQLiteStore = service.store
    before = store.connection().execute("SELECT COUNT(*) FROM vector_removals").fetchone()[0]
    for i in range(3):
        service.memories.add(f"note {i}", project="p")
    assert store.connection().execute("SELECT COUNT(*) FROM vector_removals").fetchone()[0] == before
