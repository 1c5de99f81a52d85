"""Fit the hybrid fusion per language on XQuAD-dev: gather once, score a grid of vector weights.

    python bench/xquad_fit.py --model multilingual-e5-small-int8
    python bench/xquad_fit.py --model all-MiniLM-L6-v2-int8 --languages en,ar,th --json out.json

Stores each language's sentences as bench/xquad.py does (its loader and splitter), then gathers
the keyword and vector candidates of every question once (``Searcher.gather``) and ranks them
(``Searcher.score``, the code ``search`` runs) under: keyword only, the model's own weighting
(what ships), flat vector weights 0.0-1.0 and sliding weights (``vector_weight`` falling to
``covered_weight`` as the best keyword hit covers the query, hybrid.py). Prints recall@5 and
MRR@10 per language and setting, and the share of questions whose sentence is in either path's
own top 5, 10 and 20 (how deep the answer sits in the lists a fusion gets; its MRR column is
not computed). In-process (no MCP): this is a fit; bench/xquad.py is the
measurement through the tools.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from xquad import LANGUAGES, LIMIT, default_data, load  # noqa: E402

FLAT = (0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
#: Depths at which "either path top N" is counted (see fit_language).
EITHER_DEPTHS = (5, 10, 20)
SLIDING = ((0.9, 0.5), (0.9, 0.3), (0.8, 0.3), (0.7, 0.3), (0.95, 0.6))


def _scores(ranked: list[list[int]], relevant: list[int]) -> dict[str, float]:
    n = len(relevant)
    at5 = sum(r in ids[:5] for ids, r in zip(ranked, relevant, strict=True))
    mrr = sum(1.0 / (ids.index(r) + 1) for ids, r in zip(ranked, relevant, strict=True) if r in ids)
    return {"recall@5": round(at5 / n, 4), "mrr": round(mrr / n, 4)}


def model_service(db: str, log_file: str, model: str) -> Any:
    """An in-process service on ``db`` (no audit) with the builtin ``model`` loaded, embedding
    as it writes (no background thread); exits when the model does not load."""
    from memwarden.app import build_service
    from memwarden.config import load_settings

    settings = load_settings(
        db=db, log_file=log_file, audit=False, embedder="builtin", embed_model=model, vector_timeout_ms=60_000
    )
    service = build_service(settings, background=False)
    if service.vectors is None or not service.vectors.wait_ready(300):
        error = service.vectors and service.vectors.error
        service.close()
        raise SystemExit(f"the model did not load: {error}")
    return service


def fit_language(code: str, model: str, data: Path) -> dict[str, Any]:
    from memwarden.search.tuning import Tuning

    language = load(data, code)
    with tempfile.TemporaryDirectory() as tmp:
        service = model_service(f"{tmp}/fit.db", f"{tmp}/log", model)
        try:
            project = f"xquad-{code}"
            sentence_of: dict[str, int] = {}
            for number, sentence in enumerate(language.sentences):
                sentence_of.setdefault(service.memories.add(sentence, project=project).memory.id, number)
            service.vectors.backfill()
            now = service.clock()
            pools = [
                service.searcher.gather(
                    service.default_caller,
                    question,
                    project=project,
                    tags=(),
                    include_expired=False,
                    vector=True,
                    now=now,
                    limit=LIMIT,
                )
                for question, _ in language.questions
            ]
            relevant = [r for _, r in language.questions]
            embedder: Any = service.vectors.embedder
            thread_weight = service.searcher.tuning.thread_weight

            def run(tuning: Tuning | None = None, *, keyword_only: bool = False) -> dict[str, float]:
                ranked = []
                for gathered in pools:
                    if keyword_only:
                        gathered = copy.copy(gathered)
                        gathered.nearest = []
                    hits = service.searcher.score(gathered, limit=LIMIT, tuning=tuning)
                    ranked.append([sentence_of.get(h.memory.id, -1) for h in hits])
                return _scores(ranked, relevant)

            out: dict[str, Any] = {"keyword": run(keyword_only=True), "shipped": run()}
            # Where the sentence sits in each path's own list (bm25 order, cosine order above the
            # model's floor): in either top 5 is what a fusion that only reorders the two heads
            # can reach; deeper, what one that lifts an answer ranked lower in both could.
            for depth in EITHER_DEPTHS:
                either = sum(
                    r in [sentence_of.get(c.memory.id, -1) for c in [*g.keyword[:depth], *g.nearest[:depth]]]
                    for g, r in zip(pools, relevant, strict=True)
                )
                out[f"either path top {depth}"] = {"recall@5": round(either / len(relevant), 4), "mrr": 0.0}
            for weight in FLAT:
                out[f"flat {weight:g}"] = run(Tuning(weight, thread_weight))
            own = (embedder.fusion_weight, getattr(embedder, "covered_fusion_weight", None))
            had_rule = "fusion_weight_for" in type(embedder).__dict__
            try:
                for high, low in SLIDING:
                    embedder.fusion_weight, embedder.covered_fusion_weight = high, low
                    if had_rule:  # the model's own per-query rule would override the grid
                        embedder.fusion_weight_for = lambda _q, w=high: w
                    out[f"sliding {high:g}->{low:g}"] = run(Tuning(None, thread_weight))
            finally:
                embedder.fusion_weight, embedder.covered_fusion_weight = own
                embedder.__dict__.pop("fusion_weight_for", None)
            return out
        finally:
            service.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="", help="builtin model name (empty: the default)")
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    data = args.data or default_data()
    started = time.time()
    results = {code: fit_language(code, args.model, data) for code in args.languages.split(",")}
    settings = list(next(iter(results.values())))
    print(f"XQuAD-dev fusion grid, model {args.model or 'default'}: recall@5 (MRR@10)")
    print("setting".ljust(20) + "".join(code.rjust(14) for code in results) + "mean".rjust(14))
    for name in settings:
        row = [results[code][name] for code in results]
        mean5 = sum(r["recall@5"] for r in row) / len(row)
        mean_mrr = sum(r["mrr"] for r in row) / len(row)
        cells = "".join(f"{r['recall@5']:.3f} ({r['mrr']:.3f})".rjust(14) for r in row)
        print(name.ljust(20) + cells + f"{mean5:.3f} ({mean_mrr:.3f})".rjust(14))
    load1, load5, load15 = os.getloadavg()
    print(f"{time.time() - started:.0f} s; machine load {load1:.2f}/{load5:.2f}/{load15:.2f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
