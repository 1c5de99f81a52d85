"""The WAL's -shm file deleted under a running service: every connection of the process is
reopened once, safely (a helper process holds the database while they close, so no checkpoint
runs on the stale index), nothing another process wrote is lost, health says what happened;
when the database file itself is damaged, the reopen fails with one line naming that."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from memwarden.errors import StorageError
from memwarden.service import MemoryService
from memwarden.store.sqlite.shm import shm_mappings


def memwarden(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memwarden", *argv], env=env, capture_output=True, text=True, timeout=120
    )


def test_a_deleted_shm_file_reopens_every_connection_and_loses_nothing(
    service: MemoryService, cli_env: dict[str, str], db_path: Path
) -> None:
    for i in range(20):
        service.memories.add(f"written by the server {i}")
    # The audit log opens a connection of its own on its first own read (its rows are appended
    # on the store's): read its head, so the log has one to be reopened too.
    assert service.auditor is not None and service.auditor.log.head().seq >= 20
    Path(f"{db_path}-shm").unlink()
    other = memwarden(cli_env, "add", "written by another process")  # makes a new -shm
    assert other.returncode == 0, other.stderr
    added = service.memories.add("written by the server after the reopen")
    assert not added.duplicate
    found = service.searcher.search("written", limit=50).hits
    assert len(found) == 22 and "written by another process" in {h.memory.content for h in found}
    mapped = shm_mappings(db_path)  # the stale index is no longer mapped, the current one is
    assert mapped and not any(m.endswith("(deleted)") for m in mapped)
    health = service.operations.health()
    connections = health["checks"]["connections"]
    assert health["status"] == "ok" and connections["state"] == "reopened"
    assert connections["reopened"][0]["cause"] == "shm_replaced"
    assert connections["reopened"][0]["connections_reopened"] >= 2  # the store's and the audit log's
    with closing(sqlite3.connect(db_path)) as conn:  # a fresh reader sees every row, file intact
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 22
    assert memwarden(cli_env, "audit", "verify").returncode == 0


def test_a_shm_deleted_with_no_other_process_is_rebuilt_from_the_wal(
    service: MemoryService, db_path: Path
) -> None:
    ids = [service.memories.add(f"only this process writes {i}").memory.id for i in range(10)]
    Path(f"{db_path}-shm").unlink()
    ids.append(service.memories.add("after the -shm was deleted").memory.id)
    assert [m.id for m in service.memories.list(limit=50)] and len(service.memories.list(limit=50)) == 11
    assert service.operations.health()["checks"]["connections"]["reopened"][0]["cause"] == "shm_deleted"
    with closing(sqlite3.connect(db_path)) as conn:
        assert {r[0] for r in conn.execute("SELECT id FROM memories")} == set(ids)


def test_a_damaged_database_file_is_named_and_not_reopened(service: MemoryService, db_path: Path) -> None:
    service.memories.add("before the damage")
    for suffix in ("-shm", "-wal"):  # lost with the main file's first page garbled: not a -shm problem
        Path(f"{db_path}{suffix}").unlink()
    with open(db_path, "r+b") as handle:
        handle.write(b"\x5a" * 4096)
    with pytest.raises(StorageError) as refused:
        service.memories.add("must not be written")
    assert "the database file itself is damaged" in refused.value.message
    assert "restore a backup" in refused.value.message
    with pytest.raises(StorageError, match="itself is damaged"):  # every later use says the same
        service.searcher.search("before")
    health = service.operations.health()
    connections = health["checks"]["connections"]
    assert health["status"] == "failing" and connections["state"] == "failed"
    assert "itself is damaged" in connections["problem"]


def test_a_connection_memwarden_does_not_manage_makes_the_reopen_unsafe_and_it_is_refused(
    service: MemoryService, db_path: Path
) -> None:
    service.memories.add("before")
    with closing(sqlite3.connect(db_path)) as foreign:  # e.g. a backup copying at that moment
        foreign.execute("SELECT COUNT(*) FROM memories").fetchone()
        Path(f"{db_path}-shm").unlink()
        with pytest.raises(StorageError) as refused:
            service.memories.add("must not be written through the stale index")
        assert "reopening is not safe" in refused.value.message and "restart" in refused.value.message
        health = service.operations.health()
        assert health["status"] == "failing" and health["checks"]["connections"]["state"] == "failed"
