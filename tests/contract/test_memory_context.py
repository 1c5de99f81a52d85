"""Store contract for context, thread and occurred_at: stored and read back on every backend,
context searchable at a lower weight than content, thread neighbours in thread order."""

from __future__ import annotations

from datetime import timedelta

from contract_helpers import ANALYZER, T0, make_memory, search_ids

from memwarden.models import Memory
from memwarden.store.base import Store
from memwarden.text.memory_index import memory_index


def add(store: Store, content: str, **fields: object) -> Memory:
    memory = make_memory(content)._replace(**fields)  # type: ignore[arg-type]
    stored, duplicate = store.add(memory, memory_index(ANALYZER, memory))
    assert not duplicate
    return stored


def test_context_thread_and_occurred_at_read_back(store: Store) -> None:
    memory = add(
        store,
        "A blue bowl!",
        context="What did you make in pottery class?",
        thread="chat-1",
        occurred_at=T0 - timedelta(days=400),
    )
    assert store.get_many("t1", [memory.id]) == [memory]
    assert memory.occurred == T0 - timedelta(days=400)
    assert "context" not in memory.to_dict() and memory.to_dict(include_context=True)["context"].startswith(
        "What"
    )


def test_a_word_only_in_the_context_finds_the_memory_below_one_in_the_content(store: Store) -> None:
    reply = add(store, "A blue bowl!", context="What did you make in pottery class?")
    direct = add(store, "I love pottery, the class is on Mondays")
    assert search_ids(store, "pottery") == [direct.id, reply.id]


def test_updating_context_and_thread_reindexes(store: Store) -> None:
    memory = add(store, "A blue bowl!", context="pottery class")
    changed = memory._replace(context="ceramics workshop", thread="chat-2")
    store.update(changed, memory_index(ANALYZER, changed), expected_version=memory.version)
    assert search_ids(store, "pottery") == [] and search_ids(store, "ceramics") == [memory.id]
    assert store.get_many("t1", [memory.id])[0].thread == "chat-2"


def test_dates_of_relative_time_words_are_searchable(store: Store) -> None:
    said = add(store, "Yesterday I ran a charity race", occurred_at=T0.replace(year=2023, month=5, day=9))
    add(store, "I ran a charity race", occurred_at=T0.replace(year=2023, month=7, day=9))
    assert search_ids(store, "8 May 2023")[0] == said.id


def test_thread_neighbours_follow_occurred_at_then_storing_order(store: Store) -> None:
    first = add(store, "one", thread="s", occurred_at=T0)
    third = add(store, "three", thread="s", occurred_at=T0 + timedelta(minutes=2))
    second = add(store, "two", thread="s", occurred_at=T0 + timedelta(minutes=1))
    fourth = add(store, "four", thread="s", occurred_at=T0 + timedelta(minutes=2))  # same time: stored later
    other = add(store, "elsewhere", thread="t", occurred_at=T0)
    alone = add(store, "no thread")
    near = store.thread_neighbours("t1", [first.id, second.id, third.id, fourth.id, other.id, alone.id])
    assert near[first.id] == (second.id,)
    assert near[second.id] == (first.id, third.id)
    assert near[third.id] == (second.id, fourth.id)
    assert near[fourth.id] == (third.id,)
    assert near[other.id] == () and alone.id not in near
    assert store.thread_neighbours("t2", [first.id]) == {}
    store.soft_delete("t1", second.id, T0)
    assert store.thread_neighbours("t1", [first.id])[first.id] == (third.id,)
