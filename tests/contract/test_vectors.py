"""VectorStore contract: vectors kept per space, nearest first, never compared across spaces."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np
import pytest
from contract_helpers import T0, index_of, put

from memwarden.errors import StorageError
from memwarden.intake import content_hash
from memwarden.models import VectorSpace
from memwarden.store.base import VectorStore

SPACE = VectorSpace("test-model", 8)
OTHER = VectorSpace("other-model", 8)


def unit(*values: float) -> np.ndarray:
    v = np.zeros(SPACE.dimension, dtype=np.float32)
    v[: len(values)] = values
    return v / np.linalg.norm(v)


def nearest(
    store: Any, query: np.ndarray, *, space: VectorSpace = SPACE, tenant: str = "t1", **kw: Any
) -> list[tuple[str, float]]:
    args: dict[str, Any] = dict(project=None, tags=(), include_expired=False, now=T0, limit=10)
    args.update(kw)
    return [(c.memory.id, c.score) for c in store.vector_search(tenant, space, query, **args)]


def test_the_store_offers_vectors(store: Any) -> None:
    assert isinstance(store, VectorStore)


def test_vector_search_returns_nearest_first_with_the_cosine(store: Any) -> None:
    a, b, c = put(store, "east"), put(store, "north east"), put(store, "north")
    stored = store.put_vectors(
        SPACE,
        [(a.id, 1, unit(1, 0).tobytes()), (b.id, 1, unit(1, 1).tobytes()), (c.id, 1, unit(0, 1).tobytes())],
    )
    assert stored == 3
    found = nearest(store, unit(1, 0.1))
    assert [mid for mid, _ in found] == [a.id, b.id, c.id]
    assert found[0][1] == pytest.approx(float(unit(1, 0) @ unit(1, 0.1)), abs=1e-5)
    assert nearest(store, unit(1, 0), limit=1) == [(a.id, pytest.approx(1.0, abs=1e-5))]


def test_vectors_come_back_with_their_analyzed_text(store: Any) -> None:
    m = put(store, "Deploys happen on Tuesdays", title="Release", tags=("ops",))
    store.put_vectors(SPACE, [(m.id, 1, unit(1).tobytes())])
    found = store.vector_search(
        "t1", SPACE, unit(1), project=None, tags=(), include_expired=False, now=T0, limit=1
    )
    assert found[0].indexed == index_of(m)


def test_vector_search_respects_tenant_project_tags_and_expiry(store: Any) -> None:
    mine = put(store, "mine", tags=("x",))
    other_project = put(store, "other project", project="q")
    theirs = put(store, "theirs", tenant="t2")
    expiring = put(store, "expiring", ttl=timedelta(minutes=1))
    store.put_vectors(SPACE, [(m.id, 1, unit(1).tobytes()) for m in (mine, other_project, theirs, expiring)])
    later = T0 + timedelta(hours=1)
    assert {mid for mid, _ in nearest(store, unit(1), now=later)} == {mine.id, other_project.id}
    assert [mid for mid, _ in nearest(store, unit(1), now=later, project="p")] == [mine.id]
    assert [mid for mid, _ in nearest(store, unit(1), now=later, tags=("x",))] == [mine.id]
    assert expiring.id in {mid for mid, _ in nearest(store, unit(1), now=later, include_expired=True)}
    assert [mid for mid, _ in nearest(store, unit(1), tenant="t2")] == [theirs.id]


def test_spaces_never_mix_and_a_wrong_size_is_refused(store: Any) -> None:
    m = put(store, "only in one space")
    store.put_vectors(SPACE, [(m.id, 1, unit(1).tobytes())])
    assert nearest(store, unit(1), space=OTHER) == []
    with pytest.raises(StorageError):
        store.put_vectors(SPACE, [(m.id, 1, np.ones(3, dtype=np.float32).tobytes())])


def test_a_vector_of_an_old_version_or_a_deleted_memory_is_not_stored(store: Any) -> None:
    m = put(store, "first text")
    changed = m._replace(content="second text", content_hash=content_hash("second text"))
    store.update(changed, index_of(changed), expected_version=1)
    assert store.put_vectors(SPACE, [(m.id, 1, unit(1).tobytes())]) == 0
    gone = put(store, "deleted soon")
    store.soft_delete("t1", gone.id, T0)
    assert store.put_vectors(SPACE, [(gone.id, 1, unit(1).tobytes())]) == 0
    assert nearest(store, unit(1)) == []


def test_changing_or_deleting_a_memory_drops_its_vector(store: Any) -> None:
    a, b = put(store, "will change"), put(store, "will go")
    store.put_vectors(SPACE, [(a.id, 1, unit(1).tobytes()), (b.id, 1, unit(1).tobytes())])
    changed = a._replace(content="changed", content_hash=content_hash("changed"))
    store.update(changed, index_of(changed), expected_version=1)
    store.soft_delete("t1", b.id, T0)
    assert nearest(store, unit(1)) == []
    assert [m.id for m in store.memories_missing_vectors(SPACE, limit=10)] == [a.id]


def test_a_backfill_walks_the_missing_vectors_page_after_page_once(store: Any) -> None:
    made = [put(store, f"memory number {i}") for i in range(7)]
    store.put_vectors(SPACE, [(made[2].id, 1, unit(1).tobytes()), (made[5].id, 1, unit(1).tobytes())])
    pages, cursor = [], None
    while True:
        page, cursor = store.missing_vectors_page(SPACE, cursor, limit=2)
        if not page:
            break
        pages.append([m.id for m in page])
    assert all(len(p) <= 2 for p in pages)
    walked = [i for p in pages for i in p]
    assert sorted(walked) == sorted(m.id for i, m in enumerate(made) if i not in (2, 5))
    assert len(walked) == len(set(walked)) == 5  # each once, none with a vector
    # The pass is over: the cursor stays where it ended.
    assert store.missing_vectors_page(SPACE, cursor, limit=2) == ([], cursor)


def test_counts_missing_and_failures_follow_the_vectors(store: Any) -> None:
    a, b, c = put(store, "one"), put(store, "two"), put(store, "three", tenant="t2")
    store.put_vectors(SPACE, [(a.id, 1, unit(1).tobytes())])
    store.record_embedding_failure([b.id], "model said no")
    counts = store.vector_counts("t1", SPACE)
    assert (counts.live, counts.with_vector, counts.failed, counts.missing) == (2, 1, 1, 1)
    assert store.vector_counts(None, SPACE).live == 3
    assert [m.id for m in store.memories_missing_vectors(SPACE, limit=10)] == [b.id, c.id]
    assert [m.id for m in store.memories_missing_vectors(SPACE, limit=10, tenant="t2")] == [c.id]
    store.put_vectors(SPACE, [(b.id, 1, unit(0, 1).tobytes())])
    assert store.vector_counts("t1", SPACE).failed == 0
    store.warm_vectors(SPACE)


def test_vectors_of_another_space_are_known(store: Any) -> None:
    """After a change of model the server says it embeds everything again: it asks this."""
    a = put(store, "one")
    assert store.holds_other_vectors(SPACE) is False  # nothing stored yet
    store.put_vectors(SPACE, [(a.id, 1, unit(1).tobytes())])
    assert store.holds_other_vectors(SPACE) is False
    assert store.holds_other_vectors(OTHER) is True
    assert store.holds_other_vectors(VectorSpace(SPACE.model_id, 4)) is True  # same name, other size
