"""The background embedder's queue on PostgreSQL reads what is queued, not the table.

After its first pass over the table (memories written before the queue existed, a new model's
space), the queue is ``embedding_pending`` (migration 0010), filled by triggers in the write's
own transaction: a memory written around the queue (here: inserted with the trigger disabled) is
found by the first pass only, which shows that later passes do not walk ``memories``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.models import VectorSpace

SPACE = VectorSpace("queue-under-test", 8)
VECTOR = bytes(4 * SPACE.dimension)


@pytest.fixture
def service(pg_url: str, tmp_path: Path) -> Iterator[Any]:
    # No model in the service: the queue below is the only embedder.
    built = build_service(
        load_settings(db=pg_url, log_file=str(tmp_path / "log"), embedder="none", audit=False),
        background=False,
    )
    yield built
    built.close()


def _pending(service: Any) -> list[str]:
    with service.store.connection() as conn:
        return [r[0] for r in conn.execute("SELECT memory_id FROM embedding_pending ORDER BY seq")]


def _embed(service: Any, memories: list[Any]) -> None:
    service.store.put_vectors(SPACE, [(m.id, m.version, VECTOR) for m in memories])


def test_after_the_first_pass_the_queue_reads_only_queued_memories(service: Any) -> None:
    store = service.store
    a = service.memories.add("the first note", project="p").memory
    b = service.memories.add("the second note", project="p").memory
    assert _pending(service) == [a.id, b.id]  # queued by the insert, in its transaction

    first, mark = store.embedding_queue(SPACE, None, limit=10)  # the pass over the table
    assert sorted(m.id for m in first) == sorted([a.id, b.id]) and mark == ("queue",)
    _embed(service, first)
    assert store.embedding_queue(SPACE, mark, limit=10) == ([], mark)
    assert _pending(service) == []  # embedded: removed from the head as it was read

    # Written around the queue (as before migration 0010): only a first pass finds it.
    with store.connection() as conn:
        conn.execute("ALTER TABLE memories DISABLE TRIGGER memories_queue_embedding_insert")
        hidden = service.memories.add("a note written around the queue", project="p").memory
        conn.execute("ALTER TABLE memories ENABLE TRIGGER memories_queue_embedding_insert")
    assert store.embedding_queue(SPACE, mark, limit=10) == ([], mark)
    assert [m.id for m in store.embedding_queue(SPACE, None, limit=10)[0]] == [hidden.id]

    # An edit of what is embedded is queued; a memory deleted before its turn is cleaned away.
    edited = service.memories.update(a.id, content="the first note, corrected")
    gone = service.memories.add("a note deleted before it was embedded", project="p").memory
    service.memories.delete(gone.id)
    queued, _ = store.embedding_queue(SPACE, mark, limit=10)
    assert [m.id for m in queued] == [edited.id]
    assert queued[0].content == "the first note, corrected"
    assert gone.id not in _pending(service)  # nothing to embed: removed from the head
    _embed(service, queued)
    assert store.embedding_queue(SPACE, mark, limit=10) == ([], mark)
    assert _pending(service) == []


def test_a_long_queue_is_read_in_order_in_batches(service: Any) -> None:
    store = service.store
    ids = [service.memories.add(f"note number {i}", project="p").memory.id for i in range(12)]
    # The first pass steps through the table (nothing embedded between the steps here).
    walked: list[str] = []
    mark = None
    while mark != ("queue",):
        batch, mark = store.embedding_queue(SPACE, mark, limit=5)
        walked += [m.id for m in batch]
    assert walked == sorted(ids)  # by primary key: ULIDs in the order they were made
    seen: list[str] = []
    while batch := store.embedding_queue(SPACE, mark, limit=5)[0]:
        assert len(batch) <= 5
        seen += [m.id for m in batch]
        _embed(service, batch)
    assert seen == ids and _pending(service) == []
