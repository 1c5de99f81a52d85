"""Speed of the embedding paths: query embedding + hybrid search, bulk add with embeddings, memory.

    .venv/bin/python bench/embeddings.py [--sizes 10000,100000] [--queries 200] [--model NAME] [--json FILE]

For each size N it fills a fresh SQLite file with N memories and their vectors, then runs
``MemoryService.search`` (query embedding with the builtin model + keyword search + vector
search + fusion + ranking) for distinct queries and reports p50/p95. Embedding 100k texts with
the model would take most of an hour on 2 shared cores, so the stored vectors are real model
embeddings of 2,000 distinct texts, each reused with a little noise (renormalised): the search
work per query is the same as with 100k distinct embeddings. Bulk add is measured for real:
``memwarden import`` of 2,000 new memories (batched embedding), 300 single ``add`` calls, and
the backfill (``memwarden reindex --embeddings``) of 2,000 memories stored without vectors;
target (issue 17) >= 400 memories/s for import and backfill on an idle machine. RSS is measured
in a fresh process that opens the filled database like a server (builtin model loaded, all
vectors loaded, a few searches), not in the benchmark process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from embed_corpus import QUERIES, memory_texts

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.embed.builtin import open_builtin
from memwarden.intake import content_hash
from memwarden.models import Memory, utcnow

BASE_TEXTS = 2_000


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def stored_counts(db: str) -> tuple[int, int]:
    """Live memories and vectors actually in the database (what the figures are taken at)."""
    import sqlite3

    with sqlite3.connect(db) as conn:
        memories = conn.execute("SELECT COUNT(*) FROM memories WHERE deleted_at IS NULL").fetchone()[0]
        vectors = conn.execute("SELECT COUNT(*) FROM memory_vectors").fetchone()[0]
    return int(memories), int(vectors)


def fill(service: object, embedder: object, count: int) -> float:
    """N memories with vectors, written in batches; returns seconds taken."""
    import numpy as np
    from ulid import ULID

    started = time.perf_counter()
    texts = memory_texts(count, seed=count)
    base = embedder.embed_documents(texts[:BASE_TEXTS])  # type: ignore[attr-defined]
    rng = np.random.default_rng(count)
    space = embedder.identity  # type: ignore[attr-defined]
    index_text = service.intake.index_text  # type: ignore[attr-defined]
    now = utcnow()
    for start in range(0, count, 2_000):
        chunk = texts[start : start + 2_000]
        memories = [
            Memory(
                id=str(ULID()),
                tenant="default",
                project="bench",
                kind="fact",
                title="",
                tags=(),
                content=t,
                content_hash=content_hash(t),
                pinned=False,
                created_at=now,
                updated_at=now,
            )
            for t in chunk
        ]
        service.store.import_memories([(m, index_text(m)) for m in memories])  # type: ignore[attr-defined]
        vectors = base[np.arange(start, start + len(chunk)) % len(base)]
        vectors = vectors + rng.normal(0, 0.02, vectors.shape).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        service.store.put_vectors(
            space,
            [
                (m.id, 1, vectors[i].astype(np.float32).tobytes())  # type: ignore[attr-defined]
                for i, m in enumerate(memories)
            ],
        )
    return time.perf_counter() - started


RSS_PROBE = """
import sys, re
from pathlib import Path
from memwarden.app import build_service
from memwarden.config import load_settings
svc = build_service(load_settings(db=sys.argv[1], log_file=sys.argv[2], embedder="builtin"), background=False)
for q in ("how does the customer want to be contacted", "which database version", "what python version"):
    svc.searcher.search(q, project="bench")
status = Path("/proc/self/status").read_text()
print(int(re.search(r"VmRSS:\\s+(\\d+)", status).group(1)) // 1024)
"""


def server_rss_mb(db: str, log: str) -> float:
    """Resident memory of a fresh process that opens the database as a server would (model
    loaded, vectors loaded, a few searches): what a user's memwarden process holds."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", RSS_PROBE, db, log], capture_output=True, text=True, timeout=900
    )
    return float(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else float("nan")


def search_latency(service: object, queries: int) -> dict[str, float]:
    words = ["", " today", " please", " again", " now", " for the team", " in production", " exactly"]
    asks = [f"{q}{w}" for w in words for q in QUERIES][:queries]
    service.searcher.search(asks[0], project="bench")  # type: ignore[attr-defined]  # index load, caches
    times, cpu, degraded = [], [], 0
    for ask in asks:
        started, started_cpu = time.perf_counter(), time.process_time()
        result = service.searcher.search(ask, project="bench", limit=10)  # type: ignore[attr-defined]
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
        degraded += result.degraded
    times.sort()
    return {
        "p50_ms": round(statistics.median(times), 2),
        "p95_ms": round(times[int(len(times) * 0.95) - 1], 2),
        "cpu_p50_ms": round(statistics.median(cpu), 2),
        "queries": len(times),
        "degraded": degraded,
    }


def bulk_add(tmp: str, embedder: object) -> dict[str, float]:
    settings = load_settings(
        db=f"{tmp}/bulk.db", log_file=f"{tmp}/log", backup_dir=f"{tmp}/b", embedder="builtin"
    )
    service = build_service(settings, embedder=embedder, background=False)  # type: ignore[arg-type]
    assert service.vectors is not None and service.vectors.wait_ready(60)
    records = [{"content": t} for t in memory_texts(2_000, seed=99)]
    text = json.dumps(records)  # the plain list of {"content": …} that the memorry importer reads
    started, started_cpu = time.perf_counter(), time.process_time()
    try:
        report = service.operations.import_text(text, fmt="auto")
        import_s = time.perf_counter() - started
        import_cpu = time.process_time() - started_cpu
    except Exception as exc:  # noqa: BLE001 - the import format is another engineer's; report, go on
        report, import_s, import_cpu = {"error": str(exc)}, float("nan"), float("nan")
    singles = memory_texts(300, seed=7)
    started, started_cpu = time.perf_counter(), time.process_time()
    failed = sum(service.memories.add(t, project="single").embedding_failed for t in singles)
    add_s, add_cpu = time.perf_counter() - started, time.process_time() - started_cpu
    status = service.searcher.vector_status(probe=False)
    service.close()
    backfill = backfill_speed(tmp, embedder)
    return {
        **backfill,
        "import_per_s": round(report.get("embedded", 0) / import_s, 1) if import_s == import_s else 0.0,
        "import_per_cpu_s": round(report.get("embedded", 0) / import_cpu, 1)
        if import_cpu == import_cpu
        else 0.0,
        "import_report": report,
        "add_per_s": round(len(singles) / add_s, 1),
        "add_per_cpu_s": round(len(singles) / add_cpu, 1),
        "add_failed": failed,
        "missing_after": status["missing"],
    }


def backfill_speed(tmp: str, embedder: object) -> dict[str, float]:
    """``memwarden reindex --embeddings`` on 2,000 memories stored without vectors (imported with
    the embedder off), timed alone: the batched backfill of an existing database."""
    plain = build_service(
        load_settings(db=f"{tmp}/backfill.db", log_file=f"{tmp}/log", backup_dir=f"{tmp}/b", embedder="none"),
        background=False,
    )
    plain.operations.import_text(json.dumps([{"content": t} for t in memory_texts(2_000, seed=123)]))
    plain.close()
    settings = load_settings(
        db=f"{tmp}/backfill.db", log_file=f"{tmp}/log", backup_dir=f"{tmp}/b", embedder="builtin"
    )
    service = build_service(settings, embedder=embedder, background=False)  # type: ignore[arg-type]
    assert service.vectors is not None and service.vectors.wait_ready(60)
    started, started_cpu = time.perf_counter(), time.process_time()
    embedded = service.vectors.backfill()
    wall, cpu = time.perf_counter() - started, time.process_time() - started_cpu
    service.close()
    return {
        "backfill_embedded": embedded,
        "backfill_per_s": round(embedded / wall, 1),
        "backfill_per_cpu_s": round(embedded / cpu, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--json", dest="json_file")
    parser.add_argument("--model", default="", help="builtin model name (empty: the default)")
    args = parser.parse_args(argv)
    if args.model:  # the RSS child and every service read the model from the environment
        os.environ["MEMWARDEN_EMBED_MODEL"] = args.model
    load_start = os.getloadavg()
    embedder = open_builtin(args.model)
    started = time.perf_counter()
    embedder.load()
    report: dict[str, object] = {
        "model": embedder.identity.model_id,
        "load_s": round(time.perf_counter() - started, 2),
    }
    with tempfile.TemporaryDirectory() as tmp:
        report["bulk"] = bulk_add(tmp, embedder)
        for size in [int(s) for s in args.sizes.split(",")]:
            settings = load_settings(
                db=f"{tmp}/s{size}.db",
                log_file=f"{tmp}/log",
                backup_dir=f"{tmp}/b",
                embedder="builtin",
                sqlite_synchronous="NORMAL",
            )
            service = build_service(settings, embedder=embedder, background=False)
            fill_s = fill(service, embedder, size)
            stored, with_vectors = stored_counts(f"{tmp}/s{size}.db")
            if (stored, with_vectors) != (size, size):
                print(
                    f"FAILED: asked for {size} memories with vectors, stored {stored} memories and "
                    f"{with_vectors} vectors",
                    file=sys.stderr,
                )
                return 1
            latency = search_latency(service, args.queries)
            service.close()
            report[str(size)] = {
                "fill_s": round(fill_s, 1),
                "stored": stored,
                **latency,
                "rss_mb": round(server_rss_mb(f"{tmp}/s{size}.db", f"{tmp}/log"), 1),
                "bench_process_rss_mb": round(rss_mb(), 1),
                "index": "exact" if size <= settings.vector_exact_max else "hnsw",
            }
    bulk = report["bulk"]
    report["loadavg_start"] = load_start
    report["loadavg_end"] = os.getloadavg()
    print(
        f"model {report['model']} (load {report['load_s']} s); machine: {os.cpu_count()} cores, "
        f"load average {tuple(round(x, 2) for x in load_start)} at the start, "
        f"{tuple(round(x, 2) for x in report['loadavg_end'])} at the end"  # type: ignore[union-attr]
    )
    print(
        f"bulk: import {bulk['import_per_s']} memories/s wall, {bulk['import_per_cpu_s']} per CPU-second; "  # type: ignore[index]
        f"single add {bulk['add_per_s']}/s wall, {bulk['add_per_cpu_s']} per CPU-second; "  # type: ignore[index]
        f"backfill {bulk['backfill_per_s']}/s wall, {bulk['backfill_per_cpu_s']} per CPU-second"  # type: ignore[index]
    )  # type: ignore[index]
    print(
        f"{'stored':>10} {'p50 ms':>8} {'p95 ms':>8} {'CPU p50':>8} {'degraded':>9} {'RSS MB':>8} {'index':>6}"
    )
    for size in args.sizes.split(","):
        row = report[size]
        print(
            f"{row['stored']:>10} {row['p50_ms']:>8} {row['p95_ms']:>8} {row['cpu_p50_ms']:>8} {row['degraded']:>9} "  # type: ignore[index]
            f"{row['rss_mb']:>8} {row['index']:>6}"
        )  # type: ignore[index]
    if args.json_file:
        Path(args.json_file).write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
