"""A vault note's temporary file left by a killed writer is removed when the folder is next used."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from memwarden.app import build_service
from memwarden.config import load_settings


def test_temporary_files_of_killed_writers_are_removed_and_live_ones_kept(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    state = vault / ".memwarden"
    state.mkdir(parents=True)
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    os.kill(victim.pid, signal.SIGKILL)  # a real process, killed: its id is free now
    victim.wait(timeout=30)
    stale = state / f"tmp-{victim.pid}-140000000000000"
    stale.write_text("half a note")
    live = state / f"tmp-{os.getpid()}-1"  # this process is alive: never touched
    live.write_text("being written")
    service = build_service(
        load_settings(
            db=str(tmp_path / "m.db"),
            log_file=str(tmp_path / "m.log"),
            vault_dirs=str(vault),
            embedder="none",
        )
    )
    try:
        service.memories.add("a mirrored memory")
        assert service.operations.vault_flush(30)
    finally:
        service.close()
    assert not stale.exists() and live.exists()
