"""What must not grow with the database: small scopes, deletes, start-up, the write path (issue 21, 17)."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memwarden.app import build_service
from memwarden.config import Settings
from memwarden.embed.fake import FakeEmbedder
from memwarden.models import IndexText, Memory, VectorSpace
from memwarden.store.sqlite import SQLiteStore
from memwarden.store.sqlite.vector_snapshot import snapshot_dir_for, space_dir

NOW = datetime(2026, 1, 1, tzinfo=UTC)
SPACE = VectorSpace("random", 32)


def _fill(store: SQLiteStore, count: int, project: str, start: int = 0, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((count, 32)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    for i, vector in enumerate(vectors, start=start):
        memory = Memory(
            id=f"01J{i:023d}",
            tenant="default",
            project=project,
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
        store.put_vectors(SPACE, [(memory.id, 1, vector.tobytes())])
    return vectors


def _nearest(store: SQLiteStore, q: np.ndarray, project: str | None = None, limit: int = 10) -> list[str]:
    found = store.vector_search(
        "default", SPACE, q, project=project, tags=(), include_expired=True, now=NOW, limit=limit
    )
    return [c.memory.content for c in found]


def _statements(store: SQLiteStore, run: Any) -> list[str]:
    seen: list[str] = []
    conn = store.connection()
    conn.set_trace_callback(seen.append)
    try:
        run()
    finally:
        conn.set_trace_callback(None)
    return seen


@pytest.fixture
def graph_store(tmp_path: Path) -> Any:
    """A store past its exact limit (so searches use the HNSW graph) with a big and a small project."""
    store = SQLiteStore(tmp_path / "v.db", vector_exact_max=100)
    big = _fill(store, 600, "big")
    small = _fill(store, 12, "small", start=600, seed=8)
    store.warm_vectors(SPACE)
    yield store, big, small
    store.close()


def test_a_small_project_gets_its_exact_nearest_even_when_the_graph_serves_the_space(
    graph_store: Any,
) -> None:
    store, _, small = graph_store
    index = store._vector_index(SPACE)
    assert index._state is not None and index._state.graph is not None
    q = np.random.default_rng(1).standard_normal(32).astype(np.float32)
    q /= np.linalg.norm(q)
    expected = [f"m{600 + i}" for i in np.argsort(-(small @ q))[:5]]
    assert _nearest(store, q, project="small", limit=5) == expected


def test_a_delete_costs_one_logged_removal_not_a_reload(graph_store: Any) -> None:
    store, big, _ = graph_store
    state = store._vector_index(SPACE)._state
    store.soft_delete("default", "01J" + f"{3:023d}", NOW)
    statements = _statements(store, lambda: _nearest(store, big[3]))
    assert "m3" not in _nearest(store, big[3])
    assert store._vector_index(SPACE)._state is state  # the same index, one slot tombstoned
    assert not [s for s in statements if "SELECT seq FROM memory_vectors" in s or "v.seq > 0" in s]
    assert any("FROM vector_removals WHERE seq >" in s for s in statements)


def test_a_replaced_vector_takes_a_new_slot_and_the_old_one_is_never_found(graph_store: Any) -> None:
    store, big, _ = graph_store
    flipped = (-big[5]).astype(np.float32)
    store.put_vectors(SPACE, [("01J" + f"{5:023d}", 1, flipped.tobytes())])
    assert "m5" not in _nearest(store, big[5], project="big")
    assert _nearest(store, flipped, project="big")[0] == "m5"


def test_the_snapshot_is_mapped_at_the_next_start_and_catches_up_with_what_changed(
    graph_store: Any, tmp_path: Path
) -> None:
    store, big, _ = graph_store
    store.maintain_vectors(SPACE)  # what a server's background thread does
    folder = space_dir(snapshot_dir_for(store.path), SPACE.model_id, SPACE.dimension)
    assert (folder / "current.json").exists()
    q = big[42]
    before = _nearest(store, q)
    store.soft_delete("default", "01J" + f"{42:023d}", NOW)
    later = _fill(store, 3, "big", start=700, seed=9)
    reopened = SQLiteStore(store.path, vector_exact_max=100)
    try:
        statements = _statements(reopened, lambda: reopened.warm_vectors(SPACE))
        state = reopened._vector_index(SPACE)._state
        assert state is not None and state.graph_file is not None and state.matrix.base_rows == 612
        assert not [s for s in statements if "v.seq > 0" in s]  # no vector read back but the 3 new ones
        assert _nearest(reopened, q)[:5] == [c for c in before if c != "m42"][:5]
        assert _nearest(reopened, later[1])[0] == "m701"
    finally:
        reopened.close()


def test_a_snapshot_of_a_newer_database_is_ignored_after_a_restore(
    graph_store: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memwarden.store.sqlite import vector_snapshot

    monkeypatch.setattr(vector_snapshot, "BEHIND_MAX", 1)  # every maintenance writes a snapshot
    store, big, _ = graph_store
    older = tmp_path / "older.db"
    source = sqlite3.connect(store.path)
    with sqlite3.connect(older) as target:
        source.backup(target)
    source.close()
    _fill(store, 20, "big", start=800, seed=10)
    store.maintain_vectors(SPACE)
    # The older copy is put where the database was (a restore), beside the newer snapshot.
    restored = tmp_path / "restored.db"
    restored.write_bytes(older.read_bytes())
    os.rename(snapshot_dir_for(store.path), snapshot_dir_for(restored))
    reopened = SQLiteStore(restored, vector_exact_max=100)
    try:
        reopened.warm_vectors(SPACE)
        state = reopened._vector_index(SPACE)._state
        assert state is not None and state.size == 612  # read from the database, not the newer snapshot
        assert _nearest(reopened, big[10])[0] == "m10"
        folder = space_dir(snapshot_dir_for(restored), SPACE.model_id, SPACE.dimension)
        assert '"rows": 612' in (folder / "current.json").read_text()  # and rewritten for this database
    finally:
        reopened.close()


STREAM = """
import sys
from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.embed.fake import FakeEmbedder
service = build_service(load_settings(), embedder=FakeEmbedder(), background=True)
add = getattr(service, "memories", service).add
i = 0
while True:
    print(add(f"acknowledged memory {i} about queues").memory.id, flush=True)
    i += 1
"""


def test_acknowledged_adds_and_their_vectors_survive_kill_9_with_the_background_queue(
    cli_env: dict[str, str], settings: Settings
) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", STREAM],
        env={**cli_env, "MEMWARDEN_DB": settings.db},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    acknowledged: list[str] = []
    deadline = time.monotonic() + 120
    while len(acknowledged) < 300 and time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        acknowledged.append(line.strip())
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    acknowledged += [line.strip() for line in process.stdout.read().splitlines() if line.strip()]
    process.stdout.close()
    if process.stderr is not None:
        process.stderr.close()
    assert len(acknowledged) >= 300
    restarted = build_service(settings, embedder=FakeEmbedder(), background=True)
    try:
        assert restarted.vectors is not None
        restarted.vectors.start()  # what the server's lifespan does once it answers
        status = getattr(restarted, "searcher", restarted).vector_status
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            now = status(probe=False)
            if now["state"] == "ready" and now["missing"] == 0:
                break
            time.sleep(0.1)
        conn = sqlite3.connect(settings.db)
        with_vectors = {
            row[0]
            for row in conn.execute(
                "SELECT m.id FROM memories m JOIN memory_vectors v ON v.memory_rowid = m.rowid"
            )
        }
        conn.close()
        assert set(acknowledged) <= with_vectors
    finally:
        restarted.close()
