"""Build a large SQLite database for the scale bench (bench/scale_1m.py), once, outside the repo.

    nice .venv/bin/python bench/scale_build.py --memories 1000000 --out /work/wt/scale-data/1m.db

Memories: distinct synthetic notes (bench/embed_corpus.py; every text carries its number, so
exact dedup drops none) spread over projects of very different sizes: ``small`` holds 1 of
every 1,000 (1,000 at 1M), ``team0``..``team49`` hold 1 in 5 together (4,000 each at 1M) and
``bench`` the rest. Vectors: real builtin-model embeddings of 2,000 distinct texts, each reused
with a little noise and renormalised (embedding 1M texts would take hours on 2 shared cores);
the search work per query is that of 1M distinct vectors. The build fails when the database
does not end up holding exactly the number of memories asked for.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from embed_corpus import memory_texts

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.embed.builtin import open_builtin
from memwarden.models import Memory, utcnow

BASE_TEXTS = 2_000
CHUNK = 2_000
SMALL_PROJECT = "small"


def project_of(i: int) -> str:
    if i % 1000 == 7:
        return SMALL_PROJECT
    if i % 5 == 0:
        return f"team{(i // 5) % 50}"
    return "bench"


def index_text_of(service: object) -> object:
    """The function that turns a memory into its keyword-index text (service layout agnostic)."""
    intake = getattr(service, "intake", None) or getattr(getattr(service, "memories", None), "intake", None)
    if intake is not None:
        return intake.index_text
    return service._index_text  # type: ignore[attr-defined]


def stored_count(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM memories WHERE deleted_at IS NULL").fetchone()[0])


def build(db: Path, count: int, model: str = "") -> dict[str, object]:
    import hashlib

    import numpy as np
    from ulid import ULID

    embedder = open_builtin(model)
    embedder.load()
    space = embedder.identity
    settings = load_settings(
        db=str(db),
        log_file=str(db.with_suffix(".log")),
        backup_dir=str(db.parent / "backups"),
        embedder="none",
        sqlite_synchronous="NORMAL",
        audit=False,
    )
    service = build_service(settings)
    index_text = index_text_of(service)
    store = service.store  # type: ignore[attr-defined]
    started, started_cpu = time.perf_counter(), time.process_time()
    texts = memory_texts(count, seed=count)
    base = np.ascontiguousarray(embedder.embed_documents(texts[:BASE_TEXTS]), dtype=np.float32)
    rng = np.random.default_rng(count)
    have = stored_count(db)  # resumable: a build stopped half-way continues where it stopped
    now = utcnow()
    for start in range(have - have % CHUNK, count, CHUNK):
        chunk = texts[start : start + CHUNK]
        memories = [
            Memory(
                id=str(ULID()),
                tenant="default",
                project=project_of(start + k),
                kind="fact",
                title="",
                tags=(),
                content=t,
                content_hash=hashlib.sha256(t.encode()).hexdigest(),
                pinned=False,
                created_at=now,
                updated_at=now,
            )
            for k, t in enumerate(chunk)
        ]
        outcomes = store.import_memories([(m, index_text(m)) for m in memories])
        vectors = base[np.arange(start, start + len(chunk)) % len(base)]
        vectors = vectors + rng.normal(0, 0.02, vectors.shape).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        store.put_vectors(
            space,
            [
                (m.id, 1, vectors[k].astype(np.float32).tobytes())
                for k, m in enumerate(memories)
                if outcomes[k] == "inserted"
            ],
        )
        if (start // CHUNK) % 25 == 0:
            print(
                f"{start + len(chunk):>9} memories  {time.perf_counter() - started:7.0f} s wall  "
                f"load {os.getloadavg()[0]:.2f}",
                flush=True,
            )
    service.close()  # type: ignore[attr-defined]
    stored = stored_count(db)
    return {
        "memories": count,
        "stored": stored,
        "build_s": round(time.perf_counter() - started, 1),
        "build_cpu_s": round(time.process_time() - started_cpu, 1),
        "db_bytes": db.stat().st_size,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=1_000_000)
    parser.add_argument(
        "--model", default="", help="builtin model whose vectors to write (empty: the default)"
    )
    parser.add_argument("--out", required=True, help="database file to create (or finish)")
    args = parser.parse_args(argv)
    db = Path(args.out)
    db.parent.mkdir(parents=True, exist_ok=True)
    report = build(db, args.memories, args.model)
    print(report)
    if report["stored"] != args.memories:
        print(
            f"FAILED: asked for {args.memories} memories, the database holds {report['stored']}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
