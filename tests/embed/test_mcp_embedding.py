"""What MCP clients see of the vector path: embedding failures on add, degraded searches."""

from __future__ import annotations

import anyio

from memwarden.embed.fake import FakeEmbedder
from memwarden.service import MemoryService
from tests.mcp_helpers import call_ok, mcp_client


def test_memory_add_reports_a_failed_embedding_and_search_says_why_it_degraded(
    service: MemoryService,
) -> None:
    assert service.vectors is not None and isinstance(service.vectors.embedder, FakeEmbedder)
    embedder = service.vectors.embedder

    async def run() -> None:
        async with mcp_client(service) as client:
            embedder.fail = True
            added = await call_ok(client, "memory_add", {"content": "The VPN drops every 8 hours"})
            assert added["embedding_failed"] is True and "told to fail" in added["embedding_error"]
            found = await call_ok(client, "memory_search", {"query": "VPN drops"})
            assert found["degraded"] is True and found["degrade_reason"] == "vector_error"
            assert found["hits"][0]["id"] == added["id"]
            embedder.fail = False
            ok = await call_ok(client, "memory_add", {"content": "Backups are encrypted with age"})
            assert ok["embedding_failed"] is False and ok["embedding_error"] is None
            found = await call_ok(client, "memory_search", {"query": "backups encrypted"})
            assert found["degraded"] is False and "vector" in found["hits"][0]["why"]

    anyio.run(run)
