"""Recall@10 of the approximate (HNSW) vector index against exact search, on real embeddings.

    .venv/bin/python bench/vector_recall.py [--memories 6000] [--queries 200] [--json FILE]

Embeds ``--memories`` varied memory texts and ``--queries`` other texts with the builtin model,
stores them in a SQLite file, and searches every query twice: once through a store whose
MEMWARDEN_VECTOR_EXACT_MAX is below the count (HNSW candidates, rescored exactly) and once
exactly (numpy float32). Prints recall@10 and the per-query time of both. Scopes are never scored exactly here (the
index's ``scope_exact_max`` is set to 0 on the HNSW side), so the graph is what is measured.
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

from embed_corpus import memory_texts

from memwarden.embed.builtin import open_builtin
from memwarden.models import IndexText, Memory, utcnow
from memwarden.store.sqlite import SQLiteStore


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=6000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--json", dest="json_file")
    args = parser.parse_args(argv)
    from ulid import ULID

    embedder = open_builtin()
    embedder.load()
    texts = memory_texts(args.memories + args.queries, seed=3)
    started = time.perf_counter()
    vectors = embedder.embed_documents(texts)
    embed_s = time.perf_counter() - started
    docs, queries = vectors[: args.memories], vectors[args.memories :]
    now = utcnow()
    with tempfile.TemporaryDirectory() as tmp:
        approx = SQLiteStore(Path(tmp) / "r.db", synchronous="NORMAL", vector_exact_max=args.memories // 2)
        exact = SQLiteStore(Path(tmp) / "r.db", synchronous="NORMAL", vector_exact_max=10**9)
        memories = [
            Memory(
                id=str(ULID()),
                tenant="default",
                project="p",
                kind="fact",
                title="",
                tags=(),
                content=t,
                content_hash=f"h{i}",
                pinned=False,
                created_at=now,
                updated_at=now,
            )
            for i, t in enumerate(texts[: args.memories])
        ]
        approx.import_memories([(m, IndexText("", "", "x")) for m in memories])
        stored = approx.put_vectors(
            embedder.identity, [(m.id, 1, docs[i].tobytes()) for i, m in enumerate(memories)]
        )
        if stored != args.memories:
            print(
                f"FAILED: asked for {args.memories} memories with vectors, stored {stored}", file=sys.stderr
            )
            return 1
        approx._vector_index(embedder.identity).scope_exact_max = 0
        approx.warm_vectors(embedder.identity)
        found = 0
        times: dict[str, list[float]] = {"hnsw": [], "exact": []}
        cpu: dict[str, list[float]] = {"hnsw": [], "exact": []}
        for q in queries:
            results = {}
            for name, store in (("hnsw", approx), ("exact", exact)):
                t, c = time.perf_counter(), time.process_time()
                hits = store.vector_search(
                    "default",
                    embedder.identity,
                    q,
                    project=None,
                    tags=(),
                    include_expired=True,
                    now=now,
                    limit=10,
                )
                times[name].append((time.perf_counter() - t) * 1000)
                cpu[name].append((time.process_time() - c) * 1000)
                results[name] = {c.memory.id for c in hits}
            found += len(results["hnsw"] & results["exact"])
        recall = found / (10 * len(queries))
        approx.close()
        exact.close()
    report = {
        "memories": args.memories,
        "stored": stored,
        "queries": len(queries),
        "recall_at_10": round(recall, 4),
        "hnsw_p50_ms": round(statistics.median(times["hnsw"]), 3),
        "hnsw_cpu_p50_ms": round(statistics.median(cpu["hnsw"]), 3),
        "exact_p50_ms": round(statistics.median(times["exact"]), 3),
        "exact_cpu_p50_ms": round(statistics.median(cpu["exact"]), 3),
        "embed_per_s": round(len(texts) / embed_s, 1),
        "loadavg": os.getloadavg(),
    }
    print(
        f"{'stored':>9} {'queries':>8} {'recall@10':>10} {'hnsw p50 ms':>12} {'(CPU)':>7} {'exact p50 ms':>13}"
        f" {'(CPU)':>7}"
    )
    print(
        f"{report['stored']:>9} {report['queries']:>8} {report['recall_at_10']:>10} "
        f"{report['hnsw_p50_ms']:>12} {report['hnsw_cpu_p50_ms']:>7} {report['exact_p50_ms']:>13}"
        f" {report['exact_cpu_p50_ms']:>7}"
    )
    print(f"(embedding {report['embed_per_s']} texts/s; machine load {report['loadavg']}, 2 shared cores)")
    if args.json_file:
        Path(args.json_file).write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0 if recall >= 0.95 else 1


if __name__ == "__main__":
    sys.exit(main())
