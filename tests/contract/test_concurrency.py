"""Store contract under concurrency: several stores on one database (processes or replicas)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from threading import Barrier

from contract_helpers import index_of, make_memory, put

from memwarden.errors import Conflict
from memwarden.intake import content_hash
from memwarden.store.base import Store

WRITERS = 4


def test_concurrent_adds_of_the_same_content_store_one_memory(open_url: Callable[[], Store]) -> None:
    stores = [open_url() for _ in range(WRITERS)]
    start = Barrier(WRITERS)

    def add(i: int) -> tuple[str, bool]:
        memory = make_memory("the same fact from everyone")
        start.wait(timeout=30)
        stored, duplicate = stores[i].add(memory, index_of(memory))
        return stored.id, duplicate

    with ThreadPoolExecutor(WRITERS) as pool:
        results = list(pool.map(add, range(WRITERS)))
    assert len({mid for mid, _ in results}) == 1
    assert sorted(dup for _, dup in results) == [False] + [True] * (WRITERS - 1)
    assert stores[0].stats("t1", None, make_memory("x").created_at)["memories"] == 1


def test_concurrent_updates_from_the_same_version_let_exactly_one_win(open_url: Callable[[], Store]) -> None:
    stores = [open_url() for _ in range(WRITERS)]
    memory = put(stores[0], "version one")
    start = Barrier(WRITERS)

    def update(i: int) -> str:
        text = f"version two by writer {i}"
        changed = memory._replace(content=text, content_hash=content_hash(text))
        start.wait(timeout=30)
        try:
            stores[i].update(changed, index_of(changed), expected_version=1)
        except Conflict:
            return "conflict"
        return text

    with ThreadPoolExecutor(WRITERS) as pool:
        outcomes = list(pool.map(update, range(WRITERS)))
    winners = [o for o in outcomes if o != "conflict"]
    assert len(winners) == 1
    final = stores[1].get_many("t1", [memory.id])[0]
    assert final.version == 2 and final.content == winners[0]


def test_many_writers_adding_distinct_memories_lose_nothing(open_url: Callable[[], Store]) -> None:
    stores = [open_url() for _ in range(WRITERS)]

    def add_batch(i: int) -> list[str]:
        ids = []
        for n in range(25):
            memory = make_memory(f"writer {i} note {n}")
            ids.append(stores[i].add(memory, index_of(memory))[0].id)
        return ids

    with ThreadPoolExecutor(WRITERS) as pool:
        ids = [mid for batch in pool.map(add_batch, range(WRITERS)) for mid in batch]
    assert len(set(ids)) == WRITERS * 25
    assert len(stores[0].get_many("t1", ids)) == WRITERS * 25
