"""Verified backups and restore on real SQLite files."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from audit_rows import audit_rows

from memwarden.app import build_backups, build_server_service, build_service
from memwarden.config import Settings, load_settings
from memwarden.errors import InvalidInput, StorageError
from memwarden.ops.backup import LAST, SIDECAR
from memwarden.service import MemoryService


@pytest.fixture
def service(settings: Settings) -> Iterator[MemoryService]:
    """The service as servers and the ops commands build it: with backups."""
    svc = build_service(settings, ops=True)
    yield svc
    svc.close()


def _all_rows(db: Path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(db)
    try:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
                " AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' AND name != 'schema_migrations' ORDER BY name"
            )
        ]
        return {t: conn.execute(f'SELECT * FROM "{t}" ORDER BY 1').fetchall() for t in tables}
    finally:
        conn.close()


def test_backup_is_verified_and_recorded_next_to_the_file(service: MemoryService, tmp_path: Path) -> None:
    for i in range(20):
        service.memories.add(f"backup fact {i}", project="ops")
    assert service.operations.backups is not None
    record = service.operations.backups.backup(reason="manual")
    assert record.verified is True and record.problems == []
    assert record.counts["memories"] == 20
    backup = Path(record.path)
    assert backup.parent == tmp_path / "backups"
    sidecar = json.loads(backup.with_name(backup.name + SIDECAR).read_text())
    assert sidecar["verified"] is True and sidecar["counts"]["memories"] == 20
    last = service.operations.backups.last()
    assert last is not None and last["path"] == record.path and last["age_seconds"] >= 0
    conn = sqlite3.connect(backup)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    assert conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 20
    conn.close()


def test_backup_includes_writes_still_in_the_wal(service: MemoryService, db_path: Path) -> None:
    service.memories.add("only in the write-ahead log so far")
    assert Path(f"{db_path}-wal").stat().st_size > 0
    assert service.operations.backups is not None
    record = service.operations.backups.backup()
    conn = sqlite3.connect(record.path)
    assert conn.execute("SELECT content FROM memories").fetchall() == [
        ("only in the write-ahead log so far",)
    ]
    conn.close()


def test_backup_out_refuses_to_overwrite_an_existing_file(service: MemoryService, tmp_path: Path) -> None:
    target = tmp_path / "mine.db"
    target.write_bytes(b"precious")
    assert service.operations.backups is not None
    with pytest.raises(InvalidInput, match="never overwrite"):
        service.operations.backups.backup(out=target)
    assert target.read_bytes() == b"precious"
    assert not list(tmp_path.glob(".mine.db.partial*"))


def test_a_damaged_backup_fails_verification(service: MemoryService, tmp_path: Path) -> None:
    for i in range(200):
        service.memories.add(f"padding memory number {i} " + "x" * 200)
    assert service.operations.backups is not None
    record = service.operations.backups.backup()
    raw = bytearray(Path(record.path).read_bytes())
    raw[4096 * 3 : 4096 * 3 + 512] = b"\xff" * 512
    Path(record.path).write_bytes(bytes(raw))
    check = service.operations.backups.backend.verify(Path(record.path), record.counts)
    assert check["ok"] is False and check["problems"]


def test_server_start_takes_a_backup_before_migrating_and_keeps_only_the_newest(
    settings: Settings, tmp_path: Path, db_path: Path
) -> None:
    seed = build_service(settings)
    seed.memories.add("seed memory")
    seed.close()
    keep3 = load_settings(**{**settings.model_dump(), "backup_keep": 3, "http_token": None})
    taken = []
    for _ in range(5):
        service = build_server_service(keep3)
        assert service.operations.backups is not None
        assert service.operations.backups.wait_for_start_backup(60)  # taken in the background
        assert service.operations.health()["checks"]["backups"]["startup"]["state"] == "verified"
        taken.append(service.operations.backups.last()["path"])
        service.close()
    kept = build_backups(keep3).kept()  # type: ignore[union-attr]
    assert [str(p) for p in kept] == taken[-3:]
    assert not any(Path(p).exists() for p in taken[:2])
    assert all(p.with_name(p.name + SIDECAR).exists() for p in kept)
    assert json.loads((tmp_path / "backups" / LAST).read_text())["reason"] == "start"
    # Each start-up backup is recorded as `memwarden backup` is: one backup row each.
    rows = [r for r in audit_rows(db_path) if r["action"] == "backup"]
    assert len(rows) == 5 and all(r["outcome"] == "ok" for r in rows)


def test_no_start_backup_for_a_new_database_or_with_keep_zero(settings: Settings, tmp_path: Path) -> None:
    service = build_server_service(settings)
    assert service.operations.backups is not None and service.operations.backups.kept() == []
    service.memories.add("now there is data")
    service.close()
    off = load_settings(**{**settings.model_dump(), "backup_keep": 0, "http_token": None})
    build_server_service(off).close()
    assert build_backups(off).kept() == []  # type: ignore[union-attr]


def test_restoring_each_kept_backup_gives_identical_rows(service: MemoryService, db_path: Path) -> None:
    assert service.operations.backups is not None
    snapshots = []
    ids = []
    for round_ in range(4):
        for i in range(5):
            ids.append(
                service.memories.add(
                    f"round {round_} memory {i}", project=f"p{round_ % 2}", tags=["r"]
                ).memory.id
            )
        service.memories.update(ids[0], content=f"first memory as of round {round_}")
        service.memories.delete(ids[-1])
        service.searcher.search("memory")
        record = service.operations.backups.backup()
        assert record.verified
        snapshots.append((record.path, _all_rows(Path(record.path))))
    for path, rows in snapshots:
        plan = service.operations.backups.plan_restore(Path(path))
        assert plan["memories_after"] == len([r for r in rows["memories"] if r[13] is None])
        result = service.operations.backups.restore(Path(path))
        assert result["matches_backup"] is True, result["after"]
        live = _all_rows(db_path)
        # The restored chain is the backup's plus one `restore` row that names the rewind.
        restore_row = live["audit_log"][-1]
        assert live["audit_log"][:-1] == rows["audit_log"] and restore_row[5] == "restore"
        detail = json.loads(restore_row[14])
        assert detail["backup"] == str(Path(path).resolve()) and detail["previous_head"]["seq"] > 0
        assert {k: v for k, v in live.items() if not k.startswith("audit")} == {
            k: v for k, v in rows.items() if not k.startswith("audit")
        }
        assert service.store.keyword_index_mismatch() is None
        assert result["after"]["audit"] == "verified" and record.audit == "verified"
    # The service keeps working on the restored file, and its audit chain still verifies.
    service.memories.add("written after the last restore")
    from memwarden.store.audit_logs import verify_database

    assert verify_database(str(db_path)).ok


def test_restore_plan_says_what_would_change_and_changes_nothing(
    service: MemoryService, db_path: Path
) -> None:
    assert service.operations.backups is not None
    kept = service.memories.add("kept memory").memory
    changed = service.memories.add("changed memory").memory
    record = service.operations.backups.backup()
    service.memories.update(changed.id, content="changed memory, edited")
    new = service.memories.add("added after the backup").memory
    before = _all_rows(db_path)
    plan = service.operations.backups.plan_restore(Path(record.path))
    assert plan["removed"] == [new.id] and plan["changed"] == [changed.id] and plan["added"] == []
    assert plan["unchanged"] == 1 and kept.id not in plan["changed"]
    assert _all_rows(db_path) == before


def test_restore_keeps_the_replaced_database_as_a_backup(service: MemoryService) -> None:
    assert service.operations.backups is not None
    record = service.operations.backups.backup()
    after = service.memories.add("written after the backup").memory
    result = service.operations.backups.restore(Path(record.path))
    saved = Path(result["previous_saved_as"])
    assert "pre-restore" in saved.name
    conn = sqlite3.connect(saved)
    assert conn.execute("SELECT id FROM memories").fetchall() == [(after.id,)]
    conn.close()
    assert service.memories.get([after.id])[0] == []


def test_restore_refuses_a_file_that_is_not_a_memwarden_backup(
    service: MemoryService, tmp_path: Path, db_path: Path
) -> None:
    assert service.operations.backups is not None
    service.memories.add("must survive")
    before = _all_rows(db_path)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite" * 100)
    other = tmp_path / "other.db"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t(x)")
    conn.commit()
    conn.close()
    for bad in (junk, other, tmp_path / "missing.db"):
        with pytest.raises(InvalidInput):
            service.operations.backups.restore(bad)
    assert _all_rows(db_path) == before
    assert service.operations.backups.kept() == []


def test_servers_starting_together_each_take_a_verified_backup(
    settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    import logging
    import threading

    caplog.set_level(logging.WARNING)

    seed = build_service(settings)
    for i in range(50):
        seed.memories.add(f"memory {i} before the servers start")
    seed.close()
    errors: list[BaseException] = []
    records: list[str] = []

    def start() -> None:
        try:
            service = build_server_service(settings)
            assert service.operations.backups is not None
            assert service.operations.backups.wait_for_start_backup(60)
            records.append(str(service.operations.backups.last()["path"]))
            service.close()
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    assert "rebuilding" not in caplog.text  # their keyword-index probes did not trip over each other
    kept = build_backups(settings).kept()  # type: ignore[union-attr]
    assert len(kept) == 4
    for path in kept:
        assert json.loads(path.with_name(path.name + SIDECAR).read_text())["verified"] is True


def test_the_start_backup_is_taken_before_migrations_and_restores_across_versions(
    settings: Settings, db_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from memwarden.store.sqlite import migrations

    conn = sqlite3.connect(db_path, isolation_level=None)
    migrations.migrate(conn, migrations.MIGRATIONS[:1])  # a database from the first release
    conn.execute(
        "INSERT INTO memories (id, tenant, project, kind, content, content_hash, created_at, updated_at)"
        " VALUES ('01JD3Z5X9Q2W8E7R6T5Y4V3K2M', 'default', 'default', 'fact', 'from the old release', 'h',"
        " '2025-01-01T00:00:00.000000Z', '2025-01-01T00:00:00.000000Z')"
    )
    conn.close()
    service = build_server_service(settings)
    try:
        assert service.operations.backups is not None
        old = Path(service.operations.backups.last()["path"])
        backup = sqlite3.connect(old)
        assert backup.execute("PRAGMA user_version").fetchone()[0] == 1  # copied before migrating
        backup.close()
        live = sqlite3.connect(db_path)
        assert live.execute("PRAGMA user_version").fetchone()[0] == len(migrations.MIGRATIONS)
        live.close()
    finally:
        service.close()
    # Restoring that old backup through the CLI migrates it again and leaves a healthy database.
    from memwarden.cli.main import main

    for key, value in {
        "MEMWARDEN_DB": str(db_path),
        "MEMWARDEN_BACKUP_DIR": str(settings.backup_path()),
        "MEMWARDEN_LOG_FILE": str(settings.log_path()),
    }.items():
        monkeypatch.setenv(key, value)
    assert main(["restore", str(old), "--yes", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["matches_backup"] is True and result["health_after"] == "ok"
    live = sqlite3.connect(db_path)
    assert live.execute("PRAGMA user_version").fetchone()[0] == len(migrations.MIGRATIONS)
    assert live.execute("SELECT content FROM memories").fetchall() == [("from the old release",)]
    live.close()


def test_a_backup_that_cannot_be_written_is_an_error_and_health_shows_it(
    settings: Settings, tmp_path: Path
) -> None:
    service = build_service(settings, ops=True)
    try:
        service.memories.add("something to back up")
        assert service.operations.backups is not None
        (tmp_path / "not-a-folder").write_text("a file, not a folder")
        with pytest.raises(StorageError, match="backup failed"):
            service.operations.backups.backup(out=tmp_path / "not-a-folder" / "x.db")
        backups = service.operations.health()["checks"]["backups"]
        # Recorded as a failure with no file, never as a (0-byte) backup.
        assert backups["state"] == "failed" and "cannot write" in backups["last"]["problems"][0]
        assert backups["last"]["path"] == "" and backups["last"]["exists"] is False
    finally:
        service.close()


def test_a_failed_start_backup_blocks_only_a_pending_migration(
    settings: Settings, db_path: Path, tmp_path: Path
) -> None:
    from memwarden.store.sqlite import migrations

    blocker = tmp_path / "blocked"
    blocker.write_text("a file where the backup folder should be")
    broken = load_settings(
        **{**settings.model_dump(), "backup_dir": str(blocker / "backups"), "http_token": None}
    )
    conn = sqlite3.connect(db_path, isolation_level=None)
    migrations.migrate(conn, migrations.MIGRATIONS[:1])
    conn.execute(
        "INSERT INTO memories (id, tenant, project, kind, content, content_hash, created_at, updated_at)"
        " VALUES ('01JD3Z5X9Q2W8E7R6T5Y4V3K2M', 'default', 'default', 'fact', 'old', 'h',"
        " '2025-01-01T00:00:00.000000Z', '2025-01-01T00:00:00.000000Z')"
    )
    conn.close()
    with pytest.raises(StorageError, match="does not migrate without a backup"):
        build_server_service(broken)
    conn = sqlite3.connect(db_path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 1  # not migrated
    conn.close()
    build_server_service(settings).close()  # with a working folder: backed up, then migrated
    build_server_service(broken).close()  # up to date now: starts, and logs the failed backup
