"""Core speed: add and keyword search through the service, cold CLI processes.

    python bench/core.py [--sizes 10000,100000] [--runs 200] [--json FILE]

Prints a table of medians (and p95) and writes the same numbers as JSON. Targets (issue 2):
add p50 <= 2 ms at 10k; keyword search p50 <= 5 ms at 100k; cold `memwarden search` <= 150 ms
wall at 10k; `memwarden --version` <= 100 ms wall.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import QUERIES, memory_text  # noqa: E402

from memwarden.app import build_service  # noqa: E402
from memwarden.config import load_settings  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def fill(service, count: int, rng: random.Random, start: int = 0) -> None:  # type: ignore[no-untyped-def]
    for n in range(start, start + count):
        service.memories.add(memory_text(rng, n), project=f"p{n % 7}", tags=[f"t{n % 11}"])


def time_calls(fn, runs: int) -> list[float]:  # type: ignore[no-untyped-def]
    samples = []
    for i in range(runs):
        t0 = time.perf_counter()
        fn(i)
        samples.append((time.perf_counter() - t0) * 1000)
    return samples


def compile_package() -> None:
    """Write the package's bytecode, as ``pip install`` does for a wheel.

    Cold-start numbers are otherwise dominated by compiling sources on every run when
    PYTHONDONTWRITEBYTECODE is set (it is on our sandboxes).
    """
    import compileall

    import memwarden

    compileall.compile_dir(str(Path(memwarden.__file__).parent), quiet=1)


def cold_process(argv: list[str], env: dict[str, str], runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, check=True)
        samples.append((time.perf_counter() - t0) * 1000)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--cold-runs", type=int, default=15)
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    compile_package()
    rng = random.Random(42)
    rows: list[dict[str, object]] = []
    exe = str(Path(sys.executable).with_name("memwarden"))
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        env = {**os.environ, "MEMWARDEN_DB": str(db), "MEMWARDEN_LOG_FILE": str(Path(tmp) / "log")}
        service = build_service(load_settings(db=str(db), log_file=str(Path(tmp) / "log"), embedder="none"))
        have = 0
        for size in sizes:
            fill(service, size - have - args.runs, rng, have)
            have = size - args.runs
            adds = time_calls(lambda i, h=have: service.memories.add(memory_text(rng, h + i), project="bench"), args.runs)
            have = size
            searches = time_calls(lambda i: service.searcher.search(QUERIES[i % len(QUERIES)], limit=10), args.runs)
            rows.append({"metric": "add (service)", "memories": size, "p50_ms": statistics.median(adds),
                         "p95_ms": percentile(adds, 0.95), "target_ms": 2.0 if size == 10_000 else None})
            rows.append({"metric": "keyword search (service)", "memories": size,
                         "p50_ms": statistics.median(searches), "p95_ms": percentile(searches, 0.95),
                         "target_ms": 5.0 if size == 100_000 else None})
            if size == 10_000:
                cold = cold_process([exe, "search", "client email", "--json"], env, args.cold_runs)
                rows.append({"metric": "memwarden search (cold process)", "memories": size,
                             "p50_ms": statistics.median(cold), "p95_ms": percentile(cold, 0.95), "target_ms": 150.0})
        version = cold_process([exe, "--version"], env, args.cold_runs)
        rows.append({"metric": "memwarden --version (cold process)", "memories": None,
                     "p50_ms": statistics.median(version), "p95_ms": percentile(version, 0.95), "target_ms": 100.0})
        service.close()
    print(f"{'metric':38} {'memories':>9} {'p50 ms':>8} {'p95 ms':>8} {'target':>7}")
    for row in rows:
        target = "" if row["target_ms"] is None else f"<={row['target_ms']:g}"
        mem = "" if row["memories"] is None else row["memories"]
        print(f"{row['metric']:38} {mem:>9} {row['p50_ms']:8.2f} {row['p95_ms']:8.2f} {target:>7}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"bench": "core", "cpus": os.cpu_count(), "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
