"""`memwarden migrate --to postgresql://…`: the whole SQLite database arrives, verified."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.embed.fake import FakeEmbedder
from memwarden.models import Caller
from memwarden.postgres_copy import BATCH
from memwarden.store.audit_logs import verify_database

pytestmark = pytest.mark.postgres

# The kill tests' sources: migrate copies rows in committed batches of BATCH and is killed once
# the first is in, so five batches leave four to resume, each long beside the poll that kills.
ROWS = 5 * BATCH


def _run(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memwarden", *argv], env=env, capture_output=True, text=True, timeout=300
    )


@pytest.fixture
def filled_sqlite(db_path: Path, tmp_path: Path) -> Path:
    """A SQLite database with memories of two tenants, a deleted one, vectors and an audit chain."""
    settings = load_settings(db=str(db_path), log_file=str(tmp_path / "log"))
    service = build_service(settings, embedder=FakeEmbedder(dimension=16), background=False)
    try:
        for i in range(30):
            service.memories.add(
                f"migrated fact number {i} about the car park", project=f"p{i % 3}", tags=["t"]
            )
        gone = service.memories.add("this one was deleted").memory
        service.memories.delete(gone.id)
        service.memories.add("another tenant's memory", caller=Caller(actor="bob", tenant="globex"))
        service.searcher.search("car park")
        service.searcher.reindex_embeddings()
    finally:
        service.close()
    return db_path


def test_migrate_copies_memories_vectors_and_the_audit_chain(
    filled_sqlite: Path, pg_url: str, cli_env: dict[str, str], tmp_path: Path
) -> None:
    result = _run(cli_env, "migrate", "--to", pg_url, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is True and report["problems"] == []
    assert report["counts"]["memories"] == {"source": 32, "target": 32}
    assert report["counts"]["memory_vectors"]["target"] == report["counts"]["memory_vectors"]["source"] > 0
    assert report["counts"]["audit_log"]["source"] == report["counts"]["audit_log"]["target"] > 30
    assert (
        verify_database(pg_url).ok
        and verify_database(pg_url).rows == report["counts"]["audit_log"]["target"] + 1
    )

    settings = load_settings(db=pg_url, log_file=str(tmp_path / "log2"))
    service = build_service(settings, embedder=FakeEmbedder(dimension=16), background=False)
    try:
        hits = service.searcher.search("car park", limit=50).hits
        assert len(hits) == 30 and all(h.memory.tenant == "default" for h in hits)
        assert len(service.searcher.search("tenant", caller=Caller(actor="bob", tenant="globex")).hits) == 1
        assert service.searcher.vector_status()["missing"] == 0
        assert service.memories.stats()["deleted"] == 1
    finally:
        service.close()


def test_migrate_refuses_a_target_that_is_not_empty(
    filled_sqlite: Path, pg_url: str, cli_env: dict[str, str]
) -> None:
    assert _run(cli_env, "migrate", "--to", pg_url).returncode == 0
    again = _run(cli_env, "migrate", "--to", pg_url)
    assert again.returncode == 1 and "not empty" in again.stderr and again.stderr.count("\n") == 1


def test_migrate_refuses_a_target_that_is_not_postgres_and_a_postgres_source(
    filled_sqlite: Path, cli_env: dict[str, str], tmp_path: Path, pg_url: str
) -> None:
    wrong = _run(cli_env, "migrate", "--to", str(tmp_path / "other.db"))
    assert wrong.returncode == 1 and "postgresql://" in wrong.stderr
    from_pg = _run({**cli_env, "MEMWARDEN_DB": pg_url}, "migrate", "--to", pg_url)
    assert from_pg.returncode == 1 and "SQLite" in from_pg.stderr
    missing = _run(cli_env, "migrate")
    assert missing.returncode == 2


def _bulk_source(db: Path, memories: int, audit_rows: int) -> None:
    """``memories`` written straight into the SQLite source, and ``audit_rows`` chained rows."""
    from datetime import UTC, datetime

    from memwarden.audit.base import AuditEvent
    from memwarden.models import IndexText, Memory
    from memwarden.store.audit_logs import open_audit_log
    from memwarden.store.sqlite import SQLiteStore

    source = SQLiteStore(db)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    index = IndexText(title="", tags="", body="fact")
    source.import_memories(
        [
            (
                Memory(
                    id=f"01JD3Z5X9Q2W8E7R6T5{i:07d}",
                    tenant="default" if i % 10 else "globex",
                    project="p",
                    kind="fact",
                    title="",
                    tags=(),
                    content=f"fact {i}",
                    content_hash=f"h{i}",
                    pinned=False,
                    created_at=now,
                    updated_at=now,
                ),
                index,
            )
            for i in range(memories)
        ]
    )
    source.close()
    log = open_audit_log(str(db))
    conn = log.connection()  # type: ignore[attr-defined]
    conn.execute("BEGIN IMMEDIATE")
    for i in range(audit_rows):
        log.append_in(conn, AuditEvent(actor="alice", tenant="default", action="search", result_count=i), now)  # type: ignore[attr-defined]
    conn.execute("COMMIT")
    log.close()


def _kill_migrate_when(env: dict[str, str], pg_url: str, table: str) -> int:
    """Start ``memwarden migrate``, SIGKILL it once the target's ``table`` has rows; that count."""
    import os
    import signal
    import time

    import psycopg

    process = subprocess.Popen(
        [sys.executable, "-m", "memwarden", "migrate", "--to", pg_url],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 180
        copied = 0
        while copied == 0 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
            with psycopg.connect(pg_url, autocommit=True) as conn:
                present = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (table,)).fetchone()
                if present and present[0]:
                    row = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()  # type: ignore[arg-type]
                    copied = int(row[0]) if row else 0
        assert copied > 0 and process.poll() is None, "the migrate finished before it could be killed"
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait(timeout=60)
    return copied


def _check_resumed(env: dict[str, str], pg_url: str, memories: int, audit_rows: int) -> dict[str, object]:
    pg_env = {**env, "MEMWARDEN_DB": pg_url}
    health = json.loads(_run(pg_env, "health", "--json", "--no-repair").stdout)
    found = health["checks"]["operations"]["interrupted"]
    assert health["status"] == "failing" and [m["operation"] for m in found] == ["migrate"], health
    assert "it resumes" in found[0]["advice"] and found[0]["state"] == "interrupted"
    partial = _run(pg_env, "audit", "verify")  # intact so far, but not the whole chain: says so
    assert (
        partial.returncode == 1
        and "NOT COMPLETE: this database holds an unfinished migrate" in partial.stdout
    )
    again = _run(env, "migrate", "--to", pg_url, "--json")
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["ok"] is True and report["resumed"] is not None, report
    assert report["counts"]["memories"] == {"source": memories, "target": memories}
    assert report["counts"]["audit_log"] == {"source": audit_rows, "target": audit_rows}
    chain = verify_database(pg_url)
    assert chain.ok and chain.rows == audit_rows + 1  # the source's rows, then the migrate row
    after = json.loads(_run(pg_env, "health", "--json", "--no-repair").stdout)
    assert after["checks"]["operations"]["ok"] is True and after["checks"]["operations"]["interrupted"] == []
    verified = _run(pg_env, "audit", "verify", "--json")
    assert verified.returncode == 0 and json.loads(verified.stdout)["unfinished_migrate"] is None
    done = _run(env, "migrate", "--to", pg_url)  # finished: a third run is an ordinary "not empty"
    assert done.returncode == 1 and "not empty" in done.stderr
    return dict(report)


def test_a_migrate_killed_while_copying_memories_resumes(
    db_path: Path, pg_url: str, cli_env: dict[str, str]
) -> None:
    _bulk_source(db_path, ROWS, 500)
    copied = _kill_migrate_when(cli_env, pg_url, "memories")
    assert 0 < copied < ROWS
    report = _check_resumed(cli_env, pg_url, ROWS, 500)
    assert report["copied"]["memories"] == ROWS - report["resumed"]["memories"]  # type: ignore[index]


def test_a_migrate_killed_while_copying_the_audit_chain_resumes_from_its_head(
    db_path: Path, pg_url: str, cli_env: dict[str, str]
) -> None:
    _bulk_source(db_path, BATCH, ROWS)
    copied = _kill_migrate_when(cli_env, pg_url, "audit_log")
    assert 0 < copied < ROWS
    report = _check_resumed(cli_env, pg_url, BATCH, ROWS)
    assert report["copied"]["memories"] == 0 and report["copied"]["audit_rows"] < ROWS  # type: ignore[index]


def test_a_resume_refuses_when_the_source_changed_and_says_what_to_do(
    db_path: Path, pg_url: str, cli_env: dict[str, str], tmp_path: Path
) -> None:
    _bulk_source(db_path, ROWS, 10)
    _kill_migrate_when(cli_env, pg_url, "memories")
    other = tmp_path / "other.db"
    _bulk_source(other, 100, 10)
    wrong = _run({**cli_env, "MEMWARDEN_DB": str(other)}, "migrate", "--to", pg_url)
    assert wrong.returncode == 1 and "holds an unfinished migrate from" in wrong.stderr
    assert "dropdb" in wrong.stderr and "not empty" not in wrong.stderr
    import sqlite3

    with sqlite3.connect(db_path) as conn:  # a memory the killed run copied is changed in the source
        conn.execute(
            "UPDATE memories SET version = version + 1 WHERE rowid = (SELECT min(rowid) FROM memories WHERE tenant = 'default')"
        )
    changed = _run(cli_env, "migrate", "--to", pg_url)
    assert changed.returncode == 1 and "changed in the source since the interrupted migrate" in changed.stderr
    assert "dropdb" in changed.stderr
