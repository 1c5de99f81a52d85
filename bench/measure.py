"""What every bench prints beside its numbers: CPU time next to wall time, and the machine's load.

Wall time on a shared machine includes waiting for a core; CPU time (user + system) does not,
so a row shows both. The load average is read before and after the run; a run counts as
*idle* when the 1-minute load stayed at or below a quarter of the CPUs (on our 2-core
machines: 0.5) at both ends, and the table and the JSON say which it was. README tables quote
idle runs, or say that they are not.

    from measure import Machine, cold_runs, timed_calls, summary, print_rows, write_json
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

IDLE_LOAD_PER_CPU = 0.25


def load_average() -> tuple[float, float, float] | None:
    return os.getloadavg() if hasattr(os, "getloadavg") else None


@dataclass
class Machine:
    """The machine's CPUs and load at the start of a bench; ``finish()`` reads the end."""

    cpus: int = field(default_factory=lambda: os.cpu_count() or 1)
    load_start: tuple[float, float, float] | None = field(default_factory=load_average)
    load_end: tuple[float, float, float] | None = None

    def finish(self) -> Machine:
        self.load_end = load_average()
        return self

    @property
    def idle(self) -> bool | None:
        if self.load_start is None or self.load_end is None:
            return None
        limit = IDLE_LOAD_PER_CPU * self.cpus
        return self.load_start[0] <= limit and self.load_end[0] <= limit

    def line(self) -> str:
        def show(load: tuple[float, float, float] | None) -> str:
            return "n/a" if load is None else " ".join(f"{x:.2f}" for x in load)

        idle = {True: "idle", False: "NOT idle (shared machine busy)", None: "load unknown"}[self.idle]
        return (
            f"machine: {self.cpus} CPUs; load average (1/5/15 min) at start {show(self.load_start)}, "
            f"at end {show(self.load_end)}: {idle} (idle = 1-min load <= {IDLE_LOAD_PER_CPU:g} per CPU)"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "cpus": self.cpus,
            "loadavg_start": self.load_start,
            "loadavg_end": self.load_end,
            "idle": self.idle,
        }


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(wall_ms: Sequence[float], cpu_ms: Sequence[float] | None = None) -> dict[str, float | None]:
    """p50/p95 wall and p50 CPU milliseconds."""
    return {
        "p50_ms": statistics.median(wall_ms),
        "p95_ms": percentile(wall_ms, 0.95),
        "cpu_p50_ms": statistics.median(cpu_ms) if cpu_ms else None,
    }


def timed_calls(fn: Callable[[int], object], runs: int) -> tuple[list[float], list[float]]:
    """Wall and CPU milliseconds of ``fn(i)`` in this process (CPU: every thread of it)."""
    wall, cpu = [], []
    for i in range(runs):
        c0, t0 = time.process_time(), time.perf_counter()
        fn(i)
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.process_time() - c0) * 1000)
    return wall, cpu


def children_cpu_ms() -> float:
    try:
        import resource  # POSIX only; on Windows the CPU column reads 0
    except ImportError:
        return 0.0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def cold_run(argv: list[str], env: dict[str, str], stdin: str = "") -> tuple[float, float, str]:
    """(wall ms, CPU ms of the child, its stdout) of one fresh process."""
    c0, t0 = children_cpu_ms(), time.perf_counter()
    done = subprocess.run(argv, input=stdin, env=env, capture_output=True, text=True, check=True)
    return (time.perf_counter() - t0) * 1000, children_cpu_ms() - c0, done.stdout


def cold_runs(
    argv: list[str], env: dict[str, str], inputs: Sequence[str]
) -> tuple[list[float], list[float], int]:
    """Wall and CPU ms per fresh process (the first run, a warm-up, dropped) and how many printed output."""
    wall, cpu, answered = [], [], 0
    for i, stdin in enumerate(inputs):
        elapsed, used, out = cold_run(argv, env, stdin)
        if i:
            wall.append(elapsed)
            cpu.append(used)
            answered += bool(out.strip())
    return wall, cpu, answered


def print_rows(rows: list[dict[str, Any]], machine: Machine) -> None:
    """The table every bench prints: metric, memories, p50, p95, CPU p50, target, extra, then the load."""
    print(f"{'metric':48} {'memories':>8} {'p50 ms':>8} {'p95 ms':>8} {'cpu p50':>8} {'target':>7}  note")
    for r in rows:
        target = "" if r.get("target_ms") is None else f"<={r['target_ms']:g}"
        memories = "" if r.get("memories") is None else r["memories"]
        cpu = "" if r.get("cpu_p50_ms") is None else f"{r['cpu_p50_ms']:8.1f}"
        print(
            f"{r['metric']:48} {memories:>8} {r['p50_ms']:8.1f} {r['p95_ms']:8.1f} {cpu:>8} {target:>7}  "
            f"{r.get('note', '')}"
        )
    print(machine.line())


def write_json(
    path: str | None, bench: str, rows: list[dict[str, Any]], machine: Machine, **extra: Any
) -> None:
    if path:
        Path(path).write_text(
            json.dumps({"bench": bench, "machine": machine.to_dict(), "rows": rows, **extra}, indent=2),
            encoding="utf-8",
        )
