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
    return subprocess.run([sys.executable, "-m", "memwarden", *argv], env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture
def filled_sqlite(db_path: Path, tmp_path: Path) -> Path:
    """A SQLite database with memories of two tenants, a deleted one, vectors and an audit chain."""
    settings = load_settings(db=str(db_path), log_file=str(tmp_path / "log"))
    service = build_service(settings, embedder=FakeEmbedder(dimension=16), background=False)
    try:
        for i in range(30):
            service.memories.add(f"migrated fact number {i} about the car park", project=f"p{i % 3}", tags=["t"])
        gone = service.memories.add("this one was deleted").memory
        service.memories.delete(gone.id)
        service.memories.add("another tenant's memory", caller=Caller(actor="bob", tenant="globex"))
        service.searcher.search("car park")
        service.searcher.reindex_embeddings()
    finally:
        service.close()
    return db_path


def test_migrate_copies_memories_vectors_and_the_audit_chain(filled_sqlite: Path, pg_url: str,
                                                             cli_env: dict[str, str], tmp_path: Path) -> None:
    result = _run(cli_env, "migrate", "--to", pg_url, "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] is True and report["problems"] == []
    assert report["counts"]["memories"] == {"source": 32, "target": 32}
    assert report["counts"]["memory_vectors"]["target"] == report["counts"]["memory_vectors"]["source"] > 0
    assert report["counts"]["audit_log"]["source"] == report["counts"]["audit_log"]["target"] > 30
    assert verify_database(pg_url).ok and verify_database(pg_url).rows == report["counts"]["audit_log"]["target"] + 1

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


def test_migrate_refuses_a_target_that_is_not_empty(filled_sqlite: Path, pg_url: str, cli_env: dict[str, str]) -> None:
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
