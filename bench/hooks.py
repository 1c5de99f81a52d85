"""Claude Code hook speed: cold ``memwarden hook …`` processes at 10k memories.

    python bench/hooks.py [--memories 10000] [--runs 30] [--daemon-memories 1000] [--json FILE]

Measures the wall time of a fresh process, the way Claude Code runs a hook: the hook JSON on
stdin, the output JSON read back. Targets (issue 8): ``memwarden hook prompt`` <= 150 ms
without a server (it searches the database itself) and <= 60 ms with a warm memwarden HTTP
server on loopback (``MEMWARDEN_HOOK_SERVER``; the server runs with ``MEMWARDEN_EMBEDDER=none``,
so its time holds no query embedding, about 20 ms of CPU with the builtin model). Byte-code caching is on, as in an installed
package, whatever ``PYTHONDONTWRITEBYTECODE`` says; one warm-up run per row is not counted.
The ``python -c pass`` row is the interpreter's own start-up on the same machine, for scale;
``cpu p50`` is the hook process's own CPU time (user + system), which waiting for a busy core
does not inflate. The server's work for the warm-server row is in its wall time only.
The warm-daemon row (issue 17: <= 60 ms including the query embedding) runs the hook against
the user's daemon (memwarden.daemon) with the builtin model, on a database of its own whose
memories the daemon has all embedded before the runs start. Every table ends with the
machine's load and whether the run counts as idle (measure.py).
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import QUERIES, memory_text
from measure import Machine, cold_runs, print_rows, summary, write_json

import memwarden
from memwarden.app import build_service
from memwarden.config import load_settings

PROJECTS = 7


def payload(event: str, n: int, cwd: Path) -> str:
    body: dict[str, object] = {
        "session_id": f"bench-{n}",
        "transcript_path": "/tmp/bench.jsonl",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": event,
    }
    if event == "UserPromptSubmit":
        body["prompt"] = f"What did we decide about {QUERIES[n % len(QUERIES)]}?"
    if event == "SessionStart":
        body["source"] = "startup"
    if event == "Stop":
        body["stop_hook_active"] = False
    return json.dumps(body)


def cold(argv: list[str], env: dict[str, str], inputs: list[str]) -> tuple[list[float], list[float], int]:
    """Wall and CPU ms per fresh hook process (first run a warm-up, dropped) and how many answered."""
    return cold_runs(argv, env, inputs)


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


def daemon_row(
    exe: str, env: dict[str, str], tmp: Path, prompts: list[str], memories: int
) -> tuple[list[float], list[float], int]:
    """The prompt hook against a warm daemon that embeds the query with the builtin model.

    A database of its own with ``memories`` memories, every one embedded by the daemon before
    the runs start (the backfill would otherwise share the CPU with the hooks being timed)."""
    from daemon_up import warm_daemon

    db = tmp / "daemon.db"
    service = build_service(
        load_settings(
            db=str(db), log_file=str(tmp / "daemon.log"), embedder="none", sqlite_synchronous="NORMAL"
        )
    )
    rng = random.Random(9)
    for n in range(memories):
        service.memories.add(memory_text(rng, n), project=f"p{n % PROJECTS}")
    service.close()
    own = {**env, "MEMWARDEN_DB": str(db), "MEMWARDEN_LOG_FILE": str(tmp / "daemon.log")}
    with warm_daemon(own) as (daemon_env, _):
        cold([exe, "hook", "prompt"], daemon_env, prompts[:5])  # warm the daemon's caches
        measured = cold([exe, "hook", "prompt"], daemon_env, prompts)
        if "daemon not used" in (tmp / "daemon.log").read_text(encoding="utf-8"):
            raise SystemExit("the hook fell back to the database: the daemon row would be wrong")
    return measured


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument(
        "--daemon-memories",
        type=int,
        default=1000,
        help="memories of the warm-daemon row (each is embedded first; 0 skips the row)",
    )
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()
    machine = Machine()
    compileall.compile_dir(str(Path(memwarden.__file__).parent), quiet=1)
    exe = shutil.which("memwarden", path=str(Path(sys.executable).parent)) or "memwarden"
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        db, log = Path(tmp) / "bench.db", Path(tmp) / "memwarden.log"
        service = build_service(
            load_settings(db=str(db), log_file=str(log), embedder="none", sqlite_synchronous="NORMAL")
        )
        rng = random.Random(8)
        for n in range(args.memories):
            service.memories.add(memory_text(rng, n), project=f"p{n % PROJECTS}", pinned=n % 500 == 0)
        service.close()
        repo = Path(tmp) / "p3"
        (repo / ".git").mkdir(parents=True)
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("MEMWARDEN_") and k != "PYTHONDONTWRITEBYTECODE"
        }
        # The server searches by keyword like the hook: the corpus has no vectors, and a server
        # embedding 10k memories in the background would only measure that backfill.
        env.update(MEMWARDEN_DB=str(db), MEMWARDEN_LOG_FILE=str(log), MEMWARDEN_EMBEDDER="none")
        runs = args.runs + 1

        def row(
            metric: str,
            measured: tuple[list[float], list[float], int] | tuple[list[float], list[float]],
            target: float | None,
            memories: int | None = None,
        ) -> None:
            wall, cpu = measured[0], measured[1]
            answered = measured[2] if len(measured) > 2 else None
            rows.append(
                {
                    "metric": metric,
                    "memories": memories or args.memories,
                    "runs": len(wall),
                    **summary(wall, cpu),
                    "target_ms": target,
                    "answered": answered,
                    "note": "" if answered is None else f"answered {answered}/{len(wall)}",
                }
            )

        base = cold([sys.executable, "-c", "pass"], env, [""] * runs)
        row("python -c pass (interpreter start)", base[:2], None)
        prompts = [payload("UserPromptSubmit", n, repo) for n in range(runs)]
        row("hook prompt, no server (database)", cold([exe, "hook", "prompt"], env, prompts), 150.0)
        row(
            "hook session-start",
            cold(
                [exe, "hook", "session-start"], env, [payload("SessionStart", n, repo) for n in range(runs)]
            ),
            None,
        )
        row(
            "hook stop",
            cold([exe, "hook", "stop"], env, [payload("Stop", n, repo) for n in range(runs)]),
            None,
        )

        port, token = free_port(), "bench-token-0123456789"
        server = subprocess.Popen(
            [exe, "serve", "--http", f"127.0.0.1:{port}"],
            env={**env, "MEMWARDEN_HTTP_TOKEN": token},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_healthy(f"http://127.0.0.1:{port}", server)
            served = {
                **env,
                "MEMWARDEN_HOOK_SERVER": f"http://127.0.0.1:{port}",
                "MEMWARDEN_HTTP_TOKEN": token,
                "MEMWARDEN_HOOK_TIMEOUT_MS": "2000",
            }
            cold([exe, "hook", "prompt"], served, prompts[:5])  # warm the server's caches
            before = log.read_text(encoding="utf-8").count("server not used") if log.exists() else 0
            measured = cold([exe, "hook", "prompt"], served, prompts)
            after = log.read_text(encoding="utf-8").count("server not used") if log.exists() else 0
            if after != before:
                raise SystemExit("the hook fell back to the database: the server row would be wrong")
            row("hook prompt, warm server on loopback (keyword-only, no embedder)", measured, 60.0)
        finally:
            server.terminate()
            server.wait(timeout=30)
        if args.daemon_memories:
            row(
                f"hook prompt, warm daemon (builtin model, {args.daemon_memories} embedded)",
                daemon_row(exe, env, Path(tmp), prompts, args.daemon_memories),
                60.0,
                args.daemon_memories,
            )
    machine.finish()
    print_rows(rows, machine)
    write_json(args.json_out, "hooks", rows, machine)


if __name__ == "__main__":
    main()
