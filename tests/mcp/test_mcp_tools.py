"""Every MCP tool through a real in-memory client session, good and bad input."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import anyio
import pytest

from memwarden.mcp.server import CORE_TOOLS, TOOL_NAMES
from memwarden.service import MemoryService
from tests.mcp_helpers import call_error, call_ok, mcp_client

FTS_SYNTAX = [
    '"',
    "a AND b",
    "OR",
    "NOT x",
    "NEAR(a b)",
    "*",
    "-x",
    "^y",
    "(a",
    "a)",
    'x" OR "y',
    "title:x",
    "{a b}",
]


def _rows(db: Path) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT * FROM memories ORDER BY id").fetchall()
    finally:
        conn.close()


def test_core_profile_lists_four_tools_and_all_lists_every_tool(service: MemoryService) -> None:
    async def run() -> None:
        async with mcp_client(service, tools="core") as client:
            listed = await client.list_tools()
            assert [t.name for t in listed.tools] == list(CORE_TOOLS)
        async with mcp_client(service, tools="all") as client:
            listed = await client.list_tools()
            assert [t.name for t in listed.tools] == list(TOOL_NAMES)
            for tool in listed.tools:
                assert tool.annotations is not None, tool.name
                assert tool.output_schema is not None, tool.name
                assert tool.description
            by_name = {t.name: t for t in listed.tools}
            assert by_name["memory_search"].annotations.read_only_hint is True
            assert by_name["memory_delete"].annotations.destructive_hint is True

    anyio.run(run)


def test_every_tool_works_through_a_client_session(service: MemoryService) -> None:
    async def run() -> None:
        async with mcp_client(service) as client:
            added = await call_ok(
                client,
                "memory_add",
                {
                    "content": "The staging database lives on db-stage-2",
                    "scope": "infra",
                    "tags": '["db", "staging"]',
                    "title": "Staging DB",
                    "kind": "fact",
                    "pinned": True,
                },
            )
            mid = added["id"]
            assert added["duplicate"] is False and added["memory"]["project"] == "infra"
            assert added["memory"]["tags"] == ["db", "staging"]
            again = await call_ok(
                client,
                "memory_add",
                {"content": "The staging database lives on db-stage-2", "project": "infra"},
            )
            assert again["duplicate"] is True and again["id"] == mid

            found = await call_ok(client, "memory_search", {"query": "staging database", "scope": "infra"})
            assert found["hits"][0]["id"] == mid and found["degraded"] is False
            assert "why" in found["hits"][0]

            updated = await call_ok(
                client, "memory_update", {"id": mid, "content": "Staging DB is db-stage-3", "if_version": 1}
            )
            assert updated["memory"]["version"] == 2

            got = await call_ok(client, "memory_get", {"ids": [mid, "01JD3Z5X9Q2W8E7R6T5Y4V3K2M"]})
            assert [m["id"] for m in got["memories"]] == [mid]
            assert got["missing"] == ["01JD3Z5X9Q2W8E7R6T5Y4V3K2M"]

            listed = await call_ok(client, "memory_list", {"pinned": True})
            assert [m["id"] for m in listed["memories"]] == [mid]

            stats = await call_ok(client, "memory_stats", {})
            assert stats["memories"] == 1 and stats["projects"] == {"infra": 1}

            echoed = await call_ok(client, "echo", {"message": "ping ünïcode 测试"})
            assert echoed["message"] == "ping ünïcode 测试"

            deleted = await call_ok(client, "memory_delete", {"id": mid})
            assert deleted == {"id": mid, "deleted": True, "already_deleted": False}
            again_deleted = await call_ok(client, "memory_delete", {"id": mid})
            assert again_deleted["already_deleted"] is True

    anyio.run(run)


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("memory_add", {"content": ""}, "content is empty"),
        ("memory_add", {"content": "   \n\t "}, "content is empty"),
        ("memory_add", {"content": "\u200b\ufe0f \u2060"}, "empty once invisible characters are removed"),
        ("memory_add", {"content": "x" * (16 * 1024 + 1)}, "over the limit"),
        ("memory_add", {"content": "nul \x00 byte"}, "NUL"),
        ("memory_add", {"content": "lone \ud800 surrogate"}, ""),
        ("memory_add", {"content": "ok", "ttl_hours": -1}, "ttl_hours"),
        ("memory_add", {"content": "ok", "kind": "secret"}, "kind must be one of"),
        ("memory_add", {"content": "ok", "tags": "[not json"}, "tags"),
        ("memory_add", {"content": 42}, ""),
        ("memory_add", {}, "content"),
        ("memory_add", {"content": "ok", "project": "a", "scope": "b"}, "disagree"),
        ("memory_search", {"query": "x", "limit": 0}, "limit"),
        ("memory_search", {"query": "x", "limit": 100000}, "limit"),
        ("memory_search", {"query": "x", "limit": "ten"}, ""),
        ("memory_search", {"query": "nul\x00"}, "NUL"),
        ("memory_update", {"id": "01JD3Z5X9Q2W8E7R6T5Y4V3K2M", "content": "x"}, "no memory with id"),
        ("memory_update", {"id": "not-an-id", "content": "x"}, "not a memory id"),
        ("memory_delete", {"id": "01JD3Z5X9Q2W8E7R6T5Y4V3K2M"}, "no memory with id"),
        ("memory_delete", {"id": ""}, "not a memory id"),
        ("memory_delete", {"id": 7}, ""),
        ("memory_get", {"ids": []}, "non-empty"),
        ("memory_get", {"ids": ["bad"]}, "not a memory id"),
        ("memory_list", {"limit": 0}, "limit"),
        ("memory_list", {"project": ""}, "project"),
        ("memory_stats", {"project": "\x00"}, "NUL"),
        ("echo", {}, "message"),
    ],
)
def test_bad_input_is_a_tool_error_and_changes_nothing(
    service: MemoryService, db_path: Path, tool: str, arguments: dict, expected: str
) -> None:
    async def run() -> None:
        async with mcp_client(service) as client:
            seeded = await call_ok(client, "memory_add", {"content": "a seeded memory about backups"})
            before = _rows(db_path)
            message = await call_error(client, tool, arguments)
            assert expected.lower() in message.lower()
            after = _rows(db_path)
            # A failed call changes no row (a search may bump usage counters: none happened here).
            assert after == before
            assert seeded["id"]

    anyio.run(run)


def test_fts_syntax_in_queries_is_searched_as_text(service: MemoryService, db_path: Path) -> None:
    async def run() -> None:
        async with mcp_client(service) as client:
            await call_ok(client, "memory_add", {"content": "NEAR the AND gate sits an OR gate (x*y)"})
            for query in FTS_SYNTAX:
                result = await call_ok(client, "memory_search", {"query": query})
                assert result["degraded"] is False
            hits = await call_ok(client, "memory_search", {"query": 'NEAR( "gate" AND'})
            assert hits["count"] == 1

    anyio.run(run)


def test_update_with_stale_version_is_a_conflict_error(service: MemoryService) -> None:
    async def run() -> None:
        async with mcp_client(service) as client:
            added = await call_ok(client, "memory_add", {"content": "version guarded"})
            await call_ok(client, "memory_update", {"id": added["id"], "title": "t", "if_version": 1})
            message = await call_error(
                client, "memory_update", {"id": added["id"], "title": "u", "if_version": 1}
            )
            assert "conflict" in message and "version 2" in message

    anyio.run(run)
