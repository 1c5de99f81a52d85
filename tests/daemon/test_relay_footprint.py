"""`memwarden serve` relaying to the daemon stays small: it imports only what relaying needs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memwarden.daemon.launch import attach_or_start
from memwarden.daemon.place import DaemonPlace
from memwarden.settings_reader import load_hot_settings

# What a relay must never load: the daemon holds them once for every client.
HEAVY = (
    "pydantic",
    "pydantic_core",
    "pydantic_settings",
    "mcp",
    "starlette",
    "numpy",
    "onnxruntime",
    "anyio",
)
# Standard-library modules relaying does not need, each a share of every client's relay: the
# parser (a plain ``serve`` starts without cli.main), logging (set up on the first line logged),
# pathlib, and subprocess (a relay attaching to a running daemon starts nothing).
NOT_FOR_RELAYING = ("argparse", "logging", "pathlib", "subprocess", "memwarden.cli.main")
# Issue 35's bound per client (docs/daemon.md, "The relay"); a relay that imports the MCP SDK or
# pydantic is 35 MB and more.
RSS_BOUND_KB = 15_000

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def _status_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise AssertionError(f"no {field} in /proc/{pid}/status")


def test_the_relay_imports_no_heavy_module_and_stays_small(place: DaemonPlace, tmp_path: Path) -> None:
    attach_or_start(place, load_hot_settings()).close()  # the daemon is up: serve only relays
    imports = tmp_path / "imports.txt"
    with imports.open("wb") as stderr:
        relay = subprocess.Popen(
            # -X importtime: the interpreter lists every module the relay imports, on stderr.
            [sys.executable, "-X", "importtime", "-m", "memwarden", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
        try:
            assert relay.stdin is not None and relay.stdout is not None
            relay.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
            relay.stdin.flush()
            answer = json.loads(relay.stdout.readline())
            assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "memwarden"
            rss_kb = _status_kb(relay.pid, "VmRSS")
            maps = Path(f"/proc/{relay.pid}/maps").read_text(encoding="utf-8")
        finally:
            if relay.stdin is not None:
                relay.stdin.close()
            code = relay.wait(timeout=30)
            if relay.stdout is not None:
                relay.stdout.close()
        assert code == 0
    text = imports.read_text(encoding="utf-8")
    assert "through the shared daemon" in text  # it relayed, not served in its own process
    imported = {
        line.rsplit("|", 1)[1].strip() for line in text.splitlines() if line.startswith("import time:")
    }
    heavy = sorted(name for name in imported if name.split(".")[0] in HEAVY)
    assert heavy == [], heavy
    unneeded = sorted(name for name in imported if name in NOT_FOR_RELAYING)
    assert unneeded == [], unneeded
    assert "pydantic_core" not in maps and "onnxruntime" not in maps
    assert rss_kb < RSS_BOUND_KB, f"relay resident memory {rss_kb} kB"
    assert os.environ["MEMWARDEN_DAEMON"] == "auto"
