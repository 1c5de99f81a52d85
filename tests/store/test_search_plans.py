"""Every query on the search path is planned by key, never by a scan of a table (issue 21).

At 1M memories a vector search fetched its 50 nearest rows with ``rowid IN (...) AND tenant = ?``
and SQLite chose the tenant index: 204 ms instead of 0.4 ms. These tests run the real search
paths on a populated database with planner statistics gathered (``ANALYZE``, the state that
misled the planner is one tenant holding nearly every row), record every statement they
execute, and ask SQLite for each statement's plan.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from memwarden.app import build_service
from memwarden.config import Settings
from memwarden.embed.fake import FakeEmbedder
from memwarden.models import Caller, KeywordQuery, VectorSpace
from memwarden.store.sqlite import SQLiteStore

NOW = datetime(2030, 1, 1, tzinfo=UTC)
#: Tables that hold a single row by design; reading them whole is reading one row.
ONE_ROW = {"vector_clock", "index_state", "audit_head"}
BY_ROWS = re.compile(r"\b(rowid|id) IN \(")
SCAN = re.compile(r"^SCAN (\w+)\b(?! VIRTUAL TABLE)")


def _part(service: Any, name: str) -> Any:
    """The service part that offers ``name`` (before and after the service split)."""
    for part in ("memories", "searcher"):
        holder = getattr(service, part, None)
        if holder is not None and hasattr(holder, name):
            return holder
    return service


@pytest.fixture(scope="module", params=["analyzed", "no statistics"])
def populated(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[Any]:
    """1,520 memories; planner statistics current, or none at all (what misled SQLite at 1M)."""
    folder = tmp_path_factory.mktemp("plans")
    settings = Settings(
        db=str(folder / "m.db"),
        log_file=str(folder / "log"),
        backup_dir=str(folder / "b"),
        sqlite_synchronous="NORMAL",
        audit=False,
    )
    service = build_service(settings, embedder=FakeEmbedder(), background=False)
    add = _part(service, "add").add
    for i in range(1500):
        add(
            f"note {i} about deploys backups and the client {i % 37}",
            project="big" if i % 50 else "small",
            tags=[f"t{i % 5}"],
        )
    for i in range(20):
        add(f"someone else's note {i} about deploys", caller=Caller(actor="x", tenant="other"))
    store = service.store
    assert isinstance(store, SQLiteStore)
    conn = store.connection()
    conn.execute("ANALYZE")
    if request.param == "no statistics":
        conn.execute("DELETE FROM sqlite_stat1")
    for each in store.db.connections:
        each.execute("ANALYZE sqlite_schema")  # every connection re-reads the statistics
    yield service
    service.close()


def _recorded(store: SQLiteStore, run: Any) -> list[str]:
    """The statements ``run`` executes, on any thread's connection."""
    statements: list[str] = []
    opened = store.db.connection

    def traced() -> sqlite3.Connection:
        conn = opened()
        conn.set_trace_callback(statements.append)
        return conn

    store.db.connection = traced  # type: ignore[method-assign]
    try:
        run()
    finally:
        del store.db.connection
        for conn in store.db.connections:
            conn.set_trace_callback(None)
    return [s for s in statements if s.lstrip().upper().startswith(("SELECT", "UPDATE", "DELETE", "WITH"))]


def _scans(store: SQLiteStore, statement: str) -> list[str]:
    """Plan steps that read a table whole, or a whole tenant where the statement names its rows."""
    conn = store.connection()
    plan = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + statement)]
    bad = [detail for detail in plan if (m := SCAN.match(detail)) and m.group(1) not in ONE_ROW]
    if BY_ROWS.search(statement):
        bad += [detail for detail in plan if "(tenant=?)" in detail]
    return bad


def _assert_planned_by_key(store: SQLiteStore, statements: list[str]) -> None:
    assert statements, "nothing was recorded"
    scans = {s: found for s in statements if (found := _scans(store, s))}
    assert scans == {}


@pytest.mark.parametrize("project", [None, "small", "big"])
def test_hybrid_search_reads_by_key_at_every_scope(populated: Any, project: str | None) -> None:
    search = _part(populated, "search").search
    search("deploys client", project=project)  # connections of the vector threads exist now
    statements = _recorded(
        populated.store, lambda: search("backups for the client 7", project=project, limit=30)
    )
    assert any("memory_vectors" in s for s in statements) and any("memories_fts" in s for s in statements)
    _assert_planned_by_key(populated.store, statements)


def test_store_search_queries_read_by_key(populated: Any) -> None:
    store: SQLiteStore = populated.store
    space = VectorSpace("fake-hash", 64)
    query = FakeEmbedder().embed_query("deploys backups")

    def run() -> None:
        for words in (["deploy"], ["note", "about"], ["client", "7"]):
            store.keyword_search(
                "default",
                KeywordQuery(terms=tuple(words)),
                project="small",
                tags=("t1",),
                include_expired=False,
                now=NOW,
                limit=10,
            )
        for project in ("small", None):
            store.vector_search(
                "default",
                space,
                query,
                project=project,
                tags=("t1",),
                include_expired=False,
                now=NOW,
                limit=30,
            )
        found = store.list_memories(
            "default", project="big", pinned_only=False, include_expired=False, now=NOW, limit=10
        )
        store.get_many("default", [m.id for m in found])
        store.record_hits("default", [m.id for m in found], NOW)
        store.embedding_queue(space, None, limit=10)
        store.failed_embeddings(space, limit=10)

    _assert_planned_by_key(store, _recorded(store, run))


def test_a_plan_check_catches_a_scan(populated: Any) -> None:
    store: SQLiteStore = populated.store
    assert _scans(store, "SELECT COUNT(*) FROM memories WHERE kind = 'fact'")


def test_deletes_and_edits_are_logged_for_the_vector_index(populated: Any) -> None:
    store: SQLiteStore = populated.store
    conn = store.connection()
    gone, edited = store.list_memories(
        "default", project="small", pinned_only=False, include_expired=True, now=NOW, limit=2
    )
    rowid = {
        m: conn.execute("SELECT rowid FROM memories WHERE id = ?", (m.id,)).fetchone()[0]
        for m in (gone, edited)
    }
    before = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM vector_removals").fetchone()[0]
    _part(populated, "delete").delete(gone.id)
    _part(populated, "update").update(edited.id, content="an edited note about deploys")
    logged = conn.execute(
        "SELECT memory_rowid, vector_seq > 0 FROM vector_removals WHERE seq > ? ORDER BY seq", (before,)
    ).fetchall()
    # the deleted memory's vector; the edited memory's old vector, then "embed it again"
    assert logged == [(rowid[gone], 1), (rowid[edited], 1), (rowid[edited], 0)]
