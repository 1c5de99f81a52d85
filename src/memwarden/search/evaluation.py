"""Evaluating search on the user's own labelled queries (``memwarden eval FILE [--fit]``).

A labelled query is one JSON object per line::

    {"query": "when is the dentist?", "project": "home", "ids": ["01JD3Z5X9Q2W8E7R6T5Y4V3K2M"]}
    {"query": "where do backups go", "expect": "rsync to the NAS"}

``ids`` names the memories that should come back; ``expect`` (a string or a list of strings)
names them by a fragment of their content instead (case-insensitive; every live memory of the
project holding it counts). ``project`` is optional (all projects when absent).

Scores, per configuration: recall@k = share of the expected memories in the top k (k = 1, 5,
10), MRR = 1 / rank of the first expected memory in the top 10 (0 when none), and search
latency. Fitting (``fit_tuning``) tries a grid of the two search settings that matter most on
conversations (the vector weight and the thread weight) on candidate pools gathered once per
query, and proposes the best by recall@5 + MRR.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memwarden.errors import InvalidInput
from memwarden.os_error_words import cannot_read
from memwarden.search.tuning import Tuning

DEPTH = 10
MAX_CASES = 100_000


@dataclass(frozen=True, slots=True)
class EvalCase:
    """One labelled query: what to search for and which memories should come back."""

    line: int
    query: str
    project: str | None
    ids: tuple[str, ...] = ()
    fragments: tuple[str, ...] = ()


def _strings(value: object, name: str, line: int) -> tuple[str, ...]:
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) and v.strip() for v in items):
        raise InvalidInput(f"line {line}: {name} must be a non-empty string or a list of them", field=name)
    return tuple(items)


def parse_cases(lines: Iterable[str]) -> list[EvalCase]:
    """Labelled queries from JSONL text; a bad line raises ``InvalidInput`` naming it."""
    cases: list[EvalCase] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            item = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise InvalidInput(
                f"line {number}: not JSON ({exc.msg}); write one JSON object a line", field="file"
            ) from None
        if not isinstance(item, dict):
            raise InvalidInput(f"line {number}: expected a JSON object", field="file")
        query = item.get("query")
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput(f"line {number}: query must be a non-empty string", field="query")
        project = item.get("project", item.get("scope"))
        if project is not None and not isinstance(project, str):
            raise InvalidInput(f"line {number}: project must be a string", field="project")
        ids = tuple(i.strip().upper() for i in _strings(item.get("ids"), "ids", number))
        fragments = _strings(item.get("expect"), "expect", number)
        if not ids and not fragments:
            raise InvalidInput(
                f"line {number}: give the expected memories as ids or as an expect fragment", field="ids"
            )
        cases.append(EvalCase(number, query, project, ids, fragments))
        if len(cases) > MAX_CASES:
            raise InvalidInput(f"more than {MAX_CASES} labelled queries; split the file", field="file")
    if not cases:
        raise InvalidInput(
            'the file holds no labelled queries: write one JSON object a line, such as {"query": "...", '
            '"expect": "a fragment of the memory"}',
            field="file",
        )
    return cases


def load_cases(path: Path) -> list[EvalCase]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        missing = "check the path (it holds one labelled query a line, see docs/cli.md)"
        raise InvalidInput(
            cannot_read(path, exc, what="file of labelled queries", missing_fix=missing), field="file"
        ) from None
    except UnicodeDecodeError:
        raise InvalidInput(f"{path} is not UTF-8 text: save it as UTF-8", field="file") from None
    try:
        return parse_cases(text.splitlines())
    except InvalidInput as exc:  # name the file: "line 3: not JSON" alone does not say which
        raise InvalidInput(f"{path}: {exc.message}", **exc.fields) from None


@dataclass
class Scores:
    """recall@1/5/10 and reciprocal ranks of a run, plus search latencies in ms."""

    recall: dict[int, list[float]] = field(default_factory=lambda: {1: [], 5: [], 10: []})
    reciprocal: list[float] = field(default_factory=list)
    latency_ms: list[float] = field(default_factory=list)

    def add(self, ranked: Sequence[str], expected: set[str], latency_ms: float | None = None) -> None:
        for k, bucket in self.recall.items():
            bucket.append(len(expected & set(ranked[:k])) / len(expected) if expected else 0.0)
        first = next((i for i, m in enumerate(ranked[:DEPTH], start=1) if m in expected), None)
        self.reciprocal.append(0.0 if first is None else 1.0 / first)
        if latency_ms is not None:
            self.latency_ms.append(latency_ms)

    def summary(self) -> dict[str, Any]:
        def mean(values: list[float]) -> float:
            return round(sum(values) / len(values), 4) if values else 0.0

        out: dict[str, Any] = {"queries": len(self.reciprocal)}
        out.update({f"recall@{k}": mean(v) for k, v in self.recall.items()})
        out["mrr"] = mean(self.reciprocal)
        if self.latency_ms:
            ordered = sorted(self.latency_ms)
            import statistics  # here, not at the top: the cold search path imports this module

            out["p50_ms"] = round(statistics.median(ordered), 2)
            out["p95_ms"] = round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2)
        return out

    @property
    def objective(self) -> float:
        """What fitting maximises: recall@5 + MRR."""
        s = self.summary()
        return float(s["recall@5"] + s["mrr"])


VECTOR_GRID = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
THREAD_GRID = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)


def fit_tuning(
    score: Callable[[Tuning], Scores], *, current: Tuning, with_vectors: bool
) -> tuple[Tuning, Scores]:
    """The grid point with the best recall@5 + MRR; ``current`` wins ties (no change for noise)."""
    best, best_scores = current, score(current)
    for vector_weight in VECTOR_GRID if with_vectors else (current.vector_weight,):
        for thread_weight in THREAD_GRID:
            tuning = Tuning(vector_weight, thread_weight)
            if tuning == current:
                continue
            scores = score(tuning)
            if scores.objective > best_scores.objective + 1e-9:
                best, best_scores = tuning, scores
    return best, best_scores


__all__ = ["DEPTH", "EvalCase", "Scores", "Tuning", "fit_tuning", "load_cases", "parse_cases"]
