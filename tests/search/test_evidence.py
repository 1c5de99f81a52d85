"""No hit without evidence (issue 36): a search returns only memories the query's text supports;
recency, use and pinned state order hits but never make one. On a real SQLite file with the
vector path (the deterministic fake embedder), through the service and the MCP tool."""

from __future__ import annotations

import anyio

from memwarden.search.ranking import EVIDENCE_FLOOR, evidence
from memwarden.service import MemoryService
from tests.mcp_helpers import call_ok, mcp_client

TEXTS = [
    "Production deploys happen on Tuesdays",
    "The billing database is backed up nightly",
    "Lunch orders close at eleven",
    "The VPN needs disk encryption on laptops",
    "Standup moved to half past nine",
    "Invoices are archived for seven years",
]

NO_KEYWORD = "zebra the is on"


def _fill(service: MemoryService) -> dict[str, str]:
    ids = {service.memories.add(text, project="p").memory.id: text for text in TEXTS}
    pinned = service.memories.add("Always answer in English", project="p", pinned=True).memory.id
    ids[pinned] = "pinned"
    for _ in range(3):  # the pinned memory is also much used: neither may make it a hit
        service.searcher.search("always answer English", project="p")
    return ids


def test_a_search_returns_no_memory_whose_only_reasons_are_recency_usage_or_pinned(
    service: MemoryService,
) -> None:
    ids = _fill(service)
    # No keyword in common with any memory ("the", "is", "on" are stopwords to the keyword
    # index, words to the embedder): only the vector path offers candidates, and the weaker of
    # its two (cosine scaled to 0 over the candidates) has nothing but recency.
    result = service.searcher.search(NO_KEYWORD, project="p", limit=50)
    assert result.degraded is False
    assert [ids[h.memory.id] for h in result.hits] == ["The VPN needs disk encryption on laptops"]
    for hit in result.hits:
        assert evidence(hit.why) >= EVIDENCE_FLOOR
        assert hit.why.get("vector", 0) + hit.why.get("keyword", 0) + hit.why.get("coverage", 0) > 0


def test_a_matching_memory_is_still_found_and_browsing_still_lists_everything(service: MemoryService) -> None:
    ids = _fill(service)
    hits = service.searcher.search("billing database backups", project="p").hits
    assert ids[hits[0].memory.id] == "The billing database is backed up nightly"
    # An empty query browses: every memory, no evidence asked (``list`` is another operation).
    assert len(service.searcher.search("", project="p", limit=50).hits) == len(ids)
    assert len(service.memories.list(project="p", limit=50)) == len(ids)


def test_the_search_tool_returns_no_hit_without_evidence(service: MemoryService) -> None:
    ids = _fill(service)

    async def run() -> None:
        async with mcp_client(service) as client:
            out = await call_ok(client, "memory_search", {"query": NO_KEYWORD, "project": "p", "limit": 50})
            assert [ids[h["id"]] for h in out["hits"]] == ["The VPN needs disk encryption on laptops"]
            for hit in out["hits"]:
                assert evidence(hit["why"]) >= EVIDENCE_FLOOR

    anyio.run(run)
