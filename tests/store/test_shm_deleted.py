"""The WAL's -shm file deleted under a running service: the service stops reading and writing
with one line naming the real cause (instead of "file is not a database", stale reads, or commits
over another process's rows), health says so, and a fresh process sees every row."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memwarden.errors import StorageError
from memwarden.service import MemoryService


def test_a_deleted_shm_file_is_named_and_nothing_another_process_wrote_is_lost(
    service: MemoryService, cli_env: dict[str, str], db_path: Path
) -> None:
    for i in range(20):
        service.memories.add(f"written by the server {i}")
    Path(f"{db_path}-shm").unlink()
    other = subprocess.run(
        [sys.executable, "-m", "memwarden", "add", "written by another process"],
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert other.returncode == 0, other.stderr
    with pytest.raises(StorageError) as refused:
        service.memories.add("must not be committed over the other process's rows")
    assert "-shm was replaced while memwarden had the database open" in refused.value.message
    assert "restart" in refused.value.message
    with pytest.raises(StorageError, match="-shm was replaced"):
        service.searcher.search("written")
    health = service.operations.health()
    assert health["status"] == "failing" and health["checks"]["connections"]["state"] == "shm_replaced"
    # A fresh process sees every row: the other process's write was not overwritten.
    listed = subprocess.run(
        [sys.executable, "-m", "memwarden", "list", "--json", "--limit", "100"],
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stderr
    assert "written by another process" in listed.stdout and listed.stdout.count("written by") == 21
    assert "must not be committed" not in listed.stdout
