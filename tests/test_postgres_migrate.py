"""`memwarden migrate --to postgresql://…`: the whole SQLite database arrives, verified."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memwarden.app import build_service
from memwarden.audit import verify_database
from memwarden.config import load_settings
from memwarden.embed.fake import FakeEmbedder
from memwarden.models import Caller

pytestmark = pytest.mark.postgres


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


def test_a_migrate_killed_midway_leaves_a_marked_target_and_a_rerun_explains(
    db_path: Path, pg_url: str, cli_env: dict[str, str]
) -> None:
    import os
    import signal
    import time
    from datetime import UTC, datetime

    import psycopg

    from memwarden.models import IndexText, Memory
    from memwarden.ops.markers import incomplete_operations
    from memwarden.store import open_store
    from memwarden.store.sqlite import SQLiteStore

    source = SQLiteStore(db_path)  # 20,000 memories written straight into the source
    now = datetime(2026, 1, 1, tzinfo=UTC)
    index = IndexText(title="", tags="", body="fact")
    source.import_memories(
        [
            (
                Memory(
                    id=f"01JD3Z5X9Q2W8E7R6T5{i:07d}",
                    tenant="default",
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
            for i in range(20_000)
        ]
    )
    source.close()
    process = subprocess.Popen(
        [sys.executable, "-m", "memwarden", "migrate", "--to", pg_url],
        env=cli_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 180
        copied = 0
        while copied == 0 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.2)
            with psycopg.connect(pg_url, autocommit=True) as conn:
                present = conn.execute("SELECT to_regclass('memories') IS NOT NULL").fetchone()
                if present and present[0]:
                    row = conn.execute("SELECT COUNT(*) FROM memories").fetchone()
                    copied = int(row[0]) if row else 0
        assert copied > 0 and process.poll() is None, "the migrate finished before it could be killed"
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait(timeout=60)
    target = open_store(pg_url)
    try:
        marks = incomplete_operations(target)
        assert [m["operation"] for m in marks] == ["migrate"] and "dropdb" in marks[0]["advice"]
    finally:
        target.close()
    again = _run(cli_env, "migrate", "--to", pg_url)
    assert again.returncode == 1 and "holds an unfinished migrate" in again.stderr
    assert "dropdb" in again.stderr and "not empty" not in again.stderr
