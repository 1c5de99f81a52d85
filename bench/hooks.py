"""Claude Code hook speed: cold ``memwarden hook …`` processes at 10k memories.

    python bench/hooks.py [--memories 10000] [--runs 30] [--json FILE]

Measures the wall time of a fresh process, the way Claude Code runs a hook: the hook JSON on
stdin, the output JSON read back. Targets (issue 8): ``memwarden hook prompt`` <= 150 ms
without a server (it searches the database itself) and <= 60 ms with a warm memwarden HTTP
server on loopback (``MEMWARDEN_HOOK_SERVER``; the server runs with ``MEMWARDEN_EMBEDDER=none``,
so its time holds no query embedding, about 20 ms of CPU with the builtin model). Byte-code caching is on, as in an installed
package, whatever ``PYTHONDONTWRITEBYTECODE`` says; one warm-up run per row is not counted.
The ``python -c pass`` row is the interpreter's own start-up on the same machine, for scale;
``cpu p50`` is the hook process's own CPU time (user + system), which waiting for a busy core
does not inflate. The server's work for the warm-server row is in its wall time only.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import QUERIES, memory_text

import memwarden
from memwarden.app import build_service
from memwarden.config import load_settings

PROJECTS = 7


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def payload(event: str, n: int, cwd: Path) -> str:
    body: dict[str, object] = {"session_id": f"bench-{n}", "transcript_path": "/tmp/bench.jsonl", "cwd": str(cwd),
                               "permission_mode": "default", "hook_event_name": event}
    if event == "UserPromptSubmit":
        body["prompt"] = f"What did we decide about {QUERIES[n % len(QUERIES)]}?"
    if event == "SessionStart":
        body["source"] = "startup"
    if event == "Stop":
        body["stop_hook_active"] = False
    return json.dumps(body)


CPU: list[float] = []  # CPU milliseconds (user + system) of the hook process, per counted run


def _children_cpu() -> float:
    try:
        import resource  # POSIX only; on Windows the CPU column reads 0
    except ImportError:
        return 0.0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def cold(argv: list[str], env: dict[str, str], inputs: list[str]) -> tuple[list[float], int]:
    """Wall milliseconds per run (the first, a warm-up, dropped) and how many printed output.

    The CPU time of each counted run goes to ``CPU``: on a shared machine it is the steadier
    number, since waiting for a core shows in wall time only."""
    samples, answered = [], 0
    CPU.clear()
    for i, stdin in enumerate(inputs):
        cpu0, t0 = _children_cpu(), time.perf_counter()
        done = subprocess.run(argv, input=stdin, env=env, capture_output=True, text=True, check=True)
        elapsed = (time.perf_counter() - t0) * 1000
        if i:
            samples.append(elapsed)
            CPU.append(_children_cpu() - cpu0)
            answered += bool(done.stdout.strip())
    return samples, answered


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_healthy(url: str, process: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server exited with {process.returncode}")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=1) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()
    compileall.compile_dir(str(Path(memwarden.__file__).parent), quiet=1)
    exe = shutil.which("memwarden", path=str(Path(sys.executable).parent)) or "memwarden"
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        db, log = Path(tmp) / "bench.db", Path(tmp) / "memwarden.log"
        service = build_service(load_settings(db=str(db), log_file=str(log), embedder="none",
                                              sqlite_synchronous="NORMAL"))
        rng = random.Random(8)
        for n in range(args.memories):
            service.memories.add(memory_text(rng, n), project=f"p{n % PROJECTS}", pinned=n % 500 == 0)
        service.close()
        repo = Path(tmp) / "p3"
        (repo / ".git").mkdir(parents=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMWARDEN_") and k != "PYTHONDONTWRITEBYTECODE"}
        # The server searches by keyword like the hook: the corpus has no vectors, and a server
        # embedding 10k memories in the background would only measure that backfill.
        env.update(MEMWARDEN_DB=str(db), MEMWARDEN_LOG_FILE=str(log), MEMWARDEN_EMBEDDER="none")
        runs = args.runs + 1

        def row(metric: str, samples: list[float], target: float | None, answered: int | None = None) -> None:
            rows.append({"metric": metric, "memories": args.memories, "runs": len(samples),
                         "p50_ms": statistics.median(samples), "p95_ms": percentile(samples, 0.95),
                         "cpu_p50_ms": statistics.median(CPU),
                         "target_ms": target, "answered": answered})

        base, _ = cold([sys.executable, "-c", "pass"], env, [""] * runs)
        row("python -c pass (interpreter start)", base, None)
        prompts = [payload("UserPromptSubmit", n, repo) for n in range(runs)]
        samples, answered = cold([exe, "hook", "prompt"], env, prompts)
        row("hook prompt, no server (database)", samples, 150.0, answered)
        samples, answered = cold([exe, "hook", "session-start"], env, [payload("SessionStart", n, repo) for n in range(runs)])
        row("hook session-start", samples, None, answered)
        samples, answered = cold([exe, "hook", "stop"], env, [payload("Stop", n, repo) for n in range(runs)])
        row("hook stop", samples, None, answered)

        port, token = free_port(), "bench-token-0123456789"
        server = subprocess.Popen([exe, "serve", "--http", f"127.0.0.1:{port}"],
                                  env={**env, "MEMWARDEN_HTTP_TOKEN": token}, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            wait_healthy(f"http://127.0.0.1:{port}", server)
            served = {**env, "MEMWARDEN_HOOK_SERVER": f"http://127.0.0.1:{port}", "MEMWARDEN_HTTP_TOKEN": token,
                      "MEMWARDEN_HOOK_TIMEOUT_MS": "2000"}
            cold([exe, "hook", "prompt"], served, prompts[:5])  # warm the server's caches
            before = log.read_text(encoding="utf-8").count("server not used") if log.exists() else 0
            samples, answered = cold([exe, "hook", "prompt"], served, prompts)
            after = log.read_text(encoding="utf-8").count("server not used") if log.exists() else 0
            if after != before:
                raise SystemExit("the hook fell back to the database: the server row would be wrong")
            row("hook prompt, warm server on loopback (keyword-only, no embedder)", samples, 60.0, answered)
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"{'metric':40} {'memories':>8} {'p50 ms':>8} {'p95 ms':>8} {'cpu p50':>8} {'target':>7} {'answered':>9}")
    for r in rows:
        target = "" if r["target_ms"] is None else f"<={r['target_ms']:g}"
        answered_text = "" if r["answered"] is None else f"{r['answered']}/{r['runs']}"
        print(f"{r['metric']:40} {r['memories']:>8} {r['p50_ms']:8.1f} {r['p95_ms']:8.1f} {r['cpu_p50_ms']:8.1f}"
              f" {target:>7} {answered_text:>9}")
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    if load is not None:
        print(f"load average at the end: {' '.join(f'{x:.1f}' for x in load)} on {os.cpu_count()} CPUs")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"bench": "hooks", "cpus": os.cpu_count(), "rows": rows,
                                                   "loadavg": load}, indent=2))


if __name__ == "__main__":
    main()
