"""Quality of keyword-only, vector-only, RRF and score fusion, per language and per builtin model.

Runs the real pipeline (analyzer, SQLite FTS5, vector index, embedder) over
bench/hybrid_quality_cases.json and prints MRR@10 and hit@3 per mode. Usage:

    .venv/bin/python bench/hybrid_quality.py [--models all-MiniLM-L6-v2-int8,multilingual-e5-small-q4]
                                             [--weights 0.3,0.5,0.7] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.embed.builtin import MODELS, open_builtin
from memwarden.models import utcnow
from memwarden.search.hybrid import fuse, fuse_rrf, vector_only
from memwarden.search.ranking import rank, rank_keyword

CASES = Path(__file__).with_name("hybrid_quality_cases.json")
POOL = 50


def reciprocal_rank(ranked: list[str], relevant: set[str], depth: int = 10) -> float:
    for position, memory_id in enumerate(ranked[:depth], start=1):
        if memory_id in relevant:
            return 1.0 / position
    return 0.0


def keyword_suite_cases() -> dict[str, dict[str, object]]:
    """The keyword suite's corpora (bench/quality/corpora, written for keyword search) as cases."""
    sys.path.insert(0, str(Path(__file__).parent / "quality"))
    from run import CORPORA, load_corpus  # type: ignore[import-not-found]

    cases: dict[str, dict[str, object]] = {}
    for path in sorted(CORPORA.glob("*.txt")):
        corpus = load_corpus(path)
        cases[f"q-{corpus.name}"] = {
            "memories": dict(corpus.memories),
            "queries": [{"q": q, "relevant": rel, "kind": "suite"} for q, rel in corpus.queries],
        }
    return cases


def evaluate_model(
    model: str, weights: list[float], *, suite: bool
) -> dict[str, dict[str, dict[str, float]]]:
    cases = json.loads(CASES.read_text(encoding="utf-8"))["languages"]
    if suite:
        cases.update(keyword_suite_cases())
    embedder = open_builtin(model)
    embedder.load()
    results: dict[str, dict[str, dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        # A generous budget: this measures quality, not speed (the machine is shared).
        settings = load_settings(db=f"{tmp}/q.db", log_file=f"{tmp}/log", vector_timeout_ms=60_000)
        service = build_service(settings, embedder=embedder, background=False)
        assert service.vectors is not None and service.vectors.wait_ready(60)
        for language, data in cases.items():
            ids = {}
            for key, text in data["memories"].items():
                ids[service.memories.add(text, project=language).memory.id] = key
            modes: dict[str, list[float]] = {}
            hits3: dict[str, list[float]] = {}
            for case in data["queries"]:
                relevant = set(case["relevant"])
                kq = service.intake.analyzer.query(case["q"])  # exactly what MemoryService.search uses
                terms = kq.terms
                now = utcnow()
                keyword = (
                    service.store.keyword_search(
                        "default", kq, project=language, tags=(), include_expired=False, now=now, limit=POOL
                    )
                    if terms
                    else []
                )
                vector, reason = service.vectors.search(
                    "default",
                    case["q"],
                    project=language,
                    tags=(),
                    include_expired=False,
                    now=now,
                    limit=POOL,
                )
                assert reason is None, reason
                weights_ = service.searcher.ranking

                def ranked(candidates: list, now=now, weights_=weights_) -> list[str]:  # type: ignore[type-arg]
                    return [h.memory.id for h in rank(candidates, now=now, limit=10, weights=weights_)]

                rankings = {
                    "keyword": [
                        h.memory.id for h in rank_keyword(keyword, kq, now=now, limit=10, weights=weights_)
                    ],
                    "vector": ranked(vector_only(vector, kq)),
                    "rrf": ranked(fuse_rrf(keyword, vector, kq)),
                }
                for w in weights:
                    rankings[f"fused w={w}"] = ranked(fuse(keyword, vector, kq, vector_weight=w))
                rankings["fused (default)"] = ranked(
                    fuse(
                        keyword,
                        vector,
                        kq,
                        vector_weight=service.vectors.fusion_weight(case["q"]),
                        covered_weight=service.vectors.covered_weight(case["q"]),
                    )
                )
                for mode, ranked in rankings.items():
                    keys = [ids[i] for i in ranked]
                    modes.setdefault(mode, []).append(reciprocal_rank(keys, relevant))
                    hits3.setdefault(mode, []).append(float(bool(relevant & set(keys[:3]))))
            results[language] = {
                mode: {
                    "mrr10": round(statistics.fmean(v), 4),
                    "hit3": round(statistics.fmean(hits3[mode]), 4),
                }
                for mode, v in modes.items()
            }
        service.close()
    return results


def speed(model: str) -> dict[str, float]:
    embedder = open_builtin(model)
    started = time.perf_counter()
    embedder.load()
    load_s = time.perf_counter() - started
    queries = [f"how should I contact customer number {i} about the invoice" for i in range(50)]
    times = []
    for q in queries:
        t = time.perf_counter()
        embedder.embed_query(q)
        times.append((time.perf_counter() - t) * 1000)
    docs = [
        f"Memory {i}: the deploy pipeline for service {i} runs after the standup, owned by team {i % 7}"
        for i in range(256)
    ]
    t = time.perf_counter()
    embedder.embed_documents(docs)
    rate = len(docs) / (time.perf_counter() - t)
    return {
        "load_s": round(load_s, 3),
        "query_ms_p50": round(statistics.median(times), 2),
        "docs_per_s": round(rate, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--weights", default="0.5,0.7,0.9")
    parser.add_argument("--json", dest="json_file")
    parser.add_argument(
        "--no-suite", action="store_true", help="skip the keyword suite's corpora (bench/quality/corpora)"
    )
    args = parser.parse_args(argv)
    weights = [float(w) for w in args.weights.split(",")]
    report: dict[str, object] = {}
    for model in args.models.split(","):
        quality = evaluate_model(model, weights, suite=not args.no_suite)
        report[model] = {"quality": quality, "speed": speed(model)}
        print(f"\n## {model}   speed: {report[model]['speed']}")  # type: ignore[index]
        modes = list(next(iter(quality.values())).keys())
        print("MRR@10 (hit@3)")
        print(f"{'mode':<16}" + "".join(f"{lang:>16}" for lang in quality))
        for mode in modes:
            print(
                f"{mode:<16}"
                + "".join(
                    f"{quality[lang][mode]['mrr10']:>9.3f} ({quality[lang][mode]['hit3']:.2f})"
                    for lang in quality
                )
            )
    if args.json_file:
        Path(args.json_file).write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
