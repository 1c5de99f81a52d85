"""The soak bench, short: clients of every kind while the daemon is killed, a disk fills and a
backup runs; no acknowledged write is lost and the audit chain verifies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SOAK = Path(__file__).parents[2] / "bench" / "soak.py"


@pytest.mark.slow
def test_a_short_soak_loses_no_acknowledged_write_and_the_audit_verifies() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(SOAK),
            *(
                "--minutes",
                "2",
                "--kill-every",
                "25",
                "--disk-full-s",
                "10",
                "--embedder",
                "none",
                "--json",
            ),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = json.loads(done.stdout)
    assert report["lost"] == 0, report["lost_examples"]
    assert report["audit_verify"]["exit"] == 0, report["audit_verify"]["output"]
    assert report["kills"] >= 3
    # Every error is one the kills and the full disk explain (the relay's daemon_restarted, an
    # HTTP session reopened after a kill, refusals naming the full disk): none is unexpected,
    # and a hook route never answers 500 (it was the full disk's refused audit row).
    assert report["unexpected_total"] == 0, report["unexpected"]
    assert not [kind for kind in report["errors"] if kind.startswith("hook_recall/http:500")]
    assert report["acknowledged"]["adds"] > 0 and report["acknowledged"]["deletes"] > 0
    # Every client kind got answers: stdio and HTTP MCP calls, the HTTP hook route, hook processes.
    for op in ("add/stdio", "search/stdio", "add/http", "hook_recall/http", "hook_prompt/process"):
        assert report["latency_ms"].get(op, {}).get("n", 0) > 0, (op, report["errors"])
    assert done.returncode == 0, done.stderr[-2000:]
