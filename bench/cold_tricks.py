"""What each cold-start trick saves today: the marginal cost of the import it avoids.

    python bench/cold_tricks.py [--memories 2000] [--runs 15] [--paired-runs 21] [--json FILE]

The per-prompt paths avoid some standard-library modules (``typing``, ``json``, ``hashlib``,
``socket``, ``threading``, ``pathlib``, ``logging``, ``dataclasses``, ``inspect``) through
private CPython modules (``_json``, ``_sha256``, ``_socket``, ``_thread``) or by writing around
them. What that saves depends on what the path imports anyway, so for each of four real paths
(``memwarden search`` and ``memwarden hook prompt``, with the user's daemon up and with
``MEMWARDEN_DAEMON=off``) the bench first runs the command once with ``-X importtime`` to list
the modules it loads, then, ``--runs`` times per trick, starts a fresh interpreter that imports
exactly those modules and times (CPU and wall) the one import the trick avoids. Modules the path
already loads cost nothing there, which is the point. Medians are printed with the machine's
load (measure.py). The paired part runs each path as shipped against the same path with its
tricks undone (the avoided modules imported first; for ``memwarden search``, also the full
argparse parser instead of ``cli.argv_shapes``), back to back in alternating order. The daemon
here runs with ``MEMWARDEN_EMBEDDER=none``: the client side, which is what the tricks are in,
does not depend on the model.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import memory_text
from measure import Machine, cold_run, write_json

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.daemon.client import DaemonClient
from memwarden.daemon.launch import attach_or_start
from memwarden.daemon.place import DaemonPlace
from memwarden.settings_reader import load_hot_settings

#: The trick, and the import it avoids.
TRICKS = {
    "TYPE_CHECKING = False instead of typing's": "typing",
    "daemon/frames.py: _json instead of json": "json",
    "digests.py: _sha256 instead of hashlib": "hashlib",
    "_socket instead of socket (daemon client, loopback, peer)": "socket",
    "_thread instead of threading (SQLite store)": "threading",
    "paths as strings, no pathlib": "pathlib",
    "logs.py: logging imported late": "logging",
    "named tuples, no dataclasses": "dataclasses",
    "store/sqlite/faults.py: no inspect": "inspect",
}

PROBE = """
import sys, time
for name in sys.argv[2:]:
    try:
        __import__(name)
    except Exception:
        pass
target = sys.argv[1]
already = target in sys.modules
c0, w0 = time.process_time_ns(), time.perf_counter_ns()
__import__(target)
c1, w1 = time.process_time_ns(), time.perf_counter_ns()
print(int(already), (c1 - c0) / 1e6, (w1 - w0) / 1e6)
"""


#: The imports each path's tricks avoid, imported up front to undo them all at once.
UNDONE = {
    "hook prompt, daemon up": ["typing", "json", "socket", "hashlib"],
    "search, daemon off": ["hashlib", "threading", "pathlib", "logging", "dataclasses", "inspect"],
    "hook prompt, daemon off": ["hashlib", "threading", "pathlib", "logging", "dataclasses", "inspect"],
}

RUN_ENTRY = (
    "import sys; {imports}sys.argv[0] = 'memwarden'; from memwarden.cli.entry import main; sys.exit(main())"
)


def paired(
    shipped: list[str], undone: list[str], env: dict[str, str], stdin: str, runs: int
) -> dict[str, float]:
    """Two commands run back to back, alternating which goes first, ``runs`` rounds after one
    warm-up round; medians of wall and CPU ms of each."""
    results: dict[str, tuple[list[float], list[float]]] = {"shipped": ([], []), "undone": ([], [])}
    for n in range(runs + 1):
        order = [("shipped", shipped), ("undone", undone)]
        for name, command in order if n % 2 else order[::-1]:
            wall, cpu, _ = cold_run(command, env, stdin)
            if n:  # the first round warms the caches
                results[name][0].append(wall)
                results[name][1].append(cpu)
    out: dict[str, float] = {}
    for name, (wall, cpu) in results.items():
        out[f"{name}_wall_p50_ms"] = round(statistics.median(wall), 1)
        out[f"{name}_cpu_p50_ms"] = round(statistics.median(cpu), 1)
    return out


def paired_undone(
    argv: list[str], modules: list[str], env: dict[str, str], stdin: str, runs: int
) -> dict[str, object]:
    """The command as shipped against the same command with the avoided ``modules`` imported first."""
    shipped = [sys.executable, "-c", RUN_ENTRY.format(imports=""), *argv[1:]]
    imports = "".join(f"import {m}; " for m in modules)
    undone = [sys.executable, "-c", RUN_ENTRY.format(imports=imports), *argv[1:]]
    return {"undone": " ".join(modules), **paired(shipped, undone, env, stdin, runs)}


def paired_parser(exe: str, env: dict[str, str], runs: int) -> dict[str, object]:
    """``memwarden search`` read by ``cli.argv_shapes`` (``--limit 10``) against the same search
    read by the full argparse parser (``--limit=10``, a shape the fast path hands on)."""
    fast = [exe, "search", "--limit", "10", "release plan"]
    full = [exe, "search", "--limit=10", "release plan"]
    return {"undone": "argv fast path (full parser)", **paired(fast, full, env, "", runs)}


def loaded_modules(argv: list[str], env: dict[str, str], stdin: str) -> list[str]:
    """The modules a real run of ``argv`` imports, in import order (``-X importtime``)."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", *argv], env=env, input=stdin, capture_output=True, text=True
    )
    names = []
    for line in run.stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "self [us]" not in line:
            names.append(line.rsplit("|", 1)[1].strip())
    if not names:
        raise SystemExit(f"no import lines from {argv}: {run.stderr[-500:]}")
    return names


def marginal(target: str, modules: list[str], env: dict[str, str], runs: int) -> dict[str, object]:
    cpu, wall, already = [], [], False
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", PROBE, target, *modules], env=env, capture_output=True, text=True
        )
        flag, c, w = out.stdout.split()
        already = flag == "1"
        cpu.append(float(c))
        wall.append(float(w))
    return {
        "already_loaded": already,
        "cpu_p50_ms": round(statistics.median(cpu), 2),
        "wall_p50_ms": round(statistics.median(wall), 2),
    }


@contextmanager
def keyword_daemon(env: dict[str, str], runtime: Path) -> Iterator[dict[str, str]]:
    """The user's daemon on ``env``'s database, keyword-only, in a runtime folder of its own."""
    daemon_env = {**env, "MEMWARDEN_DAEMON": "auto", "XDG_RUNTIME_DIR": str(runtime)}
    saved = dict(os.environ)
    os.environ.update(daemon_env)  # the launcher reads the same settings as the commands
    try:
        place = DaemonPlace(runtime / "memwarden")
        settings = load_hot_settings()
        with attach_or_start(place, settings):
            yield daemon_env
            with DaemonClient.attach(place, settings) as stopper:
                stopper.call("stop")
    finally:
        os.environ.clear()
        os.environ.update(saved)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--paired-runs", type=int, default=21, help="rounds of the shipped/undone pairs")
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()
    machine = Machine()
    exe = shutil.which("memwarden", path=str(Path(sys.executable).parent)) or "memwarden"
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="mwt") as tmp:
        db = Path(tmp) / "tricks.db"
        service = build_service(load_settings(db=str(db), embedder="none", sqlite_synchronous="NORMAL"))
        rng = random.Random(8)
        for n in range(args.memories):
            service.memories.add(memory_text(rng, n), project=f"p{n % 7}")
        service.close()
        base = {k: v for k, v in os.environ.items() if not k.startswith("MEMWARDEN_")}
        base.update(
            MEMWARDEN_DB=str(db),
            MEMWARDEN_EMBEDDER="none",
            MEMWARDEN_LOG_FILE=str(Path(tmp) / "log"),
            XDG_RUNTIME_DIR=tmp,
        )
        hook_input = '{"session_id":"s","cwd":"%s","hook_event_name":"UserPromptSubmit","prompt":"%s"}'
        prompt = hook_input % (tmp, "what did we decide about the release")
        commands = {
            "search": ([exe, "search", "release plan"], ""),
            "hook prompt": ([exe, "hook", "prompt"], prompt),
        }
        paths: dict[str, list[str]] = {}
        for name, (argv, stdin) in commands.items():
            paths[f"{name}, daemon off"] = loaded_modules(argv, {**base, "MEMWARDEN_DAEMON": "off"}, stdin)
        pairs: list[dict[str, object]] = []
        off = {**base, "MEMWARDEN_DAEMON": "off"}
        for path in ("search, daemon off", "hook prompt, daemon off"):
            argv, stdin = commands[path.split(",")[0]]
            pairs.append({"path": path, **paired_undone(argv, UNDONE[path], off, stdin, args.paired_runs)})
        pairs.append({"path": "search, daemon off", **paired_parser(exe, off, args.paired_runs)})
        with keyword_daemon(base, Path(tmp)) as daemon_env:
            for name, (argv, stdin) in commands.items():
                paths[f"{name}, daemon up"] = loaded_modules(argv, daemon_env, stdin)
            argv, stdin = commands["hook prompt"]
            path = "hook prompt, daemon up"
            pairs.append(
                {"path": path, **paired_undone(argv, UNDONE[path], daemon_env, stdin, args.paired_runs)}
            )
            pairs.append({"path": "search, daemon up", **paired_parser(exe, daemon_env, args.paired_runs)})
        for pair in pairs:
            print(
                f"{pair['path']:<24} shipped wall {pair['shipped_wall_p50_ms']:>6.1f} cpu "
                f"{pair['shipped_cpu_p50_ms']:>6.1f} ms | undone ({pair['undone']}) "
                f"wall {pair['undone_wall_p50_ms']:>6.1f} cpu {pair['undone_cpu_p50_ms']:>6.1f} ms",
                flush=True,
            )
        rows.extend(pairs)
        for path, modules in paths.items():
            for trick, target in TRICKS.items():
                result = marginal(target, modules, base, args.runs)
                rows.append(
                    {"path": path, "modules": len(modules), "trick": trick, "avoids": target, **result}
                )
                print(
                    f"{path:<24} {len(modules):>4} modules  {trick:<58} "
                    f"{'loaded anyway' if result['already_loaded'] else '':<14}"
                    f"cpu {result['cpu_p50_ms']:>6.2f} ms  wall {result['wall_p50_ms']:>6.2f} ms",
                    flush=True,
                )
    machine.finish()
    print(machine.line())
    if args.json_out:
        write_json(args.json_out, "cold_tricks", rows, machine)


if __name__ == "__main__":
    main()
