"""Time words in a search lift the memories that happened then (a boost, never a filter), and
``why`` names the window; on a real SQLite file, through the service and the MCP tool."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import anyio
import pytest

from memwarden.search.ranking import TIME_WEIGHT
from memwarden.service import MemoryService
from tests.mcp_helpers import call_ok, mcp_client

pytestmark = pytest.mark.keyword_only

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)  # a Thursday; last week is 23-29 November


def _add(service: MemoryService, content: str, occurred: datetime) -> str:
    return service.memories.add(content, project="ops", occurred_at=occurred.isoformat()).memory.id


def test_last_week_lifts_the_memory_from_last_week_and_why_names_the_window(service: MemoryService) -> None:
    service.clock = lambda: NOW
    old = _add(service, "The deploy of the billing service was rolled back", NOW - timedelta(days=60))
    fresh = _add(
        service, "The deploy of the billing service was paused for the audit", NOW - timedelta(days=1)
    )
    last_week = _add(service, "The deploy of the billing service moved to Thursday", NOW - timedelta(days=8))
    hits = service.searcher.search("billing deploy last week", project="ops").hits
    assert hits[0].memory.id == last_week
    window = 'time: "last week" -> 2026-11-23..2026-11-29'
    assert hits[0].why[window] == TIME_WEIGHT
    assert abs(sum(hits[0].why.values()) - hits[0].score) < 1e-5
    # A boost, not a filter: the memories outside the window are still found.
    assert {h.memory.id for h in hits} == {old, fresh, last_week}
    assert all(window not in h.why for h in hits[1:])


def test_a_memory_without_the_date_still_answers_when_it_is_the_only_match(service: MemoryService) -> None:
    service.clock = lambda: NOW
    _add(service, "Lunch orders close at eleven", NOW - timedelta(days=8))
    answer = _add(service, "The VPN certificate expires in March", NOW - timedelta(days=200))
    hits = service.searcher.search("what did we say about the VPN certificate last week", project="ops").hits
    assert hits[0].memory.id == answer


def test_in_may_lifts_may_memories_of_any_year(service: MemoryService) -> None:
    service.clock = lambda: NOW
    may = _add(service, "Ana ran the charity race", datetime(2024, 5, 12, tzinfo=UTC))
    other = _add(service, "Ana ran the charity race again", datetime(2026, 9, 2, tzinfo=UTC))
    hits = service.searcher.search("when did Ana run the charity race in May", project="ops").hits
    assert [h.memory.id for h in hits] == [may, other]
    assert 'time: "May" -> May of any year' in hits[0].why


def test_a_store_of_past_conversations_counts_relative_words_from_its_newest_memory(
    service: MemoryService,
) -> None:
    # A conversation imported years after it happened: "last week" is the last week of the record.
    service.clock = lambda: NOW
    end = datetime(2023, 5, 9, 13, 0, tzinfo=UTC)  # a Tuesday; the week before is 1-7 May 2023
    early = _add(service, "Caroline went to the support group meeting", end - timedelta(days=40))
    week_before = _add(service, "Caroline went to the support group picnic", end - timedelta(days=4))
    _add(service, "Melanie painted a sunrise", end)
    hits = service.searcher.search("Caroline support group last week", project="ops").hits
    assert hits[0].memory.id == week_before
    assert 'time: "last week" -> 2023-05-01..2023-05-07' in hits[0].why
    assert early in {h.memory.id for h in hits}


def test_the_search_tool_explains_the_time_boost_in_turkish(service: MemoryService) -> None:
    service.clock = lambda: NOW
    before = _add(service, "Sunucu yedekleri sabah alındı", NOW - timedelta(days=2))
    target = _add(service, "Sunucu yedekleri akşam alındı", NOW - timedelta(days=9))

    async def run() -> None:
        async with mcp_client(service) as client:
            out = await call_ok(
                client, "memory_search", {"query": "geçen hafta sunucu yedekleri", "project": "ops"}
            )
            assert [h["id"] for h in out["hits"]] == [target, before]
            assert out["hits"][0]["why"]['time: "geçen hafta" -> 2026-11-23..2026-11-29'] == TIME_WEIGHT

    anyio.run(run)
