"""Memory ranking: score candidates from any retrieval path into hits that say why they rank.

Every retrieval path (keyword today; vector and hybrid fusion later) hands over
``RankCandidate`` values: the memory, a **relevance in [0, 1]** saying how well that path (or the
fusion of several paths) thinks it matches, and a **coverage in [0, 1]**: the share of the
query's distinct analyzed terms the memory contains. ``rank`` adds what a memory store knows and
a search engine does not, and returns the best ``Hit`` values:

    score = relevance_weight * relevance        how well the text matches (bm25, vector, fused)
          + coverage_weight  * coverage         all query terms present beats one rare term
          + recency_weight   * 0.5 ** (age / half_life)      newer memories supersede older ones
          + usage_weight     * log1p(hit_count) / log1p(USAGE_SATURATION)   capped at 1
          + pinned_weight    * pinned

``age`` is the time since the remembered thing happened (``Memory.occurred``: ``occurred_at``,
else when it was stored), in days. A candidate may also carry named ``boost`` terms added to
the score as they are (``thread``: the lift from its thread neighbours, search/threads.py; the
time boost, ``boost_by_time``). Every hit's ``why`` holds each term's contribution (they add up to ``score``); a candidate can split its
relevance into named parts (``relevance_parts={"keyword": 0.7, "vector": 0.3}``, summing to its
relevance) and ``why`` then shows those parts instead of a single ``relevance`` entry.

The weights of these five terms live in ``RankingWeights`` and nowhere else (the boosts carry
their own: ``threads.THREAD_WEIGHT``, ``TIME_WEIGHT``); docs/search.md explains the choice and
the guardrail tests in tests/search/test_ranking_guardrails.py pin the behaviour they must keep:
a newer correction outranks the memory it corrects, full query coverage beats a rare
single-term match, and pinned beats unpinned at equal relevance.

**Time words.** A query naming a time ("last week", "in May", "geçen hafta", "上周":
text/time_words.py) lifts the memories that happened then by ``TIME_WEIGHT``; ``why`` names the
window (``time: "last week" -> 2026-11-23..2026-11-29``). It is a boost, never a filter: a
memory without the right date still ranks by its text.

**No hit without evidence.** A memory is returned only when the query's text supports it:
``evidence`` (relevance, coverage, the thread lift) must reach ``EVIDENCE_FLOOR``. Recency, use,
pinned state and the time boost order supported hits but never make one (browsing without a
query is ``list``, another operation).

Helpers for paths: ``relevance_from_scores`` maps raw higher-is-better scores (negated bm25,
cosine similarity) onto [0, 1] relative to the best candidate; ``query_coverage`` measures
coverage from analyzed index tokens (``IndexText``), so any backend can compute it the same way.
"""

import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from datetime import datetime
from types import MappingProxyType
from typing import NamedTuple

from memwarden.models import Candidate, Hit, IndexText, KeywordQuery, Memory
from memwarden.text.time_words import Window, parse_time_words

# hit_count at which the usage component reaches 1 (log-scaled below that).
USAGE_SATURATION = 50
SECONDS_PER_DAY = 86_400.0
# The empty, read-only default of a candidate's relevance parts and boosts.
NO_PARTS: Mapping[str, float] = MappingProxyType({})
#: What a memory that happened in the window a query's time words name gains (a boost).
TIME_WEIGHT = 0.15
#: ``why`` parts that order hits but are no evidence that a memory answers the query.
NOT_EVIDENCE = ("recency", "usage", "pinned", "time")
#: The least evidence (text match, weighted as in the score) a returned hit has; see docs/search.md.
EVIDENCE_FLOOR = 0.02
#: A store whose newest candidate happened this long before now is read as a record of the past
#: (an imported conversation, an archive): its time words count from that newest memory.
HISTORICAL_AFTER_DAYS = 30


class _Weights(NamedTuple):
    relevance: float = 0.5
    coverage: float = 0.5
    recency: float = 0.3
    usage: float = 0.05
    pinned: float = 0.15
    half_life_days: float = 90.0


class RankingWeights(_Weights):
    """The ranking weights, in one place (see the module docstring and docs/search.md).

    Relevance and coverage dominate: text match decides what is about the query. Recency is
    strong enough that a fresh memory correcting an older one wins when both match about as well
    (a correction is usually a little longer, so its bm25 is a little lower). Usage is a tie
    breaker only, so a popular old memory cannot drown its own correction. Pinned lifts a memory
    above its unpinned peers, not above clearly better matches.
    """

    __slots__ = ()

    def __new__(
        cls,
        relevance: float = 0.5,
        coverage: float = 0.5,
        recency: float = 0.3,
        usage: float = 0.05,
        pinned: float = 0.15,
        half_life_days: float = 90.0,
    ) -> "RankingWeights":
        weights = super().__new__(cls, relevance, coverage, recency, usage, pinned, half_life_days)
        for name in ("relevance", "coverage", "recency", "usage", "pinned"):
            value = getattr(weights, name)
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"ranking weight {name} must be a finite number >= 0, got {value!r}")
        if not math.isfinite(half_life_days) or half_life_days <= 0:
            raise ValueError(f"half_life_days must be > 0, got {half_life_days!r}")
        return weights


DEFAULT_WEIGHTS = RankingWeights()


class RankCandidate(NamedTuple):
    """One memory found by one or more retrieval paths, ready to be ranked.

    ``relevance`` and ``coverage`` are clamped to [0, 1]. ``relevance_parts``, when given, names
    how the relevance was made (e.g. ``{"keyword": 0.6, "vector": 0.2}``); its values should add
    up to ``relevance`` and are scaled by the relevance weight in ``why``.
    """

    memory: Memory
    relevance: float
    coverage: float = 0.0
    relevance_parts: Mapping[str, float] = NO_PARTS
    boost: Mapping[str, float] = NO_PARTS


def relevance_from_scores(scores: Sequence[float]) -> list[float]:
    """Raw higher-is-better scores as relevances in [0, 1]: each divided by the best one.

    Non-finite or non-positive scores become 0. Relative scaling keeps paths comparable
    whatever their raw units (bm25 grows with corpus statistics, cosine does not).
    """
    finite = [s if math.isfinite(s) and s > 0 else 0.0 for s in scores]
    best = max(finite, default=0.0)
    if best <= 0:
        return [0.0 for _ in finite]
    return [s / best for s in finite]


def index_tokens(index: IndexText) -> set[str]:
    """The distinct analyzed tokens of a memory's index text (title, tags and body)."""
    return {*index.title.split(), *index.tags.split(), *index.body.split()}


#: How much a query word found only in a memory's context counts toward coverage (fitted on
#: LoCoMo, docs/search.md): coverage = (1 - c) * coverage of the memory's own text
#: + c * coverage of its text and context together.
CONTEXT_COVERAGE = 0.5


def memory_coverage(query: KeywordQuery, index: IndexText) -> float:
    """Query coverage of a memory, its context counting at ``CONTEXT_COVERAGE``."""
    own_tokens = index_tokens(index)
    own = query_coverage(query, own_tokens)
    if not index.context or own >= 1.0:
        return own
    return (1 - CONTEXT_COVERAGE) * own + CONTEXT_COVERAGE * query_coverage(
        query, own_tokens | set(index.context.split())
    )


def query_coverage(query: KeywordQuery, tokens: Collection[str]) -> float:
    """Share of the query's words found in ``tokens``.

    A word is found when any of its alternative terms (``query.groups``) is a token, or a
    token starts with it for terms in ``query.prefix``.
    """
    groups = query.groups or tuple((t,) for t in dict.fromkeys(query.terms) if t)
    if not groups:
        return 0.0

    def present(term: str) -> bool:
        return term in tokens or (term in query.prefix and any(tok.startswith(term) for tok in tokens))

    found = sum(1 for group in groups if any(present(t) for t in group))
    return found / len(groups)


def recency(memory: Memory, now: datetime, half_life_days: float) -> float:
    """1.0 for a memory that happened now, 0.5 one half-life earlier, and so on (future times count as now)."""
    age_days = max(0.0, (now - memory.occurred).total_seconds() / SECONDS_PER_DAY)
    return float(0.5 ** (age_days / half_life_days))


def usage(memory: Memory) -> float:
    """Log-scaled use count in [0, 1]: the first uses matter most."""
    return min(1.0, math.log1p(max(0, memory.hit_count)) / math.log1p(USAGE_SATURATION))


def _clamp(value: float) -> float:
    return 0.0 if not math.isfinite(value) else min(1.0, max(0.0, value))


def explain(
    candidate: RankCandidate, now: datetime, weights: RankingWeights = DEFAULT_WEIGHTS
) -> dict[str, float]:
    """Each component's contribution to this candidate's score (they sum to the score)."""
    why: dict[str, float] = {}
    parts = {k: _clamp(v) for k, v in candidate.relevance_parts.items()}
    if parts:
        for name, value in parts.items():
            why[name] = weights.relevance * value
    else:
        why["relevance"] = weights.relevance * _clamp(candidate.relevance)
    why["coverage"] = weights.coverage * _clamp(candidate.coverage)
    why["recency"] = weights.recency * recency(candidate.memory, now, weights.half_life_days)
    why["usage"] = weights.usage * usage(candidate.memory)
    why["pinned"] = weights.pinned if candidate.memory.pinned else 0.0
    for name, value in candidate.boost.items():
        if math.isfinite(value) and value > 0:
            why[name] = value
    return why


def evidence(why: Mapping[str, float]) -> float:
    """The part of a hit's score that says the query's text supports it (``NOT_EVIDENCE`` aside)."""
    return sum(v for k, v in why.items() if not k.startswith(NOT_EVIDENCE))


def time_anchor(now: datetime, memories: Iterable[Memory]) -> datetime:
    """What relative time words count from: ``now``, or, when the newest of ``memories`` happened
    more than ``HISTORICAL_AFTER_DAYS`` ago (the memories record a past period, as an imported
    conversation does), that newest memory's time: "last week" of a record is its last week."""
    newest = max((m.occurred for m in memories), default=now)
    return newest if (now - newest).total_seconds() > HISTORICAL_AFTER_DAYS * SECONDS_PER_DAY else now


def time_window(
    query: str,
    now: datetime,
    candidates: Sequence[RankCandidate],
    latest: Callable[[], Iterable[Memory]] = tuple,
) -> Window | None:
    """The window the query's time words name (None without any). Relative ones count from
    ``time_anchor`` over the candidates and ``latest()`` (the memories stored last in the scope
    searched, asked for only when the query holds relative words)."""
    words = parse_time_words(query)
    if words is None:
        return None
    if not words.relative:
        return words.window(now)
    return words.window(time_anchor(now, [*(c.memory for c in candidates), *latest()]))


def boost_by_time(
    candidates: Sequence[RankCandidate], window: Window | None, weight: float = TIME_WEIGHT
) -> list[RankCandidate]:
    """``candidates`` with ``weight`` added (as ``window.describe()`` in ``why``) to those that
    happened in ``window``; the others unchanged."""
    if window is None or weight <= 0:
        return list(candidates)
    name = window.describe()
    return [
        c._replace(boost={**c.boost, name: weight}) if window.contains(c.memory.occurred) else c
        for c in candidates
    ]


def rank(
    candidates: Iterable[RankCandidate],
    *,
    now: datetime,
    limit: int,
    weights: RankingWeights = DEFAULT_WEIGHTS,
    min_evidence: float = EVIDENCE_FLOOR,
) -> list[Hit]:
    """The best ``limit`` hits, highest score first; ties go to the newer memory, then the id.

    A candidate whose ``evidence`` is below ``min_evidence`` is left out. A memory offered twice
    (by two paths) keeps its best-scoring candidate; fuse paths before ranking when both should
    count.
    """
    best: dict[str, tuple[float, dict[str, float], Memory]] = {}
    for candidate in candidates:
        why = explain(candidate, now, weights)
        if evidence(why) < min_evidence:
            continue
        score = sum(why.values())
        current = best.get(candidate.memory.id)
        if current is None or score > current[0]:
            best[candidate.memory.id] = (score, why, candidate.memory)
    ordered = sorted(best.values(), key=lambda e: (-e[0], -e[2].updated_at.timestamp(), e[2].id))
    return [
        Hit(memory, score, {k: round(v, 6) for k, v in why.items()})
        for score, why, memory in ordered[: max(0, limit)]
    ]


def keyword_candidates(candidates: Sequence[Candidate], query: KeywordQuery) -> list[RankCandidate]:
    """Keyword-index candidates (score: bm25, higher is better; ``index``: analyzed text) ready
    to rank. A candidate without its index text gets coverage 0 (a store should always return it)."""
    relevances = relevance_from_scores([c.score for c in candidates])
    return [
        RankCandidate(c.memory, rel, 0.0 if c.indexed is None else memory_coverage(query, c.indexed))
        for c, rel in zip(candidates, relevances, strict=True)
    ]


def rank_keyword(
    candidates: Sequence[Candidate],
    query: KeywordQuery,
    *,
    now: datetime,
    limit: int,
    weights: RankingWeights = DEFAULT_WEIGHTS,
) -> list[Hit]:
    """Rank keyword-index candidates (see ``keyword_candidates``)."""
    return rank(keyword_candidates(candidates, query), now=now, limit=limit, weights=weights)


__all__ = [
    "DEFAULT_WEIGHTS",
    "EVIDENCE_FLOOR",
    "TIME_WEIGHT",
    "RankCandidate",
    "RankingWeights",
    "boost_by_time",
    "evidence",
    "explain",
    "index_tokens",
    "keyword_candidates",
    "memory_coverage",
    "query_coverage",
    "rank",
    "rank_keyword",
    "recency",
    "relevance_from_scores",
    "time_anchor",
    "time_window",
    "usage",
]
