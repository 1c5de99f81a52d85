"""Paraphrase-heavy quality: queries that ask for a memory in other words (and in another
language), where word overlap is little help. Prints, per language set, MRR@10 and hit@3 of a
naive IDF word-overlap baseline beside memwarden keyword-only and hybrid (builtin model).

    python bench/paraphrase/run.py [--modes baseline,keyword,hybrid] [--json FILE]

The baseline: lower-cased words (CJK as single characters), score = sum of the IDF of the query
words a memory holds. The cases (cases.json beside this file) were written for memwarden; they
are not LoCoMo. Memwarden runs through ``search`` on a fresh SQLite file with one project per set.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "src"))
CASES = Path(__file__).with_name("cases.json")
_TOKEN = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]|[^\W_]+")


def naive_tokens(text: str) -> set[str]:
    return set(_TOKEN.findall(text.lower()))


def baseline_rank(memories: dict[str, str], query: str) -> list[str]:
    docs = {key: naive_tokens(text) for key, text in memories.items()}
    df = Counter(t for toks in docs.values() for t in toks)
    n = len(docs)
    words = naive_tokens(query)
    scored = [(sum(math.log(1 + n / df[t]) for t in words & toks), key) for key, toks in docs.items()]
    return [key for score, key in sorted(scored, key=lambda s: (-s[0], s[1])) if score > 0]


def scores(ranked: list[str], relevant: set[str]) -> tuple[float, float]:
    first = next((i for i, k in enumerate(ranked[:10], start=1) if k in relevant), None)
    return (0.0 if first is None else 1.0 / first), (1.0 if first is not None and first <= 3 else 0.0)


def run_memwarden(cases: dict[str, Any], mode: str) -> dict[str, dict[str, float]]:
    from memwarden.app import build_service
    from memwarden.config import load_settings

    out: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(
            db=f"{tmp}/p.db",
            log_file=f"{tmp}/log",
            audit=False,
            embedder="builtin" if mode == "hybrid" else "none",
            vector_timeout_ms=60_000,
        )
        service = build_service(settings, background=False)
        memories_api = getattr(service, "memories", service)
        search_api = getattr(service, "searcher", service)
        try:
            if service.vectors is not None and not service.vectors.wait_ready(120):  # type: ignore[attr-defined]
                raise SystemExit("the builtin model did not load")
            for language, data in cases.items():
                key_of = {
                    memories_api.add(text, project=language).memory.id: key
                    for key, text in data["memories"].items()
                }
                rr, hit = [], []
                for case in data["queries"]:
                    result = search_api.search(case["q"], project=language, limit=10, vector=mode == "hybrid")
                    a, b = scores([key_of[h.memory.id] for h in result.hits], set(case["relevant"]))
                    rr.append(a)
                    hit.append(b)
                out[language] = {"mrr": round(sum(rr) / len(rr), 3), "hit@3": round(sum(hit) / len(hit), 3)}
        finally:
            service.close()
    return out


def run_baseline(cases: dict[str, Any]) -> dict[str, dict[str, float]]:
    out = {}
    for language, data in cases.items():
        pairs = [scores(baseline_rank(data["memories"], c["q"]), set(c["relevant"])) for c in data["queries"]]
        out[language] = {
            "mrr": round(sum(p[0] for p in pairs) / len(pairs), 3),
            "hit@3": round(sum(p[1] for p in pairs) / len(pairs), 3),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--modes", default="baseline,keyword,hybrid")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    cases = json.loads(CASES.read_text(encoding="utf-8"))["languages"]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    results = {m: run_baseline(cases) if m == "baseline" else run_memwarden(cases, m) for m in modes}
    print(f"paraphrase quality ({sum(len(d['queries']) for d in cases.values())} queries); MRR@10 / hit@3")
    print(f"{'set':<8}" + "".join(f"{m:>18}" for m in modes))
    for language in cases:
        print(
            f"{language:<8}"
            + "".join(
                f"{results[m][language]['mrr']:>10.3f} / {results[m][language]['hit@3']:.2f}" for m in modes
            )
        )
    load = os.getloadavg()
    print(f"machine load {load[0]:.2f}/{load[1]:.2f}/{load[2]:.2f} (shared machine)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
