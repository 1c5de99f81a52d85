"""Retrieval quality of keyword search (no model) on corpora written for memwarden.

    python bench/quality/run.py                 # table of recall@1/3/5 and MRR per language
    python bench/quality/run.py --json out.json # also write the numbers as JSON
    python bench/quality/run.py --verbose       # show every query that misses the top 3

Each corpus (bench/quality/corpora/*.txt) is loaded into a fresh SQLite database through the
real ``MemoryService`` (analyzer, FTS5 index, memory ranking); every query runs through
``service.search``. Memories get ages spread over a year in file order (later lines are newer),
so recency is part of the ranking as it is in real use.

recall@k: the share of a query's relevant memories in the top k, capped at k (a query with two
relevant memories scores 1.0 at k=1 when one of them is first). MRR: mean of 1/rank of the
first relevant memory (0 when it is not in the top 10).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

CORPORA = Path(__file__).resolve().parent / "corpora"
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
KS = (1, 3, 5)
DEPTH = 10


@dataclass
class Corpus:
    name: str
    memories: list[tuple[str, str]]
    queries: list[tuple[str, list[str]]]


def load_corpus(path: Path) -> Corpus:
    memories: list[tuple[str, str]] = []
    queries: list[tuple[str, list[str]]] = []
    section = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("=="):
            section = line.strip("= ").strip()
            continue
        left, _, right = line.rpartition(" | ") if section == "queries" else line.partition(" | ")
        if section == "memories":
            memories.append((left.strip(), right.strip()))
        elif section == "queries":
            queries.append((left.strip(), right.split()))
    known = {mid for mid, _ in memories}
    for query, relevant in queries:
        missing = [r for r in relevant if r not in known]
        if missing:
            raise SystemExit(f"{path.name}: query {query!r} names unknown memories {missing}")
    return Corpus(path.stem, memories, queries)


def evaluate(corpus: Corpus, languages: str, verbose: bool) -> dict[str, float | int]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
    from memwarden.app import build_service
    from memwarden.config import load_settings

    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(
            db=str(Path(tmp) / "quality.db"),
            log_file=str(Path(tmp) / "log"),
            languages=languages,
            backup_dir=str(Path(tmp) / "backups"),
            audit=False,
            embedder="none",
        )
        service = build_service(settings)
        try:
            ids: dict[str, str] = {}
            count = len(corpus.memories)
            for position, (mid, content) in enumerate(corpus.memories):
                when = NOW - timedelta(days=365 * (count - position) / count)
                service.clock = lambda when=when: when
                ids[service.memories.add(content, project="bench").memory.id] = mid
            service.clock = lambda: NOW
            recall = {k: 0.0 for k in KS}
            reciprocal = 0.0
            for query, relevant in corpus.queries:
                hits = service.searcher.search(query, project="bench", limit=DEPTH).hits
                ranked = [ids[h.memory.id] for h in hits]
                for k in KS:
                    recall[k] += len(set(ranked[:k]) & set(relevant)) / min(k, len(relevant))
                first = next((i for i, mid in enumerate(ranked, start=1) if mid in relevant), None)
                reciprocal += 1 / first if first else 0.0
                if verbose and not set(ranked[:3]) & set(relevant):
                    print(f"  miss [{corpus.name}] {query!r}: want {relevant}, got {ranked[:5]}")
        finally:
            service.close()
    n = len(corpus.queries)
    return {
        "memories": len(corpus.memories),
        "queries": n,
        **{f"recall@{k}": round(recall[k] / n, 3) for k in KS},
        "mrr": round(reciprocal / n, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", metavar="FILE", help="write the results as JSON to FILE")
    parser.add_argument("--languages", default="english,turkish", help="MEMWARDEN_LANGUAGES for the run")
    parser.add_argument(
        "--corpus", action="append", help="only this corpus (english, chinese, turkish, mixed)"
    )
    parser.add_argument("--verbose", action="store_true", help="print queries that miss the top 3")
    args = parser.parse_args(argv)
    paths = sorted(CORPORA.glob("*.txt"))
    if args.corpus:
        paths = [p for p in paths if p.stem in args.corpus]
    results = {p.stem: evaluate(load_corpus(p), args.languages, args.verbose) for p in paths}
    header = f"{'corpus':<10}{'memories':>9}{'queries':>8}{'R@1':>7}{'R@3':>7}{'R@5':>7}{'MRR':>7}"
    print(f"keyword-only retrieval quality (MEMWARDEN_LANGUAGES={args.languages})")
    print(header)
    for name, r in results.items():
        print(
            f"{name:<10}{r['memories']:>9}{r['queries']:>8}{r['recall@1']:>7.3f}{r['recall@3']:>7.3f}"
            f"{r['recall@5']:>7.3f}{r['mrr']:>7.3f}"
        )
    if args.json:
        payload = {
            "bench": "quality",
            "mode": "keyword-only",
            "languages": args.languages,
            "results": results,
        }
        Path(args.json).write_text(json.dumps(payload, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
