"""Faults give one clear line and lose nothing (issue 14): a full disk on a real small tmpfs,
damaged keyword-index pages, damaged and cut -wal files, a read-only folder, the clock moved
back. Real SQLite files throughout; the disk-full tests mount a tmpfs (they need root)."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from datetime import timedelta
from pathlib import Path
from typing import Any

import anyio
import pytest

from memwarden.app import build_server_service, build_service
from memwarden.config import Settings, load_settings
from memwarden.errors import Conflict, StorageError
from memwarden.models import utcnow
from memwarden.service import MemoryService
from tests.mcp_helpers import call_error, mcp_client
from tests.small_disk import fill, small_disk


def _settings(folder: Path, **extra: Any) -> Settings:
    return load_settings(
        db=str(folder / "memwarden.db"),
        embedder="none",
        log_file=str(folder / "memwarden.log"),
        backup_dir=str(folder / "backups"),
        backup_keep=0,
        **extra,
    )


def _live_ids(db: Path) -> set[str]:
    with closing(sqlite3.connect(db)) as conn:
        return {row[0] for row in conn.execute("SELECT id FROM memories WHERE deleted_at IS NULL")}


def _integrity(db: Path) -> str:
    with closing(sqlite3.connect(db)) as conn:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])


def test_a_full_disk_names_the_file_and_the_condition_on_every_path_and_loses_nothing(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk", "3m") as disk:
        settings = _settings(disk)
        db = Path(settings.db)
        service = build_service(settings, embeddings=False, ops=True)
        acknowledged = [
            service.memories.add(f"kept memory {i} " + "words " * 40).memory.id for i in range(20)
        ]
        fill(disk, leave=48 * 1024)
        failures: list[str] = []
        for i in range(400):
            try:
                acknowledged.append(
                    service.memories.add(f"memory while filling {i} " + "padding " * 60).memory.id
                )
            except StorageError as exc:
                failures.append(exc.message)
                if len(failures) >= 5:
                    break
        assert failures, "the disk never filled up"
        assert all("disk is full" in m and str(db) in m for m in failures), failures

        def clear(call: Any) -> str | None:
            try:
                call()
            except StorageError as exc:
                return exc.message
            return None

        update = clear(
            lambda: service.memories.update(acknowledged[0], content="changed while full " + "x " * 400)
        )
        assert update is not None and "disk is full" in update and str(db) in update
        search = clear(lambda: service.searcher.search("memory"))
        assert search is None or ("disk is full" in search and str(db) in search)
        assert service.operations.backups is not None
        backup = clear(lambda: service.operations.backups.backup())  # type: ignore[union-attr]
        assert backup is not None and "disk is full" in backup and str(disk / "backups") in backup

        async def over_mcp() -> str:
            async with mcp_client(service) as client:
                return await call_error(
                    client, "memory_add", {"content": "an add over MCP on a full disk " * 20}
                )

        message = anyio.run(over_mcp)
        assert "disk is full" in message and str(db) in message  # was only "Error executing tool memory_add"
        service.close()
        (disk / "filler").unlink()
        assert _integrity(db) == "ok"
        assert set(acknowledged) <= _live_ids(db), "an acknowledged add was lost"
        again = build_service(settings, embeddings=False)
        try:
            assert again.memories.get(acknowledged)[1] == []
            assert again.memories.add("room again after freeing space").duplicate is False
        finally:
            again.close()


def _garble_pages_of(db: Path, table: str) -> None:
    """Overwrite the b-tree pages of ``table`` (a physical corruption, as a bad disk would)."""
    with closing(sqlite3.connect(db)) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
    raw = bytearray(db.read_bytes())
    start = page_size * (root - 1)
    raw[start + 8 : start + page_size] = b"\x5a" * (page_size - 8)
    db.write_bytes(bytes(raw))


def _seed(settings: Settings, n: int = 200) -> list[str]:
    seed = build_service(settings, embeddings=False)
    try:
        return [
            seed.memories.add(f"invoice rule {i}: pay within {i % 30} days " + "terms " * 10).memory.id
            for i in range(n)
        ]
    finally:
        seed.close()


def test_a_damaged_keyword_index_page_gives_clear_errors_and_is_rebuilt_by_health(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    ids = _seed(settings)
    _garble_pages_of(Path(settings.db), "memories_fts_data")
    service = build_service(settings, embeddings=False, ops=True)
    try:
        for call in (
            lambda: service.searcher.search("invoice"),
            lambda: service.memories.add("written over a damaged index"),
        ):
            try:
                call()
            except StorageError as exc:  # not a raw sqlite3.DatabaseError
                assert str(settings.db) in exc.message and "damaged" in exc.message
        report = service.operations.health()
        index = report["checks"]["keyword_index"]
        assert index["repaired"] is True and index["ok"] is True, index
        found = {h.memory.id for h in service.searcher.search("invoice rule", limit=100).hits}
        assert len(found) == 100 and found <= set(ids)
        assert service.memories.add("a memory after the repair").duplicate is False
    finally:
        service.close()
    assert _integrity(Path(settings.db)) == "ok"


def test_a_damaged_keyword_index_page_is_rebuilt_at_server_start(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    ids = _seed(settings, 120)
    _garble_pages_of(Path(settings.db), "memories_fts_data")
    service = build_server_service(settings)
    try:
        assert service.store.probe_keyword_index() is None  # type: ignore[attr-defined]
        assert {h.memory.id for h in service.searcher.search("invoice", limit=100).hits} <= set(ids)
        assert len(service.searcher.search("invoice", limit=100).hits) == 100
    finally:
        service.close()
    assert _integrity(Path(settings.db)) == "ok"


def _wal_copy(settings: Settings, target: Path, n_before: int, n_after: int) -> tuple[set[str], set[str]]:
    """A copy of the database and its -wal taken while a writer holds it open (as after a crash):
    ``n_before`` memories checkpointed into the main file, ``n_after`` more only in the -wal."""
    service = build_service(settings, embeddings=False)
    db = Path(settings.db)
    try:
        before = {service.memories.add(f"checkpointed memory {i}").memory.id for i in range(n_before)}
        service.store.connection().execute("PRAGMA wal_checkpoint(TRUNCATE)")  # type: ignore[attr-defined]
        after = {service.memories.add(f"memory only in the wal {i}").memory.id for i in range(n_after)}
        target.mkdir()
        shutil.copy(db, target / db.name)
        shutil.copy(db.with_name(db.name + "-wal"), target / (db.name + "-wal"))
    finally:
        service.close()
    return before, after


@pytest.mark.parametrize("damage", ["truncated", "garbled"])
def test_a_damaged_or_cut_wal_opens_to_a_consistent_earlier_state(tmp_path: Path, damage: str) -> None:
    before, after = _wal_copy(_settings(tmp_path / "live"), tmp_path / "crashed", 30, 30)
    crashed = tmp_path / "crashed" / "memwarden.db"
    wal = crashed.with_name(crashed.name + "-wal")
    raw = bytearray(wal.read_bytes())
    if damage == "truncated":
        raw = raw[: len(raw) * 2 // 3 + 77]  # cut in the middle of a frame
    else:
        middle = len(raw) // 2
        raw[middle : middle + 512] = b"\xa5" * 512  # a checksum mismatch from here on
    wal.write_bytes(bytes(raw))
    service = build_service(_settings(tmp_path / "crashed"), embeddings=False)
    try:
        live = {m.id for m in service.memories.list(limit=100)}
        assert before <= live and live <= before | after  # old state or a prefix of the new one
        found = {h.memory.id for h in service.searcher.search("memory", limit=100).hits}
        assert found == live  # the keyword index agrees with the table it was committed with
        assert service.memories.add("written after recovery").duplicate is False
    finally:
        service.close()
    assert _integrity(crashed) == "ok"


def test_a_read_only_folder_names_the_real_problem_not_a_migration(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    settings = _settings(folder)
    _seed(settings, 3)
    mounted = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot bind-mount here (needs root): {mounted.stderr.strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(folder)], check=True, capture_output=True)
        env = {**cli_env, "MEMWARDEN_DB": settings.db, "MEMWARDEN_BACKUP_DIR": str(folder / "backups")}
        for args in (["serve"], ["search", "invoice"], ["add", "a new memory"]):
            result = subprocess.run(
                [sys.executable, "-m", "memwarden", *args],
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert result.returncode == 1, (args, result.stderr)
            assert f"the folder {folder} is read-only" in result.stderr, (args, result.stderr)
            assert "migration is pending" not in result.stderr and "Traceback" not in result.stderr
    finally:
        subprocess.run(["umount", str(folder)], check=True, capture_output=True)


def test_ttl_holds_when_the_clock_is_moved_back(settings: Settings) -> None:
    now = [utcnow()]
    service: MemoryService = build_service(settings, embeddings=False)
    service.clock = lambda: now[0]
    try:
        keep = service.memories.add("expires an hour after it was stored", ttl_hours=1).memory
        now[0] -= timedelta(hours=5)  # the clock jumps back (NTP step, VM restore)
        assert [h.memory.id for h in service.searcher.search("expires").hits] == [
            keep.id
        ]  # not expired, no error
        earlier = service.memories.add("stored while the clock was behind", ttl_hours=1).memory
        assert earlier.expires_at is not None and earlier.expires_at < keep.expires_at  # type: ignore[operator]
        with pytest.raises(Conflict, match="clock"):  # a purge on a clock behind the audit log refuses
            service.operations.purge_expired()
        now[0] += timedelta(hours=5, minutes=61)  # back to real time, past the first one's expiry
        found = {h.memory.id for h in service.searcher.search("stored").hits}
        assert keep.id not in found and earlier.id not in found
        assert {h.memory.id for h in service.searcher.search("stored", include_expired=True).hits} >= {
            keep.id
        }
    finally:
        service.close()
