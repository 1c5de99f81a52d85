"""The start-up checks that read every row run beside the serving server (issue 21), and
closing the service waits for them: a thread still inside SQLite when the connections close
crashed the whole process (a segfault, seen in the test suite when a server stopped early)."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memwarden.app import build_service
from memwarden.config import load_settings

SCRIPT = """
import sys
from memwarden.app import build_server_service
from memwarden.config import load_settings

settings = load_settings(db=sys.argv[1], embedder="none", audit=False, backup_keep=0, log_file=sys.argv[2])
for _ in range(int(sys.argv[3])):
    build_server_service(settings).close()  # closed while its start-up purge runs
print("closed")
"""


def test_a_server_closed_during_its_start_checks_waits_for_them(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    settings = load_settings(db=str(db), embedder="none", audit=False)
    service = build_service(settings, embeddings=False)
    long_ago = datetime.now(UTC) - timedelta(days=400)
    service.clock = lambda: long_ago
    for i in range(1500):
        service.memories.add(f"expired memory number {i} about the old release", ttl_hours=1)
    service.close()

    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(db), str(tmp_path / "log"), "3"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]  # was -11 (SIGSEGV) now and then
    assert done.stdout.strip() == "closed"
    reopened = build_service(settings, embeddings=False)
    try:
        # the first start's purge ran to its end before the service closed
        stats = reopened.memories.stats()
        assert stats["memories"] == stats["expired"] == 0
    finally:
        reopened.close()
