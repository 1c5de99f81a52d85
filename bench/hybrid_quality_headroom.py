"""How much a fusion of the two retrieval paths can still gain, on XQuAD-dev and LoCoMo-dev.

    python bench/hybrid_quality_headroom.py                       # both data sets, default model
    python bench/hybrid_quality_headroom.py --languages en,vi --no-locomo --json out.json

Stores XQuAD-dev (one sentence a memory, bench/xquad.py's loader) and LoCoMo-dev (one turn a
memory with context, thread and time, bench/locomo.py's loader), gathers each question's keyword
and vector candidates once (``Searcher.gather``) and ranks them with ``Searcher.score`` (the code
``search`` runs) under:

- ``shipped``: the model's own weighting;
- ``oracle weight``: for each question the best of eleven flat vector weights 0.0-1.0 (no fusion
  of the same scores that picks one weight per query can do better; an upper bound, not a method);
- ``second stage``: a linear score over features both paths give each candidate of their union
  (scaled cosine, bm25 relative to the best hit times coverage, the same scaled by the best
  hit's coverage, bm25 alone, reciprocal ranks in each list, found by both), fitted with a
  softmax loss on one half (XQuAD articles 0,1 of every 4 plus LoCoMo ``FIT_CONVERSATIONS``,
  every language together) and reported on the other half, then the other way round. It takes
  the place of ``hybrid.fuse``; thread lift, time words and the ranking's coverage term apply
  as they do in a search.

XQuAD questions are split by article (articles 0 and 1 of every four against 2 and 3), LoCoMo
by conversation. Prints recall@5 per language and LoCoMo category. In-process (no MCP): a study,
bench/xquad.py and bench/locomo.py are the measurements through the tools.
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

import locomo  # noqa: E402
import xquad  # noqa: E402
import xquad_fit  # noqa: E402

from memwarden.models import Candidate, KeywordQuery  # noqa: E402
from memwarden.search import searcher as searcher_module  # noqa: E402
from memwarden.search.hybrid import _coverage, vector_relevance  # noqa: E402
from memwarden.search.ranking import RankCandidate, relevance_from_scores  # noqa: E402
from memwarden.search.tuning import Tuning  # noqa: E402

FLAT = tuple(round(0.1 * i, 1) for i in range(11))
FEATURES = ("vector", "vector x best", "keyword", "keyword x best", "bm25", "rr vector", "rr keyword", "both")
#: The ranking's coverage term, which the second stage's relevance is added to (ranking.py).
COVERAGE_TERM = 0.5
SOFTMAX_SCALE = 20.0


class Question:
    """One question's candidates and what counts as found (``relevant``: memory ids)."""

    def __init__(self, source: str, part: int, category: str, gathered: Any, relevant: set[str]) -> None:
        self.source, self.part, self.category = source, part, category
        self.gathered, self.relevant = gathered, relevant


def features(
    keyword: Sequence[Candidate], vector: Sequence[Candidate], query: KeywordQuery
) -> tuple[list[str], list[Candidate], Any, Any]:
    """(memory ids, candidates, coverage, feature matrix) of the union of both lists."""
    kw_rel = relevance_from_scores([c.score for c in keyword])
    kw = {c.memory.id: (c, r, i) for i, (c, r) in enumerate(zip(keyword, kw_rel, strict=True))}
    vec = {c.memory.id: (c, i) for i, c in enumerate(vector)}
    vec_rel = vector_relevance(vector)
    best = max((_coverage(query, c) for c in keyword), default=0.0)
    ids, bases, covs, rows = [], [], [], []
    for memory_id in dict.fromkeys([*vec, *kw]):
        base = vec[memory_id][0] if memory_id in vec else kw[memory_id][0]
        cov = _coverage(query, base if base.indexed is not None or memory_id not in kw else kw[memory_id][0])
        v = vec_rel.get(memory_id, 0.0)
        k = kw[memory_id][1] if memory_id in kw else 0.0
        rows.append(
            [
                v,
                v * best,
                k * cov,
                k * cov * best,
                k,
                1.0 / (vec[memory_id][1] + 1) if memory_id in vec else 0.0,
                1.0 / (kw[memory_id][2] + 1) if memory_id in kw else 0.0,
                float(memory_id in kw and memory_id in vec),
            ]
        )
        ids.append(memory_id)
        bases.append(base)
        covs.append(cov)
    return ids, bases, np.array(covs), np.array(rows, dtype=float).reshape(-1, len(FEATURES))


def second_stage(weights: np.ndarray) -> Callable[..., list[RankCandidate]]:
    """A ``hybrid.fuse`` replacement: relevance = the fitted linear score, clamped to [0, 1]."""

    def fuse(
        keyword: Sequence[Candidate], vector: Sequence[Candidate], query: KeywordQuery, **kw: Any
    ) -> Any:
        _ids, bases, covs, x = features(keyword, vector, query)
        scores = np.clip(x @ weights, 0.0, 1.0)
        return [
            RankCandidate(b.memory, float(s), float(c), {"fused": float(s)})
            for b, s, c in zip(bases, scores, covs, strict=True)
        ]

    return fuse


def fit(questions: list[Question], *, iterations: int = 300, l2: float = 1e-3) -> np.ndarray:
    """Weights maximising the softmax likelihood of the relevant candidates (Adam)."""
    data = []
    for q in questions:
        ids, _, covs, x = features(q.gathered.keyword, q.gathered.nearest, q.gathered.query)
        y = np.array([i in q.relevant for i in ids], dtype=float)
        if y.any():
            data.append((x, COVERAGE_TERM * covs, y / y.sum()))
    w = np.zeros(len(FEATURES))
    m, v = np.zeros_like(w), np.zeros_like(w)
    for step in range(1, iterations + 1):
        grad = np.zeros_like(w)
        for x, offset, target in data:
            s = SOFTMAX_SCALE * (0.5 * (x @ w) + offset)
            p = np.exp(s - s.max())
            p /= p.sum()
            grad += SOFTMAX_SCALE * 0.5 * (x.T @ (p - target))
        grad = grad / max(1, len(data)) + l2 * w
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        w -= 0.01 * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return w


def recall5(service: Any, q: Question, *, tuning: Tuning | None = None, keyword_only: bool = False) -> float:
    gathered = q.gathered
    if keyword_only:
        gathered = copy.copy(gathered)
        gathered.nearest = []
    hits = service.searcher.score(gathered, limit=xquad.LIMIT, tuning=tuning)
    return len(q.relevant & {h.memory.id for h in hits[:5]}) / len(q.relevant)


def _service(tmp: str, name: str, model: str) -> Any:
    return xquad_fit.model_service(f"{tmp}/{name}.db", f"{tmp}/log", model)


def gather_xquad(service: Any, code: str, data: Path) -> list[Question]:
    language = xquad.load(data, code)
    raw = json.loads((data / f"xquad.{code}.json").read_text(encoding="utf-8-sig"))
    article_of = [a for a, art in enumerate(raw["data"]) for p in art["paragraphs"] for _ in p["qas"]]
    project = f"xquad-{code}"
    id_of = [service.memories.add(s, project=project).memory.id for s in language.sentences]
    service.vectors.backfill()
    now = service.clock()
    return [
        Question(
            code,
            article_of[n] % 4 // 2,
            code,
            service.searcher.gather(
                service.default_caller,
                text,
                project=project,
                tags=(),
                include_expired=False,
                vector=True,
                now=now,
                limit=xquad.LIMIT,
            ),
            {id_of[sentence]},
        )
        for n, (text, sentence) in enumerate(language.questions)
    ]


def gather_locomo(service: Any) -> list[Question]:
    from locomo_fit import gather_all

    conversations = locomo.load(locomo.default_data())
    pools = gather_all(service, conversations, "hybrid")
    out = []
    for conv in conversations:
        part = 0 if conv.sample_id in locomo.FIT_CONVERSATIONS else 1
        asked = [q for q in conv.questions if q.category != 5]
        for q, (gathered, expected) in zip(asked, pools[conv.sample_id], strict=True):
            out.append(Question("locomo", part, locomo.CATEGORIES[q.category], gathered, expected))
    return out


def evaluate(stores: dict[str, Callable[[], Any]], questions: dict[str, list[Question]]) -> dict[str, Any]:
    """Every setting's recall@5 per (source, category, half); ``stores[source]()`` reopens the
    store a source's questions were gathered from (its own: bm25 statistics are per index)."""
    rows: dict[str, dict[tuple[str, str, int], list[float]]] = {}

    def add(setting: str, q: Question, value: float) -> None:
        rows.setdefault(setting, {}).setdefault((q.source, q.category, q.part), []).append(value)

    everything = [q for qs in questions.values() for q in qs]
    fitted = {part: fit([q for q in everything if q.part == part]) for part in (0, 1)}
    original = searcher_module.fuse  # type: ignore[attr-defined]
    for source, asked in questions.items():
        service = stores[source]()
        try:
            thread = service.searcher.tuning.thread_weight
            for q in asked:
                add("keyword only", q, recall5(service, q, keyword_only=True))
                add("shipped", q, recall5(service, q))
                add("oracle weight", q, max(recall5(service, q, tuning=Tuning(w, thread)) for w in FLAT))
                ids = {c.memory.id for c in [*q.gathered.keyword[:10], *q.gathered.nearest[:10]]}
                add("either path top 10", q, len(q.relevant & ids) / len(q.relevant))
            for q in asked:
                # Fitted on the other half: what a held-out half gets.
                searcher_module.fuse = second_stage(fitted[1 - q.part])  # type: ignore[attr-defined]
                add("second stage (held out)", q, recall5(service, q))
        finally:
            searcher_module.fuse = original  # type: ignore[attr-defined]
            service.close()
    return {
        "rows": rows,
        "weights": {str(p): dict(zip(FEATURES, w.round(4).tolist(), strict=True)) for p, w in fitted.items()},
    }


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def report(result: dict[str, Any]) -> None:
    rows = result["rows"]
    columns = sorted({(s, c) for setting in rows.values() for s, c, _ in setting})
    print("recall@5; columns: XQuAD language or LoCoMo category (both halves together)")
    print("setting".ljust(26) + "".join(c[-7:].rjust(8) for _, c in columns) + "  xq mean  locomo  h0/h1 xq")
    for name, cells in rows.items():

        def pooled(source: str, category: str, cells: Any = cells) -> list[float]:
            return [v for (s, c, _), vals in cells.items() if s == source and c == category for v in vals]

        values = [_mean(pooled(s, c)) for s, c in columns]
        xq = [v for (s, _), v in zip(columns, values, strict=True) if s != "locomo"]
        lc = [v for (s, c, _), vals in cells.items() if s == "locomo" for v in vals]
        halves = [
            _mean([_mean(vals) for (s, _, p), vals in cells.items() if s != "locomo" and p == part])
            for part in (0, 1)
        ]
        print(
            name.ljust(26)
            + "".join(f"{v:8.3f}" for v in values)
            + f"  {_mean(xq):7.4f}  {_mean(lc):6.4f}  {halves[0]:.3f}/{halves[1]:.3f}"
        )
    for part, weights in result["weights"].items():
        print(f"second stage fitted on half {part}: {json.dumps(weights)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="", help="builtin model name (empty: the default)")
    parser.add_argument("--languages", default=",".join(xquad.LANGUAGES))
    parser.add_argument("--no-locomo", action="store_true")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    started, load_before = time.time(), os.getloadavg()
    data = xquad.default_data()
    sources = [c for c in args.languages.split(",") if c] + ([] if args.no_locomo else ["locomo"])
    with tempfile.TemporaryDirectory() as tmp:
        questions: dict[str, list[Question]] = {}
        for source in sources:  # gathered store by store, each closed before the next
            service = _service(tmp, source, args.model)
            try:
                questions[source] = (
                    gather_locomo(service) if source == "locomo" else gather_xquad(service, source, data)
                )
            finally:
                service.close()
        stores: dict[str, Callable[[], Any]] = {
            source: functools.partial(_service, tmp, source, args.model) for source in sources
        }
        result = evaluate(stores, questions)
    report(result)
    load_after = os.getloadavg()
    print(
        f"{time.time() - started:.0f} s; machine load before {load_before[0]:.2f}, after {load_after[0]:.2f}"
    )
    if args.json:
        rows = {
            k: {"/".join(map(str, key)): _mean(v) for key, v in cells.items()}
            for k, cells in result["rows"].items()
        }
        args.json.write_text(json.dumps({"rows": rows, "weights": result["weights"]}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
