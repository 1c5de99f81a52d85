"""Fuzz every MCP tool and every HTTP route with more examples than ``make test`` runs.

    python bench/fuzz.py [--examples 200] [--routes 1000] [--json FILE]

The same engine as tests/test_fuzz.py (tests/fuzz_engine.py): hypothesis draws arguments from
each tool's input schema (half plausible, half hostile) and raw HTTP requests with any mix of
Host, Origin, content type, token and body. It asserts that every call is answered within 60 s,
that a refused call changes no stored memory row, and that the server still answers afterwards;
a failure stops the run with hypothesis's shrunk example. New examples every run (the tests
use a fixed set). Prints a table per transport: the count per outcome (``ok`` / ``error`` for
tools, the status class for routes) and the median time per call, with the machine load.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the helpers import one another by name, as under pytest
from memwarden.app import build_service  # noqa: E402
from memwarden.config import load_settings  # noqa: E402
from memwarden.mcp.server import create_server  # noqa: E402
from tests.fuzz_engine import Tally, fuzz_http, fuzz_in_memory  # noqa: E402
from tests.http_servers import free_port, wait_for_http  # noqa: E402

TOKEN = "bench-fuzz-token-0123456789"


def run_in_memory(folder: Path, examples: int) -> Tally:
    settings = load_settings(
        db=str(folder / "memory.db"),
        embedder="none",
        log_file=str(folder / "memory.log"),
        backup_dir=str(folder / "backups"),
    )
    service = build_service(settings, embeddings=False, ops=True)
    tally = Tally()
    try:
        fuzz_in_memory(create_server(service, tools="all"), settings.db, examples, tally, fixed=False)
    finally:
        service.close()
    return tally


def run_http(folder: Path, examples: int, routes: int) -> Tally:
    db = str(folder / "http.db")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMWARDEN_")}
    env.update(
        MEMWARDEN_DB=db,
        MEMWARDEN_EMBEDDER="none",
        MEMWARDEN_LOG_FILE=str(folder / "http.log"),
        MEMWARDEN_BACKUP_DIR=str(folder / "backups"),
        MEMWARDEN_HTTP_TOKEN=TOKEN,
        MEMWARDEN_TOOLS="all",
        MEMWARDEN_HTTP_MAX_BODY_BYTES=str(64 * 1024),
    )
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "memwarden", "serve", "--http", f"127.0.0.1:{port}"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    tally = Tally()
    try:
        wait_for_http(f"http://127.0.0.1:{port}/healthz", process)
        fuzz_http(f"http://127.0.0.1:{port}", port, TOKEN, db, examples, routes, tally, fixed=False)
        if process.poll() is not None:
            raise SystemExit(f"the HTTP server died: {process.stderr.read() if process.stderr else ''}")
    finally:
        process.terminate()
        process.wait(timeout=20)
        if process.stderr:
            process.stderr.close()
    return tally


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--examples", type=int, default=200, help="generated calls per tool and transport")
    parser.add_argument("--routes", type=int, default=1000, help="generated raw HTTP requests")
    parser.add_argument("--json", help="also write the counts to this file")
    args = parser.parse_args()
    started, cpu = time.perf_counter(), time.process_time()
    with tempfile.TemporaryDirectory(prefix="memwarden-fuzz-") as tmp:
        memory = run_in_memory(Path(tmp), args.examples)
        http = run_http(Path(tmp), args.examples, args.routes)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    for line in [*memory.lines("in-memory MCP session"), "", *http.lines("real HTTP (MCP tools and routes)")]:
        print(line)
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    calls = sum(memory.counts.values()) + sum(http.counts.values())
    print(
        f"\n{calls} calls, every one answered, no refused call changed a stored row; "
        f"{wall:.1f} s wall, {cpu:.1f} s CPU in this process (the HTTP server's is not counted); "
        f"load {' '.join(load)} (shared machine)"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "examples_per_tool": args.examples,
                    "route_examples": args.routes,
                    "calls": calls,
                    "wall_s": round(wall, 1),
                    "cpu_s": round(cpu, 1),
                    "load": load,
                    "counts": {
                        f"{target} {outcome}": n
                        for tally in (memory, http)
                        for (target, outcome), n in sorted(tally.counts.items())
                    },
                },
                indent=2,
            )
            + "\n",
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
