"""The start-up checks that read every row run beside the serving server (issue 21), and
closing the service waits for them: a thread still inside SQLite when the connections close
crashed the whole process (a segfault, seen in the test suite when a server stopped early)."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from audit_rows import audit_rows

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


def test_closing_a_server_waits_for_its_warm_up(tmp_path: Path) -> None:
    """A server closed the moment it started (stdin closed at once) must not leave the warm-up
    running: the process would exit under a thread inside numpy and abort."""
    import threading

    from memwarden import screening
    from memwarden.app import build_server_service
    from memwarden.screening import attack_model

    screening._patterns.cache_clear()
    attack_model.attack_model.cache_clear()
    service = build_server_service(load_settings(db=str(tmp_path / "m.db"), embedder="none", backup_keep=0))
    service.close()
    assert not [t for t in threading.enumerate() if t.name == "memwarden-warm"]
    assert attack_model.attack_model.cache_info().currsize == 1


def test_a_server_warms_its_write_path_at_start_and_writes_nothing(tmp_path: Path) -> None:
    """What a first add would wait for (screening's phrase patterns and model, the redaction
    rules) is built in a thread at start; the database gets no memory and no audit row from it."""
    import threading

    from memwarden import screening
    from memwarden.app import build_server_service
    from memwarden.screening import attack_model

    screening._patterns.cache_clear()
    attack_model.attack_model.cache_clear()
    settings = load_settings(db=str(tmp_path / "m.db"), embedder="none", backup_keep=0)
    service = build_server_service(settings)
    try:
        for thread in threading.enumerate():
            if thread.name == "memwarden-warm":
                thread.join(timeout=120)
        assert screening._patterns.cache_info().currsize == 1
        assert attack_model.attack_model.cache_info().currsize == 1
        assert service.intake._redactor is not None
        assert service.store.table_counts()["memories"] == 0
    finally:
        service.close()
    assert [row["op"] for row in audit_rows(tmp_path / "m.db") if row["op"] in {"add", "update"}] == []
