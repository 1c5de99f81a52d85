"""How long an MCP client waits for its handshake when no daemon runs: a returning user and a new one.

Each run starts a real MCP client (the ``mcp`` SDK's stdio client) on ``memwarden serve`` with
``MEMWARDEN_DAEMON=auto`` and a runtime folder of its own, so no daemon is up and ``serve``
starts one. The time is from the client starting the process to its handshake answered (the
client's own imports are done before the clock starts), then the first ``memory_search``. The
SDK's client shakes hands with ``server/discover`` (the 2026 protocol revision);
``--handshake initialize`` makes it send ``initialize``, as most MCP clients still do:

- ``returning``: a data folder with a database of a few memories, used once before (the model
  prepared, if the embedder prepares one), daemon not running;
- ``new``: a fresh ``HOME`` and data folder: nothing exists yet.

Prints the median and every run; ``--json`` prints an object.

    python bench/daemon_start.py --runs 5
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from memwarden.daemon.client import DaemonClient, DaemonUnavailable
from memwarden.daemon.place import DaemonPlace
from memwarden.settings_reader import load_hot_settings


def _environment(home: Path, runtime: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMWARDEN_", "XDG_"))}
    env.update(
        {
            "HOME": str(home),
            "XDG_RUNTIME_DIR": str(runtime),
            "MEMWARDEN_DAEMON": "auto",
            "MEMWARDEN_EMBEDDER": os.environ.get("MEMWARDEN_EMBEDDER", "builtin"),
        }
    )
    return env


def _stop_daemon(env: dict[str, str]) -> None:
    """Stop the run's daemon and wait until it has gone (the next run must find none)."""
    saved = dict(os.environ)
    os.environ.update(env)
    try:
        place = DaemonPlace(Path(env["XDG_RUNTIME_DIR"]) / "memwarden")
        try:
            with DaemonClient.attach(place, load_hot_settings(), timeout=5.0) as client:
                pid = int(client.info["pid"])
                client.call("stop")
        except DaemonUnavailable:
            return
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)
    finally:
        os.environ.clear()
        os.environ.update(saved)


HANDSHAKE_MODES = {"discover": "auto", "initialize": "legacy"}  # the SDK client's names for them


async def _handshake(env: dict[str, str], mode: str = "auto") -> tuple[float, float, bool]:
    """(seconds to the handshake answered, seconds to the first search answered, degraded?)."""
    server = StdioServerParameters(command=sys.executable, args=["-m", "memwarden", "serve"], env=env)
    started = time.perf_counter()
    async with Client(server, mode=mode) as client:  # type: ignore[arg-type]  # "auto" | "legacy"
        shaken = time.perf_counter() - started
        result = await client.call_tool("memory_search", {"query": "deploy"})
        searched = time.perf_counter() - started
        degraded = bool((result.structured_content or {}).get("degraded"))
    return shaken, searched, degraded


def _seed(env: dict[str, str]) -> None:
    """A returning user's database: a few memories added through the CLI (its own process)."""
    for text in ("Deploys go out on Tuesdays", "The client prefers email over phone calls"):
        subprocess.run(
            [sys.executable, "-m", "memwarden", "add", text],
            env={**env, "MEMWARDEN_DAEMON": "off"},
            check=True,
            capture_output=True,
        )


def measure(kind: str, runs: int, mode: str = "auto") -> list[tuple[float, float, bool]]:
    root = Path(tempfile.mkdtemp(prefix="mwstart"))
    results = []
    try:
        returning_home = root / "home-returning"
        if kind == "returning":
            returning_home.mkdir()
            env = _environment(returning_home, Path(tempfile.mkdtemp(prefix="mws", dir=root)))
            _seed(env)
            anyio.run(_handshake, env, mode)  # first use: the model is prepared, if it needs to be
            _stop_daemon(env)
        for n in range(runs):
            home = returning_home if kind == "returning" else root / f"home-new-{n}"
            home.mkdir(exist_ok=True)
            env = _environment(home, Path(tempfile.mkdtemp(prefix="mws", dir=root)))
            try:
                results.append(anyio.run(_handshake, env, mode))
            finally:
                _stop_daemon(env)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--handshake", choices=sorted(HANDSHAKE_MODES), default="discover")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report: dict[str, Any] = {"handshake": args.handshake, "load_average_before": list(os.getloadavg())}
    for kind in ("returning", "new"):
        rows = measure(kind, args.runs, HANDSHAKE_MODES[args.handshake])
        report[kind] = {
            "handshake_s_median": statistics.median(r[0] for r in rows),
            "first_search_s_median": statistics.median(r[1] for r in rows),
            "handshake_s": [round(r[0], 3) for r in rows],
            "first_search_s": [round(r[1], 3) for r in rows],
            "first_search_degraded": [r[2] for r in rows],
        }
    report["load_average_after"] = list(os.getloadavg())
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{'user':<10} {'handshake p50':>14} {'first search p50':>17}  runs (handshake s)")
    for kind in ("returning", "new"):
        row = report[kind]
        print(
            f"{kind:<10} {row['handshake_s_median']:>13.3f}s {row['first_search_s_median']:>16.3f}s  "
            f"{row['handshake_s']}"
        )
        print(
            f"{'':<10} first search runs (s) {row['first_search_s']}, degraded {row['first_search_degraded']}"
        )
    print(f"load average before {report['load_average_before']}, after {report['load_average_after']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
