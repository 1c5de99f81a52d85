"""Fuse keyword and vector candidates into ``RankCandidate`` values for the memory ranking.

Why not plain reciprocal rank fusion (RRF)? RRF throws away how *good* a match is. The vector
path returns its top N for every query, so nearly every keyword hit is also somewhere in the
vector list and collects two rank credits, while the right memory that only the vector path
found (a paraphrase, another language, no shared word) collects one. A keyword hit that shares
one common word with the query then outranks it. bench/hybrid_quality.py measured RRF below
vector-only (docs/embeddings.md has the table).

``fuse`` keeps the strength of each path instead:

- vector: the cosine, min-max scaled over this query's vector candidates (the best vector match
  is 1, the weakest 0, whatever the model's cosine range);
- keyword: bm25 relative to the best keyword hit, times the share of the query's terms the
  memory contains (coverage), so a hit that matched one word of five counts a fifth;
- relevance = w × vector + (1 − w) × keyword, split into the ``vector`` and ``keyword`` parts
  that ``why`` shows.

w is ``vector_weight``, or, when ``covered_weight`` is given, falls from ``vector_weight`` towards
``covered_weight`` as the best keyword hit covers more of the query:
w = vector_weight − (vector_weight − covered_weight) × best coverage. Where keywords already
explain the whole question (a conversation turn that repeats its words) a small model's idea of
"the same topic" mostly pulls in neighbours of the answer; where they explain none of it (a
paraphrase, another language) the model is all there is. Measured on LoCoMo and on
bench/hybrid_quality.py (docs/search.md): a flat low weight helped the first and hurt the second,
the sliding weight keeps both.

The memory ranking (``search/ranking.py``) then adds coverage, recency, usage and pinned.
"""

from __future__ import annotations

from collections.abc import Sequence

from memwarden.models import Candidate, KeywordQuery
from memwarden.search.ranking import RankCandidate, memory_coverage, relevance_from_scores

#: Share of the relevance that comes from the vector path (chosen on bench/hybrid_quality.py).
VECTOR_WEIGHT = 0.7
RRF_K = 60


def _coverage(query: KeywordQuery, candidate: Candidate) -> float:
    return 0.0 if candidate.indexed is None else memory_coverage(query, candidate.indexed)


def vector_relevance(vector: Sequence[Candidate]) -> dict[str, float]:
    """Cosines min-max scaled to [0, 1] over this query's vector candidates."""
    cosines = [c.score for c in vector]
    top, low = max(cosines, default=0.0), min(cosines, default=0.0)
    spread = top - low
    return {c.memory.id: (c.score - low) / spread if spread > 1e-9 else 1.0 for c in vector}


def sliding_weight(vector_weight: float, covered_weight: float | None, best_coverage: float) -> float:
    """The vector share for a query whose best keyword hit has ``best_coverage`` (module docstring)."""
    if covered_weight is None:
        return vector_weight
    # A query the model reads poorly already has a low weight (``fusion_weight_for``): coverage
    # only ever lowers it, never raises it towards ``covered_weight``.
    covered_weight = min(covered_weight, vector_weight)
    return vector_weight - (vector_weight - covered_weight) * min(1.0, max(0.0, best_coverage))


def fuse(
    keyword: Sequence[Candidate],
    vector: Sequence[Candidate],
    query: KeywordQuery,
    *,
    vector_weight: float = VECTOR_WEIGHT,
    covered_weight: float | None = None,
) -> list[RankCandidate]:
    """Score fusion (see the module docstring), one candidate per memory."""
    best_coverage = max((_coverage(query, c) for c in keyword), default=0.0)
    vector_weight = sliding_weight(vector_weight, covered_weight, best_coverage)
    kw = {
        c.memory.id: (c, rel)
        for c, rel in zip(keyword, relevance_from_scores([c.score for c in keyword]), strict=True)
    }
    vec = {c.memory.id: c for c in vector}
    vec_rel = vector_relevance(vector)
    fused: list[RankCandidate] = []
    for memory_id in dict.fromkeys([*vec, *kw]):
        base = vec[memory_id] if memory_id in vec else kw[memory_id][0]
        coverage = _coverage(
            query, base if base.indexed is not None or memory_id not in kw else kw[memory_id][0]
        )
        vector_part = vector_weight * vec_rel.get(memory_id, 0.0)
        keyword_part = (1 - vector_weight) * kw[memory_id][1] * coverage if memory_id in kw else 0.0
        parts = {"vector": vector_part, "keyword": keyword_part}
        fused.append(RankCandidate(base.memory, vector_part + keyword_part, coverage, parts))
    return fused


def vector_only(vector: Sequence[Candidate], query: KeywordQuery) -> list[RankCandidate]:
    """Vector candidates alone (the benchmark's vector-only mode)."""
    rel = vector_relevance(vector)
    return [
        RankCandidate(c.memory, rel[c.memory.id], _coverage(query, c), {"vector": rel[c.memory.id]})
        for c in vector
    ]


def fuse_rrf(
    keyword: Sequence[Candidate], vector: Sequence[Candidate], query: KeywordQuery, *, k: int = RRF_K
) -> list[RankCandidate]:
    """Plain reciprocal rank fusion; kept as the baseline the benchmark compares against."""
    scores: dict[str, float] = {}
    found: dict[str, Candidate] = {}
    for ranked in (keyword, vector):
        for position, candidate in enumerate(ranked, start=1):
            scores[candidate.memory.id] = scores.get(candidate.memory.id, 0.0) + 1.0 / (k + position)
            found.setdefault(candidate.memory.id, candidate)
    best = max(scores.values(), default=1.0)
    return [
        RankCandidate(found[i].memory, s / best, _coverage(query, found[i]), {"rrf": s / best})
        for i, s in scores.items()
    ]
