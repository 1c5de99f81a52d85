"""The ranking function on its own: components, explanations, several retrieval paths."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memwarden.models import IndexText, KeywordQuery, Memory
from memwarden.search.ranking import (
    EVIDENCE_FLOOR,
    HISTORICAL_AFTER_DAYS,
    RankCandidate,
    RankingWeights,
    boost_by_time,
    evidence,
    index_tokens,
    query_coverage,
    rank,
    recency,
    relevance_from_scores,
    time_anchor,
    time_window,
)

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def _memory(mid: str, *, days_old: float = 0, pinned: bool = False, hits: int = 0) -> Memory:
    when = NOW - timedelta(days=days_old)
    return Memory(
        id=mid,
        tenant="t",
        project="p",
        kind="fact",
        title="",
        tags=(),
        content=mid,
        content_hash=mid,
        pinned=pinned,
        created_at=when,
        updated_at=when,
        hit_count=hits,
    )


def test_relevance_is_relative_to_the_best_candidate_and_bounded() -> None:
    assert relevance_from_scores([4.0, 2.0, 0.0, -1.0, float("nan")]) == [1.0, 0.5, 0.0, 0.0, 0.0]
    assert relevance_from_scores([]) == []
    assert relevance_from_scores([0.0, 0.0]) == [0.0, 0.0]


def test_recency_halves_every_half_life() -> None:
    assert recency(_memory("a"), NOW, 90) == 1.0
    assert recency(_memory("a", days_old=90), NOW, 90) == pytest.approx(0.5)
    assert recency(_memory("a", days_old=180), NOW, 90) == pytest.approx(0.25)
    assert recency(_memory("a", days_old=-3), NOW, 90) == 1.0


def test_coverage_counts_distinct_terms_and_prefixes() -> None:
    tokens = index_tokens(IndexText(title="deploy", tags="ops", body="runs on tuesdays"))
    assert query_coverage(KeywordQuery(("deploy", "tuesdays", "friday")), tokens) == pytest.approx(2 / 3)
    assert query_coverage(KeywordQuery(("deploy", "deploy")), tokens) == 1.0
    assert query_coverage(KeywordQuery(("tues",), frozenset({"tues"})), tokens) == 1.0
    assert query_coverage(KeywordQuery(("tues",)), tokens) == 0.0
    assert query_coverage(KeywordQuery(()), tokens) == 0.0


def test_why_parts_add_up_to_the_score_and_name_each_path() -> None:
    hits = rank(
        [
            RankCandidate(
                _memory("a", days_old=30, hits=3, pinned=True),
                0.8,
                0.5,
                relevance_parts={"keyword": 0.5, "vector": 0.3},
            )
        ],
        now=NOW,
        limit=5,
    )
    why = hits[0].why
    assert set(why) == {"keyword", "vector", "coverage", "recency", "usage", "pinned"}
    assert sum(why.values()) == pytest.approx(hits[0].score, abs=1e-5)


def test_a_memory_offered_by_two_paths_keeps_its_best_candidate() -> None:
    m = _memory("a")
    hits = rank(
        [RankCandidate(m, 0.2), RankCandidate(m, 0.9), RankCandidate(_memory("b"), 0.5)], now=NOW, limit=10
    )
    assert [h.memory.id for h in hits] == ["a", "b"]
    assert hits[0].why["relevance"] == pytest.approx(0.9 * RankingWeights().relevance)


def test_out_of_range_inputs_are_clamped_and_limit_is_respected() -> None:
    hits = rank([RankCandidate(_memory(str(i)), 5.0, -2.0) for i in range(5)], now=NOW, limit=2)
    assert len(hits) == 2
    assert hits[0].why["relevance"] == RankingWeights().relevance and hits[0].why["coverage"] == 0.0


def test_ties_go_to_the_newer_memory() -> None:
    hits = rank(
        [RankCandidate(_memory("old", days_old=1), 1.0), RankCandidate(_memory("new"), 1.0)],
        now=NOW,
        limit=2,
        weights=RankingWeights(recency=0.0),
    )
    assert [h.memory.id for h in hits] == ["new", "old"]


def test_bad_weights_are_refused() -> None:
    with pytest.raises(ValueError, match="pinned"):
        RankingWeights(pinned=-1)
    with pytest.raises(ValueError, match="half_life_days"):
        RankingWeights(half_life_days=0)


def test_recency_usage_pinned_and_time_are_no_evidence() -> None:
    why = {"recency": 0.3, "usage": 0.05, "pinned": 0.15, 'time: "May" -> May of any year': 0.15}
    assert evidence(why) == 0.0
    assert evidence({**why, "vector": 0.1, "coverage": 0.2, "thread": 0.05}) == pytest.approx(0.35)


def test_a_candidate_without_evidence_is_not_ranked_however_recent_used_or_pinned() -> None:
    bare = RankCandidate(_memory("bare", pinned=True, hits=50), 0.0, 0.0, {"vector": 0.0, "keyword": 0.0})
    weak = RankCandidate(_memory("weak", days_old=400), 0.1, 0.0)  # old and unused, but some match
    tiny = RankCandidate(_memory("tiny"), EVIDENCE_FLOOR, 0.0)  # half the floor after weighting
    assert [h.memory.id for h in rank([bare, weak, tiny], now=NOW, limit=10)] == ["weak"]
    # Without a floor, the bare pinned memory would lead on recency, use and pinned state alone.
    assert rank([bare, weak, tiny], now=NOW, limit=10, min_evidence=0.0)[0].memory.id == "bare"


def test_relative_time_words_count_from_now_unless_the_memories_are_a_past_record() -> None:
    live = [_memory("a", days_old=3), _memory("b", days_old=400)]
    assert time_anchor(NOW, live) == NOW
    old = [
        _memory("c", days_old=HISTORICAL_AFTER_DAYS + 10),
        _memory("d", days_old=HISTORICAL_AFTER_DAYS + 40),
    ]
    assert time_anchor(NOW, old) == old[0].occurred
    assert time_anchor(NOW, []) == NOW


def test_the_time_boost_lifts_only_memories_in_the_window() -> None:
    inside = RankCandidate(_memory("inside", days_old=1), 0.5, 0.5)
    outside = RankCandidate(_memory("outside", days_old=20), 0.5, 0.5)
    window = time_window("what happened yesterday", NOW, [inside, outside])
    assert window is not None and window.describe() == 'time: "yesterday" -> 2026-02-28'
    boosted = {c.memory.id: dict(c.boost) for c in boost_by_time([inside, outside], window)}
    assert boosted == {"inside": {window.describe(): 0.15}, "outside": {}}
    assert time_window("nothing about time", NOW, [inside]) is None
