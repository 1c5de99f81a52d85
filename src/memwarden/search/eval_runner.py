"""Running labelled queries against the caller's own memories (``memwarden eval``).

For each labelled query (``search/evaluation.py``) the expected memories are resolved (ids as
given; an ``expect`` fragment names every live memory of the project whose content holds it,
case-insensitive), the candidates of both retrieval paths are gathered once, and each
configuration is scored on them: keyword-only and hybrid under the current settings, and with
``fit`` the best tuning found on the same gatherings. Nothing is written: no use is counted, no
vector or index changes; one audit row (action ``search``, detail ``eval``) records the run.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from memwarden.models import Caller, Memory
from memwarden.search.evaluation import EvalCase, Scores, Tuning, fit_tuning
from memwarden.search.searcher import Gathered, Searcher
from memwarden.store.base import MaintainableStore

LIMIT = 10


@dataclass
class _Prepared:
    case: EvalCase
    expected: set[str]
    pools: dict[str, Gathered]
    gather_ms: dict[str, float]


def _fragment_matches(memories: Sequence[Memory], case: EvalCase) -> set[str]:
    wanted = [f.casefold() for f in case.fragments]
    return {
        m.id
        for m in memories
        if any(f in m.content.casefold() for f in wanted)
        and (case.project is None or m.project == case.project)
    }


def _memories(store: MaintainableStore, tenant: str, projects: set[str | None]) -> Iterator[Memory]:
    named = sorted(p for p in projects if p is not None)
    scope: list[str | None] = [None] if None in projects else list(named)
    for project in scope:
        yield from store.iter_memories(tenant, project=project, include_deleted=False)


def run_eval(
    searcher: Searcher,
    store: MaintainableStore,
    cases: Sequence[EvalCase],
    *,
    caller: Caller,
    fit: bool = False,
) -> dict[str, Any]:
    """Scores per configuration, the unresolved queries, and with ``fit`` the proposed settings."""
    now = searcher.clock()
    memories = (
        list(_memories(store, caller.tenant, {c.project for c in cases if c.fragments}))
        if any(c.fragments for c in cases)
        else []
    )
    hybrid = searcher.vectors is not None and searcher.vectors.wait_ready(120)
    modes = ["keyword", "hybrid"] if hybrid else ["keyword"]
    prepared: list[_Prepared] = []
    unresolved: list[int] = []
    for case in cases:
        expected = set(case.ids) | (_fragment_matches(memories, case) if case.fragments else set())
        if not expected:
            unresolved.append(case.line)
            continue
        project = None if case.project is None else searcher.intake.clean_project(case.project)
        pools: dict[str, Gathered] = {}
        took: dict[str, float] = {}
        for mode in modes:
            started = time.perf_counter()
            pools[mode] = searcher.gather(
                caller,
                case.query,
                project=project,
                tags=(),
                include_expired=False,
                vector=mode == "hybrid",
                now=now,
                limit=LIMIT,
            )
            took[mode] = (time.perf_counter() - started) * 1000
        prepared.append(_Prepared(case, expected, pools, took))

    def score(mode: str, tuning: Tuning, *, timed: bool = False) -> Scores:
        scores = Scores()
        for item in prepared:
            started = time.perf_counter()
            hits = searcher.score(item.pools[mode], limit=LIMIT, tuning=tuning)
            latency = item.gather_ms[mode] + (time.perf_counter() - started) * 1000 if timed else None
            scores.add([h.memory.id for h in hits], item.expected, latency)
        return scores

    current = searcher.tuning
    results: dict[str, Any] = {
        mode: {**score(mode, current, timed=True).summary(), **_tuning(current, mode)} for mode in modes
    }
    proposal: dict[str, Any] | None = None
    if fit and prepared:
        mode = modes[-1]
        best, best_scores = fit_tuning(
            lambda t: score(mode, t), current=current, with_vectors=mode == "hybrid"
        )
        results[f"proposed ({mode})"] = {**best_scores.summary(), **_tuning(best, mode)}
        proposal = {"settings": best.settings(), "changed": best != current}
    searcher.audit_eval(caller, len(prepared))
    return {
        "queries": len(cases),
        "scored": len(prepared),
        "unresolved_lines": unresolved,
        "configurations": results,
        "proposal": proposal,
    }


def _tuning(tuning: Tuning, mode: str) -> dict[str, Any]:
    vector = (
        None
        if mode == "keyword"
        else ("model default" if tuning.vector_weight is None else tuning.vector_weight)
    )
    return {"vector_weight": vector, "thread_weight": tuning.thread_weight}


__all__ = ["LIMIT", "run_eval"]
