"""Several processes on one SQLite file, and a process killed in the middle of writing."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memwarden.text.analyzer import Analyzer

WRITER = """
import sys
from memwarden.app import build_service
from memwarden.config import load_settings
worker, count = int(sys.argv[1]), int(sys.argv[2])
service = build_service(load_settings())
for i in range(count):
    service.memories.add(f"worker {worker} memory {i} about concurrent writes", project=f"p{worker % 3}")
service.close()
print("done")
"""

STREAM = """
import sys
from memwarden.app import build_service
from memwarden.config import load_settings
service = build_service(load_settings())
i = 0
while True:
    result = service.memories.add(f"acknowledged memory {i}")
    print(result.memory.id, flush=True)
    i += 1
"""


@pytest.mark.slow
def test_eight_processes_adding_500_each_lose_nothing(cli_env: dict[str, str], db_path: Path) -> None:
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(n), "500"],
            env=cli_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(8)
    ]
    outputs = [p.communicate(timeout=600) for p in processes]
    for process, (out, err) in zip(processes, outputs, strict=True):
        assert process.returncode == 0, err
        assert "locked" not in err
        assert out.strip() == "done"
    conn = sqlite3.connect(db_path)
    assert conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0] == 4000
    assert conn.execute("SELECT COUNT(DISTINCT id) FROM memories").fetchone()[0] == 4000
    assert conn.execute("SELECT COUNT(*) FROM memories_fts").fetchone()[0] == 4000
    # The index holds analyzed terms ("concurrent" is stemmed), so ask the analyzer for the term.
    term = Analyzer().terms("concurrent")[0]
    matched = conn.execute(
        "SELECT COUNT(*) FROM memories_fts WHERE memories_fts MATCH ?", (f'"{term}"',)
    ).fetchone()[0]
    assert matched == 4000
    orphans = conn.execute(
        "SELECT COUNT(*) FROM memories_fts f LEFT JOIN memories m ON m.rowid = f.rowid WHERE m.rowid IS NULL"
    ).fetchone()[0]
    assert orphans == 0
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_sigkill_mid_stream_keeps_every_acknowledged_add(cli_env: dict[str, str], db_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", STREAM], env=cli_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    acknowledged: list[str] = []
    assert process.stdout is not None
    deadline = time.monotonic() + 120
    while len(acknowledged) < 200 and time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        acknowledged.append(line.strip())
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    # Ids printed after we stopped reading were acknowledged too: collect them.
    acknowledged += [line.strip() for line in process.stdout.read().splitlines() if line.strip()]
    process.stdout.close()
    process.stderr.close() if process.stderr else None
    assert len(acknowledged) >= 200
    conn = sqlite3.connect(db_path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    stored = {row[0] for row in conn.execute("SELECT id FROM memories")}
    assert set(acknowledged) <= stored
    assert conn.execute("SELECT COUNT(*) FROM memories_fts").fetchone()[0] == len(stored)
