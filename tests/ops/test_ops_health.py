"""Health that really writes, and self-repair of a keyword index that cannot be written."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from memwarden.app import build_server_service, build_service
from memwarden.config import Settings
from memwarden.service import MemoryService


@pytest.fixture
def service(settings: Settings) -> Iterator[MemoryService]:
    svc = build_service(settings, ops=True)
    yield svc
    svc.close()


def _fill(service: MemoryService, n: int = 60) -> list[str]:
    return [
        service.memories.add(f"deployment note {i} about the payment gateway", project="ops").memory.id
        for i in range(n)
    ]


def _corrupt_fts_structure(db: Path) -> None:
    """Garble the FTS5 structure record: integrity_check still says ok, every index write fails."""
    conn = sqlite3.connect(db)
    conn.execute("UPDATE memories_fts_data SET block = x'0102030405' WHERE id = 10")
    conn.commit()
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def test_a_healthy_database_reports_ok_with_every_check(service: MemoryService) -> None:
    _fill(service, 5)
    report = service.operations.health()
    assert report["status"] == "ok"
    assert set(report["checks"]) == {
        "integrity",
        "keyword_index",
        "vectors",
        "backups",
        "vault",
        "operations",
        "clock",
        "audit_anchor",
        "audit_guards",
    }
    assert report["checks"]["audit_anchor"] == {"ok": True, "state": "not_configured"}
    assert report["checks"]["audit_guards"] == {"ok": True, "state": "ok", "findings": []}
    assert (
        report["checks"]["keyword_index"]["ok"] is True
        and report["checks"]["keyword_index"]["problem"] is None
    )
    assert report["checks"]["backups"]["state"] == "none_yet"


def test_the_probe_leaves_no_trace_in_the_index_or_the_table(service: MemoryService, db_path: Path) -> None:
    _fill(service, 3)
    service.operations.health()
    conn = sqlite3.connect(db_path)
    assert conn.execute("SELECT COUNT(*) FROM memories_fts").fetchone()[0] == 3
    assert conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 3
    conn.close()
    assert service.store.keyword_index_mismatch() is None


def test_a_corrupted_keyword_index_is_detected_and_rebuilt_by_health(
    service: MemoryService, db_path: Path
) -> None:
    ids = _fill(service)
    _corrupt_fts_structure(db_path)
    assert service.store.probe_keyword_index() is not None
    report = service.operations.health()
    index = report["checks"]["keyword_index"]
    assert "probe failed" in index["problem"]
    assert index["repaired"] is True and index["rebuilt_rows"] == len(ids) and index["ok"] is True
    assert report["status"] == "ok"
    found = service.searcher.search("payment gateway", limit=100)
    assert {h.memory.id for h in found.hits} == set(ids)
    assert service.memories.add("a new memory after the repair").duplicate is False


def test_without_repair_a_broken_index_makes_health_failing(service: MemoryService, db_path: Path) -> None:
    _fill(service, 10)
    _corrupt_fts_structure(db_path)
    report = service.operations.health(repair=False)
    assert report["status"] == "failing"
    assert report["checks"]["keyword_index"]["repaired"] is False
    assert service.store.probe_keyword_index() is not None


def test_an_index_missing_rows_is_rebuilt(service: MemoryService, db_path: Path) -> None:
    ids = _fill(service, 10)
    conn = sqlite3.connect(db_path)
    conn.execute("DELETE FROM memories_fts WHERE rowid IN (SELECT rowid FROM memories_fts LIMIT 4)")
    conn.commit()
    conn.close()
    report = service.operations.health()
    assert "holds 6 rows" in report["checks"]["keyword_index"]["problem"]
    assert report["checks"]["keyword_index"]["repaired"] is True
    assert len(service.searcher.search("payment", limit=100).hits) == len(ids)


def test_server_start_repairs_a_keyword_index_that_cannot_be_written(
    settings: Settings, db_path: Path
) -> None:
    seed = build_service(settings)
    ids = [seed.memories.add(f"invoice rule {i}").memory.id for i in range(30)]
    seed.close()
    _corrupt_fts_structure(db_path)
    service = build_server_service(settings)
    try:
        assert service.store.probe_keyword_index() is None
        assert {h.memory.id for h in service.searcher.search("invoice", limit=100).hits} == set(ids)
    finally:
        service.close()


def test_server_start_repairs_an_index_missing_rows_while_it_serves(
    settings: Settings, db_path: Path
) -> None:
    """The count comparison runs beside the started server (it reads every row: slow at 1M)."""
    seed = build_service(settings)
    ids = [seed.memories.add(f"invoice rule {i}").memory.id for i in range(30)]
    seed.close()
    conn = sqlite3.connect(db_path)
    conn.execute("DELETE FROM memories_fts WHERE rowid IN (SELECT rowid FROM memories_fts LIMIT 4)")
    conn.commit()
    conn.close()
    service = build_server_service(settings)
    try:
        deadline = time.monotonic() + 20
        while service.store.keyword_index_mismatch() is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert service.store.keyword_index_mismatch() is None
        assert {h.memory.id for h in service.searcher.search("invoice", limit=100).hits} == set(ids)
    finally:
        service.close()


def test_server_start_purges_long_expired_memories_while_it_serves(settings: Settings, db_path: Path) -> None:
    seed = build_service(settings)
    old = seed.memories.add("expired long ago", ttl_hours=1).memory
    keep = seed.memories.add("no expiry").memory
    seed.close()
    conn = sqlite3.connect(db_path)
    conn.execute("UPDATE memories SET expires_at = '2000-01-01T00:00:00.000000Z' WHERE id = ?", (old.id,))
    conn.commit()
    conn.close()
    service = build_server_service(settings)
    try:
        deadline = time.monotonic() + 20
        while service.memories.get([old.id])[0] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [m.id for m in service.memories.list(include_expired=True)] == [keep.id]
    finally:
        service.close()


def test_health_shows_the_last_backup_and_a_failed_verification(service: MemoryService) -> None:
    _fill(service, 3)
    assert service.operations.backups is not None
    record = service.operations.backups.backup()
    backups = service.operations.health()["checks"]["backups"]
    assert backups["state"] == "verified" and backups["last"]["path"] == record.path
    assert backups["last"]["age_seconds"] >= 0 and backups["kept"] == 1
    # A backup whose verification failed makes health degraded (still serving).
    service.operations.backups.backend.verify = lambda path, expected: {  # type: ignore[method-assign]
        "ok": False,
        "problems": ["row count of memories: 2 != 3 expected"],
        "counts": {},
        "audit": "absent",
    }
    service.operations.backups.backup()
    report = service.operations.health()
    assert report["status"] == "degraded"
    assert report["checks"]["backups"]["state"] == "failed_verification"


def test_purge_removes_only_memories_expired_past_the_grace_period(
    service: MemoryService, db_path: Path
) -> None:
    old = service.memories.add("expired long ago", ttl_hours=1).memory
    recent = service.memories.add("expired recently", ttl_hours=1).memory
    keep = service.memories.add("no expiry").memory
    base = old.created_at
    service.clock = lambda: base + timedelta(days=40)
    conn = sqlite3.connect(db_path)
    conn.execute(
        "UPDATE memories SET expires_at = ? WHERE id = ?",
        ((base + timedelta(days=20)).strftime("%Y-%m-%dT%H:%M:%S.%fZ"), recent.id),
    )
    conn.commit()
    conn.close()
    # 40 days passed with nothing recorded: indistinguishable from a clock set forward, so it takes force.
    assert service.operations.purge_expired(force=True) == [old.id]
    assert service.memories.get([old.id, recent.id, keep.id])[1] == [
        old.id
    ]  # recent is expired, not gone yet
    assert {m.id for m in service.memories.list(include_expired=True)} == {recent.id, keep.id}
    assert service.store.keyword_index_mismatch() is None


def test_vacuum_purges_and_compacts(service: MemoryService) -> None:
    for i in range(200):
        service.memories.add(f"temporary memory {i} " + "filler " * 50, ttl_hours=1)
    later = service.memories.list(include_expired=True)[0].created_at + timedelta(days=31, hours=2)
    service.clock = lambda: later
    result = service.operations.vacuum(force=True)  # 31 days with nothing recorded (see purge above)
    assert result["purged"] == 200
    assert result["bytes_after"] < result["bytes_before"]
    assert service.operations.health()["status"] == "ok"


def test_health_writes_a_vector_and_reports_memories_without_one(
    service: MemoryService, db_path: Path
) -> None:
    _fill(service, 4)
    vectors = service.operations.health()["checks"]["vectors"]
    assert vectors["store_write"] == "ok" and vectors["ok"] is True
    assert vectors["missing"] == 4  # no embedder configured: no memory has a vector
    conn = sqlite3.connect(db_path)
    assert conn.execute("SELECT COUNT(*) FROM memory_vectors").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 4  # the probe was rolled back
    conn.execute(
        "CREATE TRIGGER refuse_vectors BEFORE INSERT ON memory_vectors"
        " BEGIN SELECT RAISE(ABORT, 'vector writes refused'); END"
    )
    conn.commit()
    conn.close()
    report = service.operations.health()
    assert report["status"] == "degraded"
    assert "vector writes refused" in report["checks"]["vectors"]["problem"]
