"""PostgreSQL's side of issue 21: every query on the search path is planned by an index.

The SQLite test (test_search_plans.py) asks SQLite for each recorded statement's plan; this one
does the same on a real PostgreSQL with pgvector (tests/postgres_server.py). A few thousand
memories in one big project, a small one and another tenant, their vectors under the space's
HNSW index, statistics gathered (``VACUUM ANALYZE``). The search paths run for real; every
statement they send is recorded with its parameters and explained with the same parameters:

- ``planner statistics``: the planner's own choice on the analyzed database must read
  ``memories`` and ``memory_vectors`` through an index, the vector candidates through the space's
  HNSW index and the keyword candidates through the GIN index or by the newest rows of the scope;
- ``enable_seqscan off``: where the planner could still only scan a table (no index serves the
  statement) the plan says so, and the test fails.

A statement that names its rows (``id = ANY(...)``) must find them by id, never by walking a
tenant's index (the SQLite defect at 1M: the tenant index chosen for ``rowid IN (...)``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memwarden.app import build_service
from memwarden.config import Settings
from memwarden.embed.fake import FakeEmbedder
from memwarden.intake import content_hash
from memwarden.models import Caller, KeywordQuery, Memory

NOW = datetime(2030, 1, 1, tzinfo=UTC)
#: Tables a search reads by key; other tables (index_state, the audit head) hold one row or few.
LARGE = {"memories", "memory_vectors"}
MEMORIES = 6_000
#: An index condition on the tenant alone: the walk of a whole tenant.
TENANT_ONLY = re.compile(r"\(*tenant = [^()]*\)*")
SMALL_EVERY = 60  # one memory in 60 belongs to the 100-memory project "small"


def _memories(tenant: str, count: int, start: datetime) -> Iterator[Memory]:
    for i in range(count):
        content = f"note {i} of {tenant} about deploys backups and the client {i % 37} word{i % 997}"
        at = start + timedelta(seconds=i)
        yield Memory(
            id=f"{tenant[:2]}{i:024d}",
            tenant=tenant,
            project="small" if i % SMALL_EVERY == 0 else "big",
            kind="fact",
            title="",
            tags=(f"t{i % 5}",),
            content=content,
            content_hash=content_hash(content),
            pinned=False,
            created_at=at,
            updated_at=at,
            thread=f"thread-{i // 10}" if i % 3 == 0 else "",
        )


@pytest.fixture(scope="module")
def populated(pg_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    folder: Path = tmp_path_factory.mktemp("pgplans")
    with pg_server.database() as url:
        settings = Settings(db=url, log_file=str(folder / "log"), backup_dir=str(folder / "b"))
        embedder = FakeEmbedder()
        service = build_service(settings, embedder=embedder, background=False)
        store: Any = service.store
        start = datetime(2029, 1, 1, tzinfo=UTC)
        rows = [*_memories("default", MEMORIES, start), *_memories("other", 40, start)]
        store.import_memories([(m, service.intake.index_text(m)) for m in rows])
        vectors = embedder.embed_documents([m.content for m in rows])
        store.load_vectors(
            embedder.identity,
            ((m.id, _float32(vectors[i])) for i, m in enumerate(rows)),
        )
        with store.connection() as conn:
            conn.execute("VACUUM ANALYZE memories")
            conn.execute("VACUUM ANALYZE memory_vectors")
        yield service
        service.close()


def _float32(vector: Any) -> bytes:
    import numpy as np

    return np.asarray(vector, dtype=np.float32).tobytes()


def _recorded(run: Any) -> list[tuple[str, Any]]:
    """``(statement, parameters)`` of every SELECT/UPDATE/DELETE that ``run`` sends."""
    import psycopg

    sent: list[tuple[str, Any]] = []
    execute = psycopg.Cursor.execute

    def recording(self: Any, query: Any, params: Any = None, **kwargs: Any) -> Any:
        text = query if isinstance(query, str) else query.as_string(self.connection)
        if text.lstrip().upper().startswith(("SELECT", "UPDATE", "DELETE", "WITH")):
            sent.append((text, params))
        return execute(self, query, params, **kwargs)

    psycopg.Cursor.execute = recording  # type: ignore[method-assign]
    try:
        run()
    finally:
        psycopg.Cursor.execute = execute  # type: ignore[method-assign]
    return sent


def _nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _nodes(child)


def _plan(service: Any, statement: str, params: Any, *, seqscan: bool) -> list[dict[str, Any]]:
    with service.store.connection() as conn, conn.transaction():
        if not seqscan:
            conn.execute("SET LOCAL enable_seqscan = off")
        row = conn.execute("EXPLAIN (FORMAT JSON) " + statement, params).fetchone()  # type: ignore[arg-type]
    found = row[0] if isinstance(row[0], list) else json.loads(row[0])
    return list(_nodes(found[0]["Plan"]))


# Partial indexes that hold only rows in trouble (memories whose embedding failed): reading one
# whole reads those rows, not the table.
SMALL_PARTIAL = {"memories_failed_embeddings"}


def _scans(service: Any, statement: str, params: Any, *, seqscan: bool) -> list[str]:
    """Plan steps that read a large table whole, or a whole tenant where the rows are named."""
    bad = []
    names_rows = "= ANY(" in statement
    for node in _plan(service, statement, params, seqscan=seqscan):
        if node["Node Type"] == "Bitmap Index Scan" and "Index Cond" not in node:
            bad.append(f"Bitmap Index Scan of all of {node['Index Name']}")
        relation = node.get("Relation Name")
        if relation not in LARGE:
            continue
        kind = node["Node Type"]
        condition = node.get("Index Cond", "")
        if kind == "Seq Scan":
            bad.append(f"Seq Scan on {relation}")
        elif (
            kind in ("Index Scan", "Index Only Scan")
            and not condition
            and "Order By" not in node
            and node["Index Name"] not in SMALL_PARTIAL
        ):
            bad.append(f"{kind} of all of {node['Index Name']}")  # a full index walk is a scan too
        elif names_rows and relation == "memories" and TENANT_ONLY.fullmatch(condition):
            bad.append(f"{kind} using {node.get('Index Name')} ({condition}) for named rows")
    return bad


def _index_names(service: Any, statement: str, params: Any) -> set[str]:
    return {n["Index Name"] for n in _plan(service, statement, params, seqscan=True) if "Index Name" in n}


def _search_everywhere(service: Any) -> None:
    for project in (None, "small", "big"):
        service.searcher.search("backups for the client 7 word12", project=project, limit=30)
        service.searcher.search("deploys", project=project, tags=["t1"], limit=10)


def test_hybrid_search_reads_by_index_at_every_scope(populated: Any) -> None:
    """With sequential scans priced out, a scan left in a plan means no index serves it."""
    statements = _recorded(lambda: _search_everywhere(populated))
    assert any("memory_vectors" in s for s, _ in statements) and any("@@" in s for s, _ in statements)
    scans = {s: found for s, p in statements if (found := _scans(populated, s, p, seqscan=False))}
    assert {s[:90]: f for s, f in scans.items()} == {}


def test_the_planner_chooses_the_indexes_on_its_own_statistics(populated: Any) -> None:
    """The planner's own choice on the analyzed database (sequential scans allowed): the vector
    candidates of a big scope come from the HNSW graph, a small project's from its own rows
    (the exact path), a rare word's keyword candidates from the GIN index, and named rows by id."""
    search = populated.searcher.search
    for project in (None, "big", "small"):
        statements = _recorded(
            lambda p=project: search("backups for the client 7 word12", project=p, limit=30)
        )
        vector = [(s, p) for s, p in statements if "<=>" in s]
        assert len(vector) == 1
        plan = _plan(populated, *vector[0], seqscan=True)
        hnsw = any(n.get("Index Name", "").startswith("memory_vectors_hnsw_") for n in plan)
        by_scope = any(
            "project = " in n.get("Index Cond", "") for n in plan if n.get("Relation Name") == "memories"
        )
        assert hnsw or (project == "small" and by_scope), (project, [n.get("Index Name") for n in plan])
        for s, p in statements:
            if "= ANY(" in s:
                assert _scans(populated, s, p, seqscan=True) == [], s[:90]
        # a common word's matches are found among the scope's newest rows (memories_recent /
        # memories_project, LIMIT 1000); a rare word's through the GIN index
        rare = _recorded(lambda p=project: search("word12 word345", project=p, vector=False))
        keyword = [(s, p) for s, p in rare if "@@" in s]
        assert keyword and all("memories_search" in _index_names(populated, s, p) for s, p in keyword)


def test_store_search_queries_read_by_index(populated: Any) -> None:
    service = populated
    store: Any = service.store
    space = FakeEmbedder().identity
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
        ids = [m.id for m in found] + [f"de{i:024d}" for i in range(0, 60, 3)]
        store.get_many("default", ids)
        store.indexed_memories("default", ids)
        store.thread_neighbours("default", ids)
        store.record_hits("default", ids, NOW)
        # The background embedder's queue after its first pass (embedding_pending, migration
        # 0010): the head of the queue and the queued memories by id, never the whole table.
        store.embedding_queue(space, ("walk", "de000000000000000000003000"), limit=32)
        store.embedding_queue(space, ("queue",), limit=32)
        store.failed_embeddings(space, limit=32)

    statements = _recorded(run)
    assert len(statements) >= 10
    scans = {s: found for s, p in statements if (found := _scans(service, s, p, seqscan=False))}
    assert {s[:90]: f for s, f in scans.items()} == {}


def test_a_plan_check_catches_a_scan(populated: Any) -> None:
    assert _scans(populated, "SELECT COUNT(*) FROM memories WHERE kind = %s", ("fact",), seqscan=False)
    assert _scans(
        populated,
        "SELECT id FROM memories WHERE tenant = %s AND id || '' = ANY(%s)",
        ("default", ["x"]),
        seqscan=True,
    )


def test_a_search_by_another_tenant_finds_only_its_own(populated: Any) -> None:
    hits = populated.searcher.search("deploys", caller=Caller(actor="o", tenant="other"), limit=50).hits
    assert hits and {h.memory.tenant for h in hits} == {"other"}
