"""Core speed: add and keyword search through the service, cold CLI processes, the paired floor.

    python bench/core.py [--sizes 10000,100000] [--runs 200] [--cold-runs 15] [--instructions] [--json FILE]

Prints a table of medians, p95 and CPU time (see measure.py) with the machine's load, and
writes the same numbers as JSON. Targets: add p50 <= 2 ms at 10k (issue 2), also with a
context, thread and occurred_at (issue 15); keyword search
p50 <= 5 ms at 100k (issue 2); `memwarden --version` <= 100 ms wall; cold `memwarden search`
and `memwarden hook prompt` <= 3 times a bare `python` + `sqlite3` FTS5 query on the same
database (issue 17), measured as a paired run: each round runs the bare query and the command
back to back (alternating which goes first), so both see the same machine load, and the ratio
of their medians is printed with the median of the per-round ratios. A third paired row runs the
bare query after importing the standard-library modules `memwarden search` imports (listed at
run time with ``PYTHONPROFILEIMPORTTIME``): no memwarden code at all, the floor of any CPython program that
uses them. Then the same two commands with the user's daemon up (``MEMWARDEN_DAEMON=auto``, the
builtin model, every memory embedded first: they search by meaning too), paired the same way;
``--no-daemon`` skips those rows. ``--instructions`` also counts the instructions one cold run
of the bare query, ``memwarden search`` and ``memwarden hook prompt`` executes (valgrind,
instructions.py): a figure the shared machine's load leaves alone, to tell whether a change
made the cold commands cheaper when the wall clock is too noisy to say.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import QUERIES, memory_text
from instructions import instruction_rows, print_instruction_rows
from measure import Machine, cold_run, print_rows, summary, timed_calls, write_json

from memwarden.app import build_service
from memwarden.config import load_settings


def fill(service, count: int, rng: random.Random, start: int = 0) -> None:  # type: ignore[no-untyped-def]
    for n in range(start, start + count):
        service.memories.add(memory_text(rng, n), project=f"p{n % 7}", tags=[f"t{n % 11}"])


def compile_package() -> None:
    """Write the package's bytecode, as ``pip install`` does for a wheel.

    Cold-start numbers are otherwise dominated by compiling sources on every run when
    PYTHONDONTWRITEBYTECODE is set (it is on our sandboxes).
    """
    import compileall

    import memwarden

    compileall.compile_dir(str(Path(memwarden.__file__).parent), quiet=1)


BARE_QUERY = (
    "import sqlite3, sys\n"
    "db = sqlite3.connect(sys.argv[1])\n"
    "rows = db.execute('SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rank LIMIT 10',"
    " (sys.argv[2],)).fetchall()\n"
    "print(rows)\n"
)


def stdlib_floor(command: list[str], env: dict[str, str], stdin: str = "") -> tuple[list[str], str]:
    """The standard-library modules ``command`` imports that the bare query does not, and the
    bare query preceded by importing them: what any CPython program using those modules pays
    before its first line of its own (the floor a memwarden command cannot go under without
    giving up typing, logging, dataclasses, argparse...)."""
    import importlib.util
    import subprocess

    def imported(argv: list[str], text: str = "") -> list[str]:
        found = subprocess.run(
            argv, input=text, env={**env, "PYTHONPROFILEIMPORTTIME": "1"}, capture_output=True, text=True
        ).stderr
        names = [
            line.rsplit("|", 1)[1].strip() for line in found.splitlines() if line.startswith("import time:")
        ]
        # Attempts that failed (another platform's modules tried in a try/except) are listed too.
        return [
            n
            for n in dict.fromkeys(names)
            if n.split(".")[0] in sys.stdlib_module_names and importlib.util.find_spec(n) is not None
        ]

    bare_modules = set(imported([sys.executable, "-c", BARE_QUERY, ":memory:", "x"]))
    modules = [m for m in imported(command, stdin) if m not in bare_modules]
    return modules, "".join(f"import {m}\n" for m in modules) + BARE_QUERY


def paired(
    command: list[str], bare: list[str], env: dict[str, str], runs: int, stdin: str = ""
) -> tuple[list[float], list[float], list[float], list[float]]:
    """Wall and CPU ms of ``command`` and of ``bare``, run back to back ``runs`` times (plus a warm-up)."""
    wall, cpu, bare_wall, bare_cpu = [], [], [], []
    for i in range(runs + 1):
        order = [(command, wall, cpu, stdin), (bare, bare_wall, bare_cpu, "")]
        for argv, walls, cpus, text in order if i % 2 else order[::-1]:
            elapsed, used, _ = cold_run(argv, env, text)
            if i:
                walls.append(elapsed)
                cpus.append(used)
    return wall, cpu, bare_wall, bare_cpu


def paired_rows(
    name: str, command: list[str], bare: list[str], env: dict[str, str], runs: int, size: int, stdin: str = ""
) -> list[dict[str, object]]:
    wall, cpu, bare_wall, bare_cpu = paired(command, bare, env, runs, stdin)
    ratio = statistics.median(wall) / statistics.median(bare_wall)
    per_round = statistics.median(w / b for w, b in zip(wall, bare_wall, strict=True))
    cpu_ratio = statistics.median(cpu) / max(statistics.median(bare_cpu), 1e-9)
    return [
        {
            "metric": f"{name} (cold process)",
            "memories": size,
            **summary(wall, cpu),
            "target_ms": None,
            "ratio_to_bare": round(ratio, 2),
            "ratio_per_round": round(per_round, 2),
            "cpu_ratio": round(cpu_ratio, 2),
            "note": f"{ratio:.2f}x bare wall (rounds {per_round:.2f}x), {cpu_ratio:.2f}x bare CPU; target <= 3x",
        },
        {
            "metric": "  bare python + sqlite3 FTS5 query, paired",
            "memories": size,
            **summary(bare_wall, bare_cpu),
            "target_ms": None,
            "note": "the floor",
        },
    ]


def hook_command(exe: str) -> list[str]:
    """The prompt hook as Claude Code runs it, in a project that holds memories of the fill (the
    bench's cwd names none: its recall would search two empty projects and render nothing)."""
    return [exe, "hook", "prompt", "--project", "p1"]


def daemon_rows(
    exe: str, env: dict[str, str], bare: list[str], runs: int, size: int, prompt: str
) -> list[dict[str, object]]:
    """``memwarden search`` and ``memwarden hook prompt`` with the user's daemon up (the default
    ``MEMWARDEN_DAEMON=auto``; an MCP client's ``memwarden serve`` starts it), paired with the
    bare query on the same database. The daemon runs the builtin model and has embedded every
    memory before the runs, so these commands search by meaning too (the query embedded by the
    warm model): more work than the bare keyword query does. CPU columns are the command's own
    process; the daemon's CPU per call is in the note."""
    from cpu_clocks import server_cpu_s
    from daemon_up import warm_daemon

    rows: list[dict[str, object]] = []
    with warm_daemon(env) as (daemon_env, pid):
        search = [exe, "search", "client email", "--json"]
        answer = cold_run(search, daemon_env)[2]
        if '"via": "daemon"' not in answer:
            raise SystemExit("memwarden search did not go through the daemon: the rows would be wrong")
        if "additionalContext" not in cold_run(hook_command(exe), daemon_env, prompt)[2]:
            raise SystemExit("the prompt hook recalled nothing through the daemon")
        for name, command, stdin in (
            ("memwarden search, daemon up", search, ""),
            ("memwarden hook prompt, daemon up", hook_command(exe), prompt),
        ):
            before = server_cpu_s(pid)
            pair = paired_rows(name, command, bare, daemon_env, runs, size, stdin=stdin)
            after = server_cpu_s(pid)
            if before is not None and after is not None:
                pair[0]["daemon_cpu_ms_per_call"] = round((after - before) * 1000 / (runs + 1), 1)
                pair[0]["note"] = (
                    f"{pair[0]['note']}; daemon CPU {pair[0]['daemon_cpu_ms_per_call']} ms a call"
                )
            rows += pair
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--cold-runs", type=int, default=15)
    parser.add_argument(
        "--no-daemon",
        action="store_true",
        help="skip the rows with the daemon up (they embed every memory first)",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count the instructions of one cold run of each command (needs valgrind)",
    )
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()
    machine = Machine()
    sizes = [int(s) for s in args.sizes.split(",")]
    compile_package()
    rng = random.Random(42)
    rows: list[dict[str, object]] = []
    counted: list[dict[str, object]] = []
    exe = str(Path(sys.executable).with_name("memwarden"))
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMWARDEN_")}
        env.update(MEMWARDEN_DB=str(db), MEMWARDEN_LOG_FILE=str(Path(tmp) / "log"), MEMWARDEN_DAEMON="off")
        service = build_service(load_settings(db=str(db), log_file=str(Path(tmp) / "log"), embedder="none"))
        have = 0
        for size in sizes:
            fill(service, size - have - 2 * args.runs, rng, have)
            have = size - 2 * args.runs
            # Into the projects that hold the fill: the near-duplicate check is scoped to the project.
            adds = timed_calls(
                lambda i, h=have: service.memories.add(memory_text(rng, h + i), project=f"p{i % 7}"),
                args.runs,
            )
            have += args.runs
            # The same with context (the previous memory's text), a thread and occurred_at, as a
            # conversation is stored (docs/clients.md).
            context_adds = timed_calls(
                lambda i, h=have: service.memories.add(
                    memory_text(rng, h + i),
                    project=f"p{i % 7}",
                    context=memory_text(rng, h + i - 1),
                    thread=f"chat-{i // 20}",
                    occurred_at=f"2026-11-{1 + i % 28:02d}T12:00:00Z",
                ),
                args.runs,
            )
            have = size
            searches = timed_calls(
                lambda i: service.searcher.search(QUERIES[i % len(QUERIES)], limit=10), args.runs
            )
            rows.append(
                {
                    "metric": "add (service, no embedder, audit on)",
                    "memories": size,
                    **summary(*adds),
                    "target_ms": 2.0 if size == 10_000 else None,
                }
            )
            rows.append(
                {
                    "metric": "  same, with context, thread and occurred_at",
                    "memories": size,
                    **summary(*context_adds),
                    "target_ms": 2.0 if size == 10_000 else None,
                }
            )
            rows.append(
                {
                    "metric": "keyword search (service, audit on)",
                    "memories": size,
                    **summary(*searches),
                    "target_ms": 5.0 if size == 100_000 else None,
                }
            )
            if size == sizes[0]:
                bare = [sys.executable, "-c", BARE_QUERY, str(db), "client email"]
                rows += paired_rows(
                    "memwarden search",
                    [exe, "search", "client email", "--json"],
                    bare,
                    env,
                    args.cold_runs,
                    size,
                )
                modules, floor_code = stdlib_floor([exe, "search", "client email", "--json"], env)
                floor = paired_rows(
                    f"bare query after importing the {len(modules)} standard modules memwarden search imports",
                    [sys.executable, "-c", floor_code, str(db), "client email"],
                    bare,
                    env,
                    args.cold_runs,
                    size,
                )[0]
                floor["note"] = str(floor["note"]).replace("; target <= 3x", "") + ": no memwarden code"
                rows.append(floor)
                prompt = json.dumps(
                    {
                        "session_id": "bench",
                        "transcript_path": "/tmp/bench.jsonl",
                        "cwd": tmp,
                        "hook_event_name": "UserPromptSubmit",
                        "prompt": "What did we decide about the client email?",
                    }
                )
                if "additionalContext" not in cold_run(hook_command(exe), env, prompt)[2]:
                    raise SystemExit("the prompt hook recalled nothing: its row would time an empty answer")
                rows += paired_rows(
                    "memwarden hook prompt",
                    hook_command(exe),
                    bare,
                    env,
                    args.cold_runs,
                    size,
                    stdin=prompt,
                )
                if args.instructions:
                    counted = instruction_rows(
                        [
                            ("memwarden search", [exe, "search", "client email", "--json"], ""),
                            ("memwarden hook prompt", hook_command(exe), prompt),
                        ],
                        bare,
                        env,
                    )
                if not args.no_daemon:
                    rows += daemon_rows(exe, env, bare, args.cold_runs, size, prompt)
        version = [cold_run([exe, "--version"], env)[:2] for _ in range(args.cold_runs)]
        rows.append(
            {
                "metric": "memwarden --version (cold process)",
                "memories": None,
                **summary([w for w, _ in version], [c for _, c in version]),
                "target_ms": 100.0,
            }
        )
        service.close()
    machine.finish()
    print_rows(rows, machine)
    if counted:
        print_instruction_rows(counted)
    write_json(args.json_out, "core", rows, machine, instructions=counted)


if __name__ == "__main__":
    main()
