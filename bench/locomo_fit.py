"""Refit the search weights on LoCoMo: fit on some conversations, report on the others.

    python bench/locomo_fit.py                 # keyword and hybrid (builtin model)
    python bench/locomo_fit.py --modes keyword --json out.json

Stores the development half as bench/locomo.py does (one memory per turn, context = the previous
turn of the session, thread = conversation/session, occurred_at = the session's date), then for
every question gathers the candidates of both retrieval paths once (``Searcher.gather``) and
scores a grid of ``Tuning`` values on them (``Searcher.score``, the code ``search`` runs): the
vector weight and the thread weight, what ``memwarden eval --fit`` tunes on a user's own data.
The grid point with the best recall@5 + MRR on the fit conversations (``FIT_CONVERSATIONS``) is
reported on the held-out ones beside the current defaults. In-process (no MCP): this is a fit,
bench/locomo.py is the measurement through the tools.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from locomo import FIT_CONVERSATIONS, Conversation, default_data, load  # noqa: E402


def gather_all(
    service: Any, conversations: list[Conversation], mode: str
) -> dict[str, list[tuple[Any, set[str]]]]:
    """Per conversation: (gathered candidates, expected memory ids) of each question of categories 1-4."""
    now = service.clock()
    out: dict[str, list[tuple[Any, set[str]]]] = {}
    for conv in conversations:
        ids: dict[str, str] = {}
        for turn in conv.turns:
            ids[turn.dia_id] = service.memories.add(
                turn.content,
                project=conv.sample_id,
                context=turn.context,
                thread=turn.thread,
                occurred_at=turn.occurred_at,
            ).memory.id
        out[conv.sample_id] = [
            (
                service.searcher.gather(
                    service.default_caller,
                    q.text,
                    project=conv.sample_id,
                    tags=(),
                    include_expired=False,
                    vector=mode == "hybrid",
                    now=now,
                    limit=10,
                ),
                {ids[d] for d in q.evidence},
            )
            for q in conv.questions
            if q.category != 5
        ]
    return out


def score_sliding(
    service: Any, grid: str, fit_ids: list[str], report_ids: list[str], score: Any
) -> dict[str, Any]:
    """Scores with the model's weight sliding from HIGH to LOW as keyword coverage grows."""
    from memwarden.search.tuning import Tuning

    embedder = service.vectors.embedder
    own = (embedder.fusion_weight, getattr(embedder, "covered_fusion_weight", None))
    thread_weight = service.searcher.tuning.thread_weight
    out: dict[str, Any] = {}
    try:
        for pair in grid.split(","):
            high, low = (float(x) for x in pair.split(":"))
            embedder.fusion_weight, embedder.covered_fusion_weight = high, low
            if "fusion_weight_for" in type(embedder).__dict__:
                embedder.fusion_weight_for = lambda _q, w=high: w
            tuning = Tuning(None, thread_weight)
            out[pair] = {
                "fit": score(tuning, fit_ids).summary(),
                "report": score(tuning, report_ids).summary(),
            }
    finally:
        embedder.fusion_weight, embedder.covered_fusion_weight = own
        embedder.__dict__.pop("fusion_weight_for", None)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None)
    parser.add_argument("--modes", default="keyword,hybrid")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--model", default="", help="builtin model name (empty: the default)")
    parser.add_argument(
        "--sliding",
        default="",
        help="also score sliding weights HIGH:LOW,... (hybrid.py), e.g. 0.9:0.3,0.7:0.3",
    )
    args = parser.parse_args(argv)

    from memwarden.app import build_service
    from memwarden.config import load_settings
    from memwarden.search.evaluation import Scores, Tuning, fit_tuning

    conversations = load(args.data or default_data())
    fit_ids = [c.sample_id for c in conversations if c.sample_id in FIT_CONVERSATIONS]
    report_ids = [c.sample_id for c in conversations if c.sample_id not in FIT_CONVERSATIONS]
    results: dict[str, Any] = {}
    for mode in [m.strip() for m in args.modes.split(",") if m.strip()]:
        with tempfile.TemporaryDirectory() as tmp:
            settings = load_settings(
                db=f"{tmp}/fit.db",
                log_file=f"{tmp}/log",
                audit=False,
                embedder="builtin" if mode == "hybrid" else "none",
                embed_model=args.model,
                vector_timeout_ms=60_000,
            )
            service = build_service(settings, background=False)
            try:
                if service.vectors is not None and not service.vectors.wait_ready(120):
                    raise SystemExit("the builtin model did not load")
                pools = gather_all(service, conversations, mode)

                def score(tuning: Tuning, which: list[str], svc: Any = service, pools: Any = pools) -> Scores:
                    scores = Scores()
                    for sample in which:
                        for gathered, expected in pools[sample]:
                            hits = svc.searcher.score(gathered, limit=10, tuning=tuning)
                            scores.add([h.memory.id for h in hits], expected)
                    return scores

                current = service.searcher.tuning
                best, _ = fit_tuning(
                    lambda t: score(t, fit_ids), current=current, with_vectors=mode == "hybrid"
                )
                if mode == "hybrid" and args.sliding:
                    results["sliding"] = score_sliding(service, args.sliding, fit_ids, report_ids, score)
                results[mode] = {
                    "current": {
                        "tuning": current.settings(),
                        "fit": score(current, fit_ids).summary(),
                        "report": score(current, report_ids).summary(),
                    },
                    "fitted": {
                        "tuning": best.settings(),
                        "fit": score(best, fit_ids).summary(),
                        "report": score(best, report_ids).summary(),
                    },
                }
            finally:
                service.close()
    for name, split in results.pop("sliding", {}).items():
        print(
            f"  sliding {name:<10} fit recall@5 {split['fit']['recall@5']:.3f} MRR {split['fit']['mrr']:.3f}"
            f"  report recall@5 {split['report']['recall@5']:.3f} MRR {split['report']['mrr']:.3f}"
        )
    print(f"LoCoMo refit: fit on {', '.join(fit_ids)}; report on {', '.join(report_ids)}")
    for mode, result in results.items():
        for name in ("current", "fitted"):
            r = result[name]
            print(f"  {mode:<8} {name:<8} {json.dumps(r['tuning'])}")
            for split in ("fit", "report"):
                s = r[split]
                print(
                    f"      {split:<7} recall@1 {s['recall@1']:.3f}  recall@5 {s['recall@5']:.3f}  "
                    f"recall@10 {s['recall@10']:.3f}  MRR {s['mrr']:.3f}"
                )
    load_avg = os.getloadavg()
    print(f"machine load {load_avg[0]:.2f}/{load_avg[1]:.2f}/{load_avg[2]:.2f} (shared machine)")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
