"""Helpers for talking to memwarden's MCP server through a real in-memory client session."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcp import Client

from memwarden.mcp.server import create_server
from memwarden.service import MemoryService


@asynccontextmanager
async def mcp_client(service: MemoryService, tools: str = "all") -> AsyncIterator[Client]:
    async with Client(create_server(service, tools=tools)) as client:
        yield client


async def call_ok(client: Client, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def call_error(client: Client, name: str, arguments: dict[str, Any]) -> str:
    result = await client.call_tool(name, arguments)
    assert result.is_error, f"{name}({arguments}) should fail: {result.structured_content}"
    return " ".join(getattr(part, "text", "") for part in result.content)
