"""memory_health, memory_review, memory_export and memory_import through a real in-memory MCP
client session; review proposals on the service."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import anyio
import pytest

from memwarden.app import build_service
from memwarden.config import Settings
from memwarden.errors import InvalidInput
from memwarden.service import MemoryService
from tests.mcp_helpers import call_error, call_ok, mcp_client

OPS = ("memory_health", "memory_review", "memory_export", "memory_import")


@pytest.fixture
def service(settings: Settings) -> Iterator[MemoryService]:
    svc = build_service(settings, ops=True)
    yield svc
    svc.close()


def _rows(db: Path) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT * FROM memories ORDER BY id").fetchall()
    finally:
        conn.close()


def test_ops_tools_are_in_the_all_profile_with_annotations(service: MemoryService) -> None:
    async def run() -> None:
        async with mcp_client(service, tools="core") as client:
            assert not {t.name for t in (await client.list_tools()).tools} & set(OPS)
        async with mcp_client(service, tools="all") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            for name in OPS:
                assert tools[name].annotations is not None and tools[name].output_schema is not None
            assert tools["memory_review"].annotations.read_only_hint is True
            assert tools["memory_import"].annotations.destructive_hint is False
            assert tools["memory_health"].annotations.read_only_hint is False  # it writes a probe row

    anyio.run(run)


def test_health_review_export_import_through_a_client_session(service: MemoryService, db_path: Path) -> None:
    async def run() -> None:
        async with mcp_client(service) as client:
            await call_ok(client, "memory_add", {"content": "Backups run nightly at 02:00", "project": "ops"})
            await call_ok(
                client, "memory_add", {"content": "Backups run nightly at 02:00!", "project": "ops"}
            )
            health = await call_ok(client, "memory_health", {})
            assert health["status"] == "ok" and health["checks"]["keyword_index"]["ok"] is True
            review = await call_ok(client, "memory_review", {"scope": "ops"})
            assert review["counts"]["duplicates"] == 1 and review["duplicates"][0]["similarity"] == 1.0
            exported = await call_ok(client, "memory_export", {"project": "ops"})
            assert exported["count"] == 2 and exported["export"]["format"] == "memwarden.export"
            written = await call_ok(client, "memory_export", {"name": "ops.json"})
            assert written["file"].endswith("ops.json") and written["export"] is None
            again = await call_ok(client, "memory_import", {"name": "ops.json"})
            assert again["skipped_same_id"] == 2 and again["inserted"] == 0
            inline = await call_ok(
                client,
                "memory_import",
                {"data": [{"content": "Imported inline"}], "format": "memorry", "scope": "new"},
            )
            assert inline["inserted"] == 1
            as_text = await call_ok(
                client,
                "memory_import",
                {
                    "data": json.dumps(
                        {"results": [{"memory": "From mem0", "created_at": "2025-01-01T00:00:00Z"}]}
                    )
                },
            )
            assert as_text["format"] == "mem0" and as_text["inserted"] == 1

    anyio.run(run)


BAD_CALLS = [
    ("memory_import", {}, "exactly one of data"),
    ("memory_import", {"data": "[]", "name": "x.json"}, "exactly one of data"),
    ("memory_import", {"data": "{broken"}, "not valid JSON"),
    ("memory_import", {"data": {"format": "memwarden.export", "version": 7, "memories": []}}, "version 7"),
    ("memory_import", {"name": "../../etc/passwd"}, "plain file name"),
    ("memory_import", {"name": "/etc/passwd"}, "plain file name"),
    ("memory_import", {"name": "missing.json"}, "there is no such file; check the name"),
    ("memory_import", {"data": "{broken"}, "or one in a supported format"),
    ("memory_import", {"data": "[]", "format": "csv"}, "unknown import format"),
    ("memory_export", {"name": "../outside.json"}, "plain file name"),
    ("memory_export", {"name": "sub/dir.json"}, "plain file name"),
    ("memory_review", {"stale_days": 0}, "stale_days"),
    ("memory_review", {"limit": 100000}, "limit"),
    ("memory_review", {"project": "a", "scope": "b"}, "disagree"),
]


@pytest.mark.parametrize(("tool", "arguments", "message"), BAD_CALLS)
def test_bad_ops_tool_input_is_a_tool_error_and_changes_nothing(
    service: MemoryService, db_path: Path, tmp_path: Path, tool: str, arguments: dict, message: str
) -> None:
    service.memories.add("present before the bad call")
    before = _rows(db_path)

    async def run() -> None:
        async with mcp_client(service) as client:
            assert message in await call_error(client, tool, arguments)

    anyio.run(run)
    assert _rows(db_path) == before
    assert not (tmp_path / "outside.json").exists()


def test_review_proposes_never_retrieved_stale_and_expired_and_deletes_nothing(
    service: MemoryService, db_path: Path
) -> None:
    never = service.memories.add("nobody ever asked about this").memory
    used = service.memories.add("retrieved once long ago").memory
    pinned = service.memories.add("pinned but never searched", pinned=True).memory
    expiring = service.memories.add("short lived", ttl_hours=1).memory
    service.searcher.search("retrieved once")
    start = never.created_at
    service.clock = lambda: start + timedelta(days=120)
    before = _rows(db_path)
    report = service.operations.review(stale_days=90)
    assert [i["id"] for i in report["never_retrieved"]] == [never.id]
    assert [i["id"] for i in report["stale"]] == [used.id]
    assert [i["id"] for i in report["expired"]] == [expiring.id]
    assert pinned.id not in json.dumps(report)
    assert report["expired"][0]["purge_after"] > report["expired"][0]["expired_at"]
    assert _rows(db_path) == before
    with pytest.raises(InvalidInput):
        service.operations.review(stale_days=True)


def test_review_finds_near_duplicates_only_within_a_project(service: MemoryService) -> None:
    service.memories.add("The staging server runs PostgreSQL 16 on port 5433", project="a")
    service.memories.add("the staging server runs postgresql 16 on port 5433.", project="a")
    service.memories.add("The staging server runs PostgreSQL 16 on port 5433", project="b")
    service.memories.add("Completely different: lunch is at noon", project="a")
    pairs = service.operations.review()["duplicates"]
    assert len(pairs) == 1
    assert pairs[0]["keep"]["project"] == pairs[0]["candidate"]["project"] == "a"


def test_inline_import_data_over_the_size_limit_is_refused(settings: Settings, db_path: Path) -> None:
    from dataclasses import replace

    service = build_service(settings, ops=True)
    service.operations.options = replace(service.operations.options, import_max_bytes=2048)
    before = _rows(db_path)
    try:

        async def run() -> None:
            async with mcp_client(service) as client:
                big = [{"content": f"memory {i} " + "x" * 100} for i in range(50)]
                assert "over the import limit" in await call_error(client, "memory_import", {"data": big})

        anyio.run(run)
    finally:
        service.close()
    assert _rows(db_path) == before
