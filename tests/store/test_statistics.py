"""An empty partial index no longer makes every connection's close re-run ANALYZE.

ANALYZE writes no ``sqlite_stat1`` row for an empty index; ``PRAGMA optimize`` then analyzes the
table again at every close of a connection that used its statistics. A search asks the thread
index (empty unless memories carry threads), so every ``memwarden search`` and prompt hook
re-ran ``ANALYZE memories``: a write on a read, and about 1.8 ms of a cold command.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.store.sqlite.statistics import settle

EMPTY_PARTIAL_INDEXES = {
    "memories_pinned",
    "memories_thread",
    "memories_redacted",
    "memories_embedding_failed",
}


@pytest.fixture
def traced(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every statement run on connections opened from here on, nested ones (``-- ANALYZE``) too."""
    statements: list[str] = []
    connect = sqlite3.connect

    def traced_connect(*args: object, **kwargs: object) -> sqlite3.Connection:
        conn = connect(*args, **kwargs)  # type: ignore[arg-type]
        conn.set_trace_callback(statements.append)
        return conn

    monkeypatch.setattr(sqlite3, "connect", traced_connect)
    yield statements


def search_once(db: Path) -> None:
    service = build_service(load_settings(db=str(db), embedder="none"), embeddings=False, background=False)
    try:
        service.searcher.search("client email")
    finally:
        service.close()


def stat_rows(db: Path) -> dict[str, str]:
    with sqlite3.connect(db) as conn:
        return dict(
            conn.execute("SELECT idx, stat FROM sqlite_stat1 WHERE tbl = 'memories' AND idx IS NOT NULL")
        )


def analyzed(statements: list[str]) -> list[str]:
    return [s for s in statements if s.lstrip("- ").startswith("ANALYZE")]


def test_searches_after_the_first_close_run_no_analyze(tmp_path: Path, traced: list[str]) -> None:
    db = tmp_path / "m.db"
    service = build_service(load_settings(db=str(db), embedder="none"), embeddings=False, background=False)
    for n in range(300):
        service.memories.add(f"the client prefers email about invoice {n}", project=f"p{n % 3}")
    service.close()
    with sqlite3.connect(db) as conn:
        conn.execute("ANALYZE")  # the state after migration 0008, or after PRAGMA optimize analyzed
    assert EMPTY_PARTIAL_INDEXES.isdisjoint(stat_rows(db))

    search_once(db)  # this close settles the empty indexes (ANALYZE may run once more first)
    rows = stat_rows(db)
    assert set(rows) >= EMPTY_PARTIAL_INDEXES
    assert rows["memories_pinned"] == "1 1 1 1"  # one entry, for each of (tenant, updated_at, id)

    traced.clear()
    search_once(db)
    search_once(db)
    assert any("PRAGMA optimize" in s for s in traced)
    assert analyzed(traced) == []


def test_settle_writes_only_what_is_missing_and_keeps_real_counts(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    service = build_service(load_settings(db=str(db), embedder="none"), embeddings=False, background=False)
    for n in range(50):
        service.memories.add(f"note {n} on the release train", pinned=n < 5)
    service.close()
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("ANALYZE")
        real = stat_rows(db)
        assert real["memories_pinned"].split()[0] == "5"  # analyzed for real: five pinned
        indexes = {name for (name,) in conn.execute("SELECT name FROM pragma_index_list('memories')")}
        assert settle(conn) == len(indexes - set(real))  # the empty ones: thread, redacted, flagged...
        assert settle(conn) == 0
        after = stat_rows(db)
        assert set(after) == indexes
        assert {name: after[name] for name in real} == real  # real counts untouched
    finally:
        conn.close()


def test_settle_on_a_database_never_analyzed_does_nothing() -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (a, b)")
    conn.execute("CREATE INDEX t_a ON t(a) WHERE b = 1")
    assert settle(conn) == 0
