"""The real transports: a stdio subprocess and a uvicorn HTTP server on a loopback port."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import httpx
from mcp import Client, StdioServerParameters


def test_stdio_subprocess_serves_tools(cli_env: dict[str, str]) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "memwarden", "serve"], env=cli_env)

    async def run() -> None:
        async with Client(params) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert names == ["memory_add", "memory_search", "memory_update", "memory_delete"]
            added = await client.call_tool("memory_add", {"content": "stdio works end to end"})
            assert not added.is_error
            found = await client.call_tool("memory_search", {"query": "stdio"})
            assert found.structured_content["hits"][0]["id"] == added.structured_content["id"]

    anyio.run(run)


def test_http_server_requires_the_token_and_serves_mcp(http_server: tuple[str, str]) -> None:
    base, token = http_server
    health = httpx.get(f"{base}/healthz").json()
    assert health["status"] == "ok" and health["version"]
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    headers = {"accept": "application/json, text/event-stream"}
    assert httpx.post(f"{base}/mcp", json=init, headers=headers).status_code == 401
    wrong = {**headers, "authorization": "Bearer wrong-token"}
    assert httpx.post(f"{base}/mcp", json=init, headers=wrong).status_code == 401
    malformed = {**headers, "authorization": token}
    assert httpx.post(f"{base}/mcp", json=init, headers=malformed).status_code == 401

    async def run() -> None:
        client_http = httpx.AsyncClient(headers={"authorization": f"Bearer {token}"})
        from mcp.client.streamable_http import streamable_http_client

        async with (
            client_http,
            Client(streamable_http_client(f"{base}/mcp", http_client=client_http)) as client,
        ):
            added = await client.call_tool("memory_add", {"content": "http works end to end"})
            assert not added.is_error
            found = await client.call_tool("memory_search", {"query": "http"})
            assert found.structured_content["count"] == 1
            bad = await client.call_tool("memory_add", {"content": ""})
            assert bad.is_error

    anyio.run(run)


def test_server_refuses_a_public_address_without_a_token(cli_env: dict[str, str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "memwarden", "serve", "--http", "0.0.0.0:8765"],
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert "not a loopback address" in result.stderr and "MEMWARDEN_HTTP_TOKEN" in result.stderr


def test_server_rejects_a_malformed_bind_address(cli_env: dict[str, str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "memwarden", "serve", "--http", "localhost"],
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1 and "is not HOST:PORT" in result.stderr


def test_unknown_route_is_404_and_healthz_needs_no_token(http_server: tuple[str, str]) -> None:
    base, token = http_server
    assert httpx.get(f"{base}/healthz").status_code == 200
    assert httpx.get(f"{base}/nope", headers={"authorization": f"Bearer {token}"}).status_code == 404
    assert httpx.get(f"{base}/nope").status_code == 401


def test_the_log_file_holds_what_a_caller_sent_only_redacted(
    cli_env: dict[str, str], tmp_path: object
) -> None:
    """At INFO the MCP SDK logs every failed tool call with its message, and memwarden's messages
    name the bad value a caller sent; the log file gets them redacted (RedactingFilter)."""
    env = {**cli_env, "MEMWARDEN_LOG_LEVEL": "INFO", "MEMWARDEN_TOOLS": "all"}
    params = StdioServerParameters(command=sys.executable, args=["-m", "memwarden", "serve"], env=env)

    async def run() -> None:
        async with Client(params) as client:
            for name, arguments in [
                ("memory_get", {"ids": ["jane.doe@example.org"]}),
                ("memory_delete", {"id": "4111111111111111"}),
                (
                    "memory_add",
                    {"content": "x", "project": "a", "scope": "ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"},
                ),
            ]:
                assert (await client.call_tool(name, arguments)).is_error

    anyio.run(run)
    log = Path(cli_env["MEMWARDEN_LOG_FILE"]).read_text(encoding="utf-8")
    assert "failed" in log and "[REDACTED:email]" in log and "[REDACTED:payment_card]" in log
    for raw in ("jane.doe@example.org", "4111111111111111", "ghp_abcdefghij"):
        assert raw not in log
