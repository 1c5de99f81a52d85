"""Vectors in SQLite: spaces never mix, edits and deletes drop vectors, other processes are seen."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from memwarden.app import build_service
from memwarden.config import Settings
from memwarden.embed.fake import FakeEmbedder
from memwarden.models import VectorSpace
from memwarden.service import MemoryService
from memwarden.store.base import VectorStore
from memwarden.store.sqlite import SQLiteStore

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _search(store: SQLiteStore, space: VectorSpace, vector: np.ndarray, tenant: str = "default") -> list[str]:
    found = store.vector_search(
        tenant, space, vector, project=None, tags=(), include_expired=True, now=NOW, limit=10
    )
    return [c.memory.content for c in found]


def test_the_sqlite_store_is_a_vector_store(service: MemoryService) -> None:
    assert isinstance(service.store, VectorStore)


def test_every_added_memory_gets_a_vector_of_the_current_model(service: MemoryService) -> None:
    service.memories.add("The client prefers email")
    service.memories.add("Deploys happen on Tuesdays", title="deploys")
    status = service.searcher.vector_status()
    assert status["state"] == "ready" and status["model"] == "fake-hash" and status["dimension"] == 64
    assert (status["memories"], status["with_vector"], status["missing"], status["embedding_failed"]) == (
        2,
        2,
        0,
        0,
    )


def test_spaces_never_mix(service: MemoryService) -> None:
    service.memories.add("alpha beta gamma")
    store = service.store
    assert isinstance(store, SQLiteStore)
    other = VectorSpace("another-model", 64)
    query = FakeEmbedder().embed_query("alpha beta gamma")
    assert _search(store, VectorSpace("fake-hash", 64), query) == ["alpha beta gamma"]
    assert _search(store, other, query) == []
    assert _search(store, VectorSpace("fake-hash", 32), query[:32]) == []
    assert store.vector_counts("default", other).missing == 1


def test_a_vector_of_the_wrong_size_is_refused(service: MemoryService) -> None:
    from memwarden.errors import StorageError

    memory = service.memories.add("alpha").memory
    with pytest.raises(StorageError, match="does not fit"):
        service.store.put_vectors(VectorSpace("fake-hash", 64), [(memory.id, 1, b"\0" * 12)])


def test_editing_or_deleting_a_memory_drops_its_stale_vector_and_reembeds(service: MemoryService) -> None:
    memory = service.memories.add("The staging server is blue").memory
    service.memories.update(memory.id, content="The staging server is green")
    hits = service.searcher.search("green staging server").hits
    assert hits and hits[0].memory.content == "The staging server is green"
    assert service.searcher.vector_status()["with_vector"] == 1
    service.memories.delete(memory.id)
    assert service.searcher.vector_status()["with_vector"] == 0
    assert service.searcher.search("green staging server").hits == []


def test_a_vector_computed_before_an_edit_is_not_stored(service: MemoryService) -> None:
    memory = service.memories.add("first text").memory
    service.memories.update(memory.id, content="second text")
    stale = FakeEmbedder().embed_documents(["first text"])[0].tobytes()
    assert service.store.put_vectors(VectorSpace("fake-hash", 64), [(memory.id, 1, stale)]) == 0


def test_tenants_and_projects_filter_vector_search(service: MemoryService) -> None:
    from memwarden.models import Caller

    service.memories.add("shared words here", project="a")
    service.memories.add("shared words here", project="b")
    service.memories.add("shared words here", caller=Caller(actor="x", tenant="other"))
    query = FakeEmbedder().embed_query("shared words here")
    store = service.store
    found = store.vector_search(
        "default",
        VectorSpace("fake-hash", 64),
        query,
        project="b",
        tags=(),
        include_expired=True,
        now=NOW,
        limit=10,
    )
    assert [c.memory.project for c in found] == ["b"]
    assert len(_search(store, VectorSpace("fake-hash", 64), query, tenant="default")) == 2
    assert len(_search(store, VectorSpace("fake-hash", 64), query, tenant="other")) == 1
    assert _search(store, VectorSpace("fake-hash", 64), query, tenant="nobody") == []


WRITER = """
import sys
from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.embed.fake import FakeEmbedder
svc = build_service(load_settings(db=sys.argv[1], log_file=sys.argv[2]), embedder=FakeEmbedder(), background=False)
if sys.argv[3] == "add":
    print(svc.memories.add("written by another process about zebras").memory.id)
else:
    svc.memories.delete(sys.argv[4])
svc.close()
"""


def test_vectors_written_or_removed_by_another_process_are_seen(settings: Settings, tmp_path: Path) -> None:
    svc = build_service(settings, embedder=FakeEmbedder(), background=False)
    svc.memories.add("something local about giraffes")
    assert [h.memory.content for h in svc.searcher.search("zebras").hits] == []
    args = [sys.executable, "-c", WRITER, settings.db, str(tmp_path / "w.log")]
    added = subprocess.run(
        [*args, "add"], capture_output=True, text=True, timeout=120, check=True
    ).stdout.strip()
    result = svc.searcher.search("zebras another process")
    assert result.degraded is False
    assert result.hits[0].memory.id == added and "vector" in result.hits[0].why
    subprocess.run([*args, "delete", added], capture_output=True, text=True, timeout=120, check=True)
    query = FakeEmbedder().embed_query("written by another process about zebras")
    assert _search(svc.store, VectorSpace("fake-hash", 64), query) == ["something local about giraffes"]
    svc.close()


def test_the_hnsw_index_past_the_exact_limit_finds_what_exact_search_finds(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "h.db", vector_exact_max=50)
    exact = SQLiteStore(tmp_path / "h.db", vector_exact_max=10_000)
    from memwarden.models import IndexText, Memory

    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((400, 32)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    space = VectorSpace("random", 32)
    for i, vector in enumerate(vectors):
        memory = Memory(
            id=f"01J{i:023d}",
            tenant="default",
            project="p",
            kind="fact",
            title="",
            tags=(),
            content=f"m{i}",
            content_hash=f"h{i}",
            pinned=False,
            created_at=NOW,
            updated_at=NOW,
        )
        store.add(memory, IndexText("", "", f"m{i}"))
        store.put_vectors(space, [(memory.id, 1, vector.tobytes())])
    agree = 0
    for q in rng.standard_normal((20, 32)).astype(np.float32):
        q /= np.linalg.norm(q)
        agree += len(set(_search(store, space, q)) & set(_search(exact, space, q)))
    assert agree / 200 >= 0.95
    store.close()
    exact.close()
