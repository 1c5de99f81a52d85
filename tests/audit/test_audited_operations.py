"""Operations on the whole store leave audit rows too: the purge of expired memories (its row
commits with the purge), review, vault sync and health (real SQLite files; the purge also on
PostgreSQL)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.errors import StorageError
from memwarden.service import MemoryService
from memwarden.store.audit_logs import open_audit_log
from tests.contract.test_audit_in_write import _refuse_audit_rows
from tests.contract.test_audit_log import raw

BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


def rows(url: str | Path) -> list[dict[str, Any]]:
    log = open_audit_log(str(url), readonly=True)
    try:
        return [r.to_dict() for r in log.records()]
    finally:
        log.close()


def open_service(url: str, tmp_path: Path, **overrides: Any) -> MemoryService:
    settings = load_settings(
        db=url, log_file=str(tmp_path / "memwarden.log"), backup_dir=str(tmp_path / "backups"), **overrides
    )
    return build_service(settings, embeddings=False)


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "memwarden.db")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def any_service(url: str, tmp_path: Path) -> Iterator[MemoryService]:
    svc = open_service(url, tmp_path)
    yield svc
    svc.close()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "memwarden.db"


@pytest.fixture
def sqlite_service(db: Path, tmp_path: Path) -> Iterator[MemoryService]:
    svc = open_service(str(db), tmp_path)
    yield svc
    svc.close()


def _expire_long_ago(url: str, ids: list[str]) -> None:
    """Move the expiry of ``ids`` to the year 2000: past any grace period."""
    listed = ", ".join(f"'{memory_id}'" for memory_id in ids)  # ULIDs: nothing to quote
    raw(url)(f"UPDATE memories SET expires_at = '2000-01-01T00:00:00.000000Z' WHERE id IN ({listed})")


# -- purge ---------------------------------------------------------------------------------------


def test_a_purge_commits_one_row_naming_the_purged_memories(any_service: MemoryService, url: str) -> None:
    gone = [any_service.memories.add(f"short lived note {i}", ttl_hours=1).memory.id for i in range(3)]
    kept = any_service.memories.add("kept note").memory.id
    _expire_long_ago(url, gone)
    before = len(rows(url))
    assert sorted(any_service.operations.purge_expired()) == sorted(gone)
    new = rows(url)[before:]
    assert [(r["action"], r["outcome"]) for r in new] == [("purge", "ok")]
    assert new[0]["memory_ids"] == sorted(gone) and kept not in new[0]["memory_ids"]
    assert new[0]["result_count"] == 3
    assert new[0]["detail"]["purged"] == 3 and new[0]["detail"]["ids_listed"] == 3
    assert new[0]["actor"] == any_service.default_caller.actor
    # Nothing more to purge: no row, so a purge at every server start does not fill the log.
    assert any_service.operations.purge_expired() == []
    assert len(rows(url)) == before + 1


def test_a_purge_whose_row_cannot_be_written_removes_nothing(any_service: MemoryService, url: str) -> None:
    gone = any_service.memories.add("short lived note", ttl_hours=1).memory.id
    _expire_long_ago(url, [gone])
    _refuse_audit_rows(url)
    with pytest.raises(StorageError, match="audit rows refused"):
        any_service.operations.purge_expired()
    assert [m.id for m in any_service.store.get_many(any_service.default_caller.tenant, [gone])] == [gone]


def test_a_large_purge_names_its_count_and_only_the_first_ids(
    sqlite_service: MemoryService, db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memwarden.audit import write_audit

    monkeypatch.setattr(write_audit, "PURGE_IDS_LISTED", 2)
    gone = [sqlite_service.memories.add(f"short lived note {i}", ttl_hours=1).memory.id for i in range(5)]
    _expire_long_ago(str(db), gone)
    sqlite_service.operations.purge_expired()
    row = rows(db)[-1]
    assert row["action"] == "purge" and row["result_count"] == 5
    assert row["memory_ids"] == sorted(gone)[:2]
    assert row["detail"]["purged"] == 5 and row["detail"]["ids_listed"] == 2


def test_vacuum_records_its_purge(sqlite_service: MemoryService, db: Path) -> None:
    gone = sqlite_service.memories.add("short lived note", ttl_hours=1).memory.id
    _expire_long_ago(str(db), [gone])
    assert sqlite_service.operations.vacuum()["purged"] == 1
    assert [(r["action"], r["memory_ids"]) for r in rows(db)][-1] == ("purge", [gone])


# -- review --------------------------------------------------------------------------------------


def test_review_writes_a_row_with_the_memories_it_shows(sqlite_service: MemoryService, db: Path) -> None:
    added = sqlite_service.memories.add("never searched for, proposed by review", project="p").memory
    old, later = added.id, added.created_at + timedelta(days=10)
    sqlite_service.clock = lambda: later
    report = sqlite_service.operations.review(project="p")
    assert [item["id"] for item in report["never_retrieved"]] == [old]
    row = rows(db)[-1]
    assert (row["action"], row["outcome"], row["project"]) == ("review", "ok", "p")
    assert row["memory_ids"] == [old] and row["result_count"] == 1
    assert row["detail"]["reviewed"] == 1


def test_a_refused_review_records_its_error(sqlite_service: MemoryService, db: Path) -> None:
    with pytest.raises(Exception, match="limit"):
        sqlite_service.operations.review(limit=0)
    assert [(r["action"], r["outcome"]) for r in rows(db)] == [("review", "invalid_input")]


def test_review_fails_closed_when_its_row_cannot_be_written(sqlite_service: MemoryService, db: Path) -> None:
    sqlite_service.memories.add("a memory review would show")
    _refuse_audit_rows(str(db))
    with pytest.raises(
        StorageError, match="the review was refused because its audit row could not be written"
    ):
        sqlite_service.operations.review()


# -- vault sync ----------------------------------------------------------------------------------


def test_vault_sync_writes_a_row_before_any_note(db: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    service = open_service(str(db), tmp_path, vault_dirs=str(vault))
    try:
        ids = [service.memories.add(f"mirrored note {i}").memory.id for i in range(2)]
        service.operations.vault_flush()
        report = service.operations.vault_sync()
    finally:
        service.close()
    assert report["ok"] and report["memories"] == 2
    row = rows(db)[-1]
    assert (row["action"], row["outcome"], row["result_count"]) == ("vault_sync", "ok", 2)
    assert sorted(row["memory_ids"]) == sorted(ids)
    assert row["detail"]["folders"] == [str(vault)]


def test_vault_sync_is_refused_and_writes_no_note_when_its_row_cannot_be_written(
    db: Path, tmp_path: Path
) -> None:
    seed = open_service(str(db), tmp_path)
    seed.memories.add("the secret launch date is March 3")
    seed.close()
    _refuse_audit_rows(str(db))
    vault = tmp_path / "vault"
    vault.mkdir()
    service = open_service(str(db), tmp_path, vault_dirs=str(vault))
    try:
        with pytest.raises(StorageError, match="the vault sync was refused"):
            service.operations.vault_sync()
    finally:
        service.close()
    assert list(vault.rglob("*.md")) == []


def test_vault_sync_without_folders_records_its_error(sqlite_service: MemoryService, db: Path) -> None:
    with pytest.raises(Exception, match="MEMWARDEN_VAULT_DIRS"):
        sqlite_service.operations.vault_sync()
    assert [(r["action"], r["outcome"]) for r in rows(db)] == [("vault_sync", "config_error")]


# -- health --------------------------------------------------------------------------------------


def test_health_writes_a_row_with_its_status(sqlite_service: MemoryService, db: Path) -> None:
    report = sqlite_service.operations.health()
    row = rows(db)[-1]
    assert (row["action"], row["outcome"]) == ("health", "ok")
    assert row["detail"]["status"] == report["status"]


def test_health_still_answers_when_its_row_cannot_be_written(sqlite_service: MemoryService, db: Path) -> None:
    """Health is how a damaged database is diagnosed: its row is best effort (logged when lost)."""
    _refuse_audit_rows(str(db))
    report = sqlite_service.operations.health()
    assert report["status"] in ("ok", "degraded", "failing")
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT COUNT(*) FROM audit_log").fetchone()[0] == 0
    conn.close()
