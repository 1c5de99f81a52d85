"""Operations speed: backup + verification, export and import, without embeddings.

    python bench/ops.py [--size 100000] [--transfer 10000] [--runs 3] [--json FILE]

Builds a database of ``--size`` memories (through import, which is timed too), then measures:
a verified backup (snapshot through the SQLite backup API, integrity check, row counts, audit
chain) of that database, whose audit log holds one row per add and one per search of every
memory (so verifying the chain is timed at a realistic size); exporting it; importing a ``--transfer``-memory export into an empty
database. Prints medians of ``--runs`` runs. Targets (issue 6): backup + verification of a
100k-memory database <= 10 s; export and import >= 5,000 memories/s.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import memory_text

from memwarden.app import build_service
from memwarden.config import load_settings


def records(count: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    return json.dumps(
        [
            {
                "content": memory_text(rng, n),
                "scope": f"p{n % 7}",
                "tags": [f"t{n % 11}"],
                "created_at": "2026-01-01T00:00:00Z",
            }
            for n in range(count)
        ]
    )


def service_at(path: Path):  # type: ignore[no-untyped-def]
    return build_service(
        load_settings(
            db=str(path),
            embedder="none",
            backup_dir=str(path.parent / "backups"),
            backup_keep=1000,
            log_file=str(path.parent / "log"),
        ),
        ops=True,
    )


def fill_audit(service, memories: int) -> int:  # type: ignore[no-untyped-def]
    """A realistic audit log for the backup's chain verification: one row per add and one per
    search for every memory, as a database that was filled and used one memory at a time has.
    Written through the auditor (hash-chained like any row); returns the rows in the log."""
    auditor = service.auditor
    assert auditor is not None, "the bench measures with auditing on, as users run it"
    who = service.default_caller
    ids = [m.id for m in service.memories.list(limit=1)]
    for n in range(memories):
        auditor.record("add", who, project=f"p{n % 7}", memory_ids=ids, result_count=1)
        auditor.record("search", who, project=f"p{n % 7}", query=f"query {n}", memory_ids=ids, result_count=1)
    return int(auditor.log.head().seq)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--transfer", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()
    rows: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory(prefix="memwarden-bench-ops-") as tmp:
        base = Path(tmp)
        big = service_at(base / "big.db")
        t0 = time.perf_counter()
        big.operations.import_text(records(args.size), fmt="memorry")
        build_s = time.perf_counter() - t0
        rows.append(
            {
                "metric": "import (memorry JSON, build)",
                "memories": args.size,
                "seconds": build_s,
                "per_second": args.size / build_s,
                "target": ">= 5000/s",
            }
        )
        audit_rows = fill_audit(big, args.size)
        backups = big.operations.backups
        assert backups is not None
        backup_s = []
        for _ in range(args.runs):
            record = backups.backup()
            assert record.verified, record.problems
            backup_s.append(record.seconds)
        size_mb = record.bytes / 1e6
        rows.append(
            {
                "metric": f"backup + verification ({size_mb:.0f} MB, {audit_rows:,} audit rows)",
                "memories": args.size,
                "seconds": statistics.median(backup_s),
                "per_second": None,
                "target": "<= 10 s",
            }
        )
        health_s = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            assert big.operations.health()["status"] == "ok"
            health_s.append(time.perf_counter() - t0)
        rows.append(
            {
                "metric": "health (integrity + index/vector writes)",
                "memories": args.size,
                "seconds": statistics.median(health_s),
                "per_second": None,
                "target": "",
            }
        )
        export_s, export_cpu = [], []
        for _ in range(args.runs):
            buffer = io.StringIO()
            t0, c0 = time.perf_counter(), time.process_time()
            big.operations.export_to(buffer)
            export_s.append(time.perf_counter() - t0)
            export_cpu.append(time.process_time() - c0)
        rows.append(
            {
                "metric": "export (memwarden JSON)",
                "memories": args.size,
                "seconds": statistics.median(export_s),
                "per_second": args.size / statistics.median(export_s),
                "target": ">= 5000/s",
            }
        )
        rows.append(
            {
                "metric": "  same, CPU seconds of this process",
                "memories": args.size,
                "seconds": statistics.median(export_cpu),
                "per_second": args.size / statistics.median(export_cpu),
                "target": "",
            }
        )
        sample = io.StringIO()
        small = service_at(base / "small.db")
        small.operations.import_text(records(args.transfer, seed=11), fmt="memorry")
        small.operations.export_to(sample)
        small.close()
        text = sample.getvalue()
        import_s, import_cpu, again_s = [], [], []
        for run in range(args.runs):
            target = service_at(base / f"target{run}.db")
            t0, c0 = time.perf_counter(), time.process_time()
            report = target.operations.import_text(text)
            import_s.append(time.perf_counter() - t0)
            import_cpu.append(time.process_time() - c0)
            assert report["inserted"] == args.transfer
            t0 = time.perf_counter()
            assert target.operations.import_text(text)["skipped_same_id"] == args.transfer
            again_s.append(time.perf_counter() - t0)
            target.close()
        rows.append(
            {
                "metric": "import (memwarden JSON, empty db)",
                "memories": args.transfer,
                "seconds": statistics.median(import_s),
                "per_second": args.transfer / statistics.median(import_s),
                "target": ">= 5000/s",
            }
        )
        rows.append(
            {
                "metric": "  same, CPU seconds of this process",
                "memories": args.transfer,
                "seconds": statistics.median(import_cpu),
                "per_second": args.transfer / statistics.median(import_cpu),
                "target": "",
            }
        )
        rows.append(
            {
                "metric": "import the same file again (all skipped)",
                "memories": args.transfer,
                "seconds": statistics.median(again_s),
                "per_second": args.transfer / statistics.median(again_s),
                "target": "",
            }
        )
        big.close()
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (shared machine?)")
    print(f"{'metric':40} {'memories':>9} {'median s':>9} {'per s':>9} {'target':>10}")
    for row in rows:
        rate = f"{row['per_second']:9.0f}" if row["per_second"] else f"{'':>9}"
        print(f"{row['metric']:40} {row['memories']:>9} {row['seconds']:9.2f} {rate} {row['target']:>10}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"runs": args.runs, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
