"""search/evaluation.py: labelled queries parsed with clear errors, scores, and fitting."""

from __future__ import annotations

from pathlib import Path

import pytest

from memwarden.errors import InvalidInput
from memwarden.search.evaluation import Scores, Tuning, fit_tuning, load_cases, parse_cases


def test_cases_accept_ids_or_fragments_and_the_scope_alias() -> None:
    cases = parse_cases(
        [
            '{"query": "dentist", "project": "home", "ids": ["01jd3z5x9q2w8e7r6t5y4v3k2m"]}',
            "",
            '{"query": "backups", "scope": "ops", "expect": ["rsync", "NAS"]}',
        ]
    )
    assert [(c.line, c.project, c.ids, c.fragments) for c in cases] == [
        (1, "home", ("01JD3Z5X9Q2W8E7R6T5Y4V3K2M",), ()),
        (3, "ops", (), ("rsync", "NAS")),
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "line 1: not JSON"),
        ("[1, 2]", "line 1: expected a JSON object"),
        ('{"ids": ["x"]}', "line 1: query must be a non-empty string"),
        ('{"query": "q"}', "line 1: give the expected memories"),
        ('{"query": "q", "expect": ""}', "line 1: expect must be"),
        ('{"query": "q", "ids": "x", "project": 3}', "line 1: project must be a string"),
    ],
)
def test_bad_lines_are_named(line: str, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        parse_cases([line])


def test_an_empty_or_unreadable_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_text("\n\n")
    with pytest.raises(InvalidInput, match="no labelled queries"):
        load_cases(tmp_path / "empty.jsonl")
    with pytest.raises(InvalidInput, match="cannot read"):
        load_cases(tmp_path / "missing.jsonl")
    (tmp_path / "latin.jsonl").write_bytes(b"\xff\xfe{")
    with pytest.raises(InvalidInput, match="not UTF-8"):
        load_cases(tmp_path / "latin.jsonl")


def test_scores_count_recall_at_k_and_reciprocal_rank() -> None:
    scores = Scores()
    scores.add(["a", "b", "c", "d", "e", "f"], {"b", "f", "z"}, latency_ms=4.0)
    scores.add(["x"], {"y"}, latency_ms=6.0)
    summary = scores.summary()
    assert summary["recall@1"] == 0.0 and summary["recall@5"] == round((1 / 3) / 2, 4)
    assert summary["recall@10"] == round((2 / 3) / 2, 4) and summary["mrr"] == 0.25
    assert summary["p50_ms"] == 5.0 and summary["queries"] == 2


def test_fit_picks_the_best_grid_point_and_keeps_the_current_one_on_ties() -> None:
    def score(tuning: Tuning) -> Scores:
        s = Scores()
        good = tuning.vector_weight == 0.3 and tuning.thread_weight == 0.2
        s.add(["a"] if good else ["b", "a"], {"a"})
        return s

    current = Tuning(0.7, 0.0)
    best, scores = fit_tuning(score, current=current, with_vectors=True)
    assert best == Tuning(0.3, 0.2) and scores.summary()["mrr"] == 1.0
    assert best.settings() == {
        "MEMWARDEN_SEARCH_THREAD_WEIGHT": "0.2",
        "MEMWARDEN_SEARCH_VECTOR_WEIGHT": "0.3",
    }
    flat, _ = fit_tuning(lambda t: Scores(), current=current, with_vectors=False)
    assert flat == current
