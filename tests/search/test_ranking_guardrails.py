"""Ranking guardrails (issue 3): behaviour the ranking weights must keep, on a real SQLite file."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memwarden.service import MemoryService

# These guardrails pin the keyword ranking weights; the hybrid path has its own tests.
pytestmark = pytest.mark.keyword_only

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


def _at(service: MemoryService, when: datetime) -> None:
    service.clock = lambda: when


def test_a_newer_memory_that_corrects_an_older_one_outranks_it(service: MemoryService) -> None:
    _at(service, T0)
    old = service.memories.add("We deploy the web app on Tuesdays.", project="ops").memory
    for _ in range(5):  # the old fact has been used a lot: usage must not save it
        service.searcher.search("deploy web app", project="ops")
    _at(service, T0 + timedelta(days=45))
    new = service.memories.add(
        "Correction: we no longer deploy the web app on Tuesdays; deploys of the web app moved to Thursdays.",
        project="ops",
    ).memory
    hits = service.searcher.search("when do we deploy the web app", project="ops").hits
    assert [h.memory.id for h in hits[:2]] == [new.id, old.id]
    by_id = {h.memory.id: h for h in hits}
    # The shorter old memory matches at least as well on text alone: recency did the work.
    assert by_id[old.id].why["relevance"] >= by_id[new.id].why["relevance"]
    assert by_id[old.id].why["usage"] > by_id[new.id].why["usage"]


def test_full_query_coverage_beats_a_rare_single_term_match(service: MemoryService) -> None:
    _at(service, T0)
    for i in range(40):
        service.memories.add(
            f"Backup schedule note {i}: backups run nightly and the schedule is in the runbook.",
            project="infra",
        )
    rare = service.memories.add("Pgbouncer pgbouncer pgbouncer.", project="infra").memory
    full = service.memories.add(
        "Pgbouncer sits in front of the database; its backup schedule is documented together with the "
        "connection pool sizes, the failover steps, the monitoring dashboards and the on-call rota.",
        project="infra",
    ).memory
    hits = service.searcher.search("pgbouncer backup schedule", project="infra").hits
    by_id = {h.memory.id: h for h in hits}
    # bm25 alone prefers the short memory that repeats the rare word ...
    assert by_id[rare.id].why["relevance"] > by_id[full.id].why["relevance"]
    # ... but the memory that covers the whole query ranks first.
    assert hits[0].memory.id == full.id
    assert by_id[full.id].why["coverage"] > by_id[rare.id].why["coverage"]


def test_pinned_beats_unpinned_at_equal_relevance(service: MemoryService) -> None:
    _at(service, T0)
    pinned = service.memories.add(
        "The staging database password rotates monthly.", project="sec", pinned=True
    ).memory
    _at(service, T0 + timedelta(days=2))
    plain = service.memories.add("The testing database password rotates monthly.", project="sec").memory
    hits = service.searcher.search("database password rotates", project="sec").hits
    assert [h.memory.id for h in hits] == [pinned.id, plain.id]
    assert hits[0].why["relevance"] == hits[1].why["relevance"]
    assert hits[0].why["pinned"] > 0 and hits[1].why["pinned"] == 0


def test_every_hit_explains_its_score(service: MemoryService) -> None:
    _at(service, T0)
    service.memories.add(
        "Grafana dashboards live in the ops folder.", project="ops", title="grafana", tags=["monitoring"]
    )
    hit = service.searcher.search("grafana dashboards").hits[0]
    assert set(hit.why) == {"relevance", "coverage", "recency", "usage", "pinned"}
    assert abs(sum(hit.why.values()) - hit.score) < 1e-4
