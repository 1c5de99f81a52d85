"""Rate limits per actor on writes and searches (issue 33): a clear error naming the limit and
when to retry, nothing stored on a refused write, and other actors unaffected."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from starlette.testclient import TestClient

from memwarden.app import build_service
from memwarden.config import Settings, load_settings
from memwarden.hooks.paths import RECALL_PATH
from memwarden.http.app import build_http_app
from memwarden.mcp.server import create_server
from memwarden.rate_limits import SEARCH, WRITE, ActorRateLimits, RateLimited
from memwarden.service import MemoryService

BASE = "http://127.0.0.1:8765"
TOKENS = {"alice": "alice-token-0123456789", "bob": "bob-token-0123456789"}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


def _memories(db: str) -> int:
    with closing(sqlite3.connect(db)) as conn:
        return int(conn.execute("SELECT count(*) FROM memories").fetchone()[0])


def test_a_real_mcp_session_past_its_write_limit_gets_a_tool_error_and_nothing_is_stored(
    service: MemoryService, settings: Settings
) -> None:
    limits = ActorRateLimits(writes_per_minute=3, searches_per_minute=2)

    async def run() -> None:
        async with Client(create_server(service, tools="all", limits=limits)) as client:
            for n in range(3):
                assert not (await client.call_tool("memory_add", {"content": f"note number {n}"})).is_error
            refused = await client.call_tool("memory_add", {"content": "one too many"})
            assert refused.is_error
            text = refused.content[0].text  # type: ignore[union-attr]
            assert text.startswith("rate_limited: ") and "MEMWARDEN_RATE_WRITES_PER_MINUTE" in text
            assert "more than 3 writes in a minute" in text
            wait = re.search(r"retry in (\d+) s", text)
            assert wait is not None and 1 <= int(wait.group(1)) <= 20
            for _ in range(2):
                assert not (await client.call_tool("memory_search", {"query": "note"})).is_error
            searched = await client.call_tool("memory_search", {"query": "note"})
            assert searched.is_error and "MEMWARDEN_RATE_SEARCHES_PER_MINUTE" in searched.content[0].text  # type: ignore[union-attr]
            # every other read of stored memories counts as a search (attack round 2: memory_review
            # scans a whole tenant and was uncounted); the wiring check echo is not counted
            for read, arguments in [
                ("memory_list", {}),
                ("memory_get", {"ids": ["01J0000000000000000000000A"]}),
                ("memory_stats", {}),
                ("memory_review", {}),
                ("memory_export", {}),
                ("memory_health", {"repair": False}),
            ]:
                refused_read = await client.call_tool(read, arguments)
                assert refused_read.is_error, read
                assert "MEMWARDEN_RATE_SEARCHES_PER_MINUTE" in refused_read.content[0].text, read  # type: ignore[union-attr]
                assert "more than 2 searches and reads in a minute" in refused_read.content[0].text  # type: ignore[union-attr]
            assert not (await client.call_tool("echo", {"message": "hi"})).is_error

    anyio.run(run)
    assert _memories(settings.db) == 3


def test_an_import_of_many_records_costs_one_write_per_record(
    service: MemoryService, settings: Settings
) -> None:
    # Attack round 2 (issue 33): memory_import took one write from the allowance whatever it
    # held, so 3 imports of 2,000 records each wrote 6,000 memories under a limit of 10 a minute.
    now = [1000.0]
    limits = ActorRateLimits(writes_per_minute=5, searches_per_minute=100, clock=lambda: now[0])
    records = [{"content": f"imported fact {n} about the deploy window"} for n in range(30)]

    async def run() -> None:
        async with Client(create_server(service, tools="all", limits=limits)) as client:
            imported = await client.call_tool("memory_import", {"data": records})
            assert not imported.is_error, imported
            assert imported.structured_content is not None and imported.structured_content["records"] == 30
            for call, arguments in [
                ("memory_import", {"data": [{"content": "one more imported fact"}]}),
                ("memory_add", {"content": "an added fact"}),
            ]:
                refused = await client.call_tool(call, arguments)
                assert refused.is_error, call
                text = refused.content[0].text  # type: ignore[union-attr]
                wait = re.search(r"retry in (\d+) s", text)
                # 30 records at 5 a minute: the allowance is 25 below zero, back to one in 312 s
                assert wait is not None and 300 <= int(wait.group(1)) <= 320, text
            now[0] += 320.0
            assert not (await client.call_tool("memory_add", {"content": "an added fact"})).is_error

    anyio.run(run)
    assert _memories(settings.db) == 31


def test_the_recall_prompt_and_the_pinned_resource_count_as_searches(service: MemoryService) -> None:
    # Attack round 2 (issue 33): the recall prompt runs a search and the pinned resource reads
    # memories; neither was counted, so a client past its search limit went on searching there.
    from mcp.shared.exceptions import MCPError

    limits = ActorRateLimits(writes_per_minute=100, searches_per_minute=1)

    async def run() -> None:
        async with Client(create_server(service, tools="all", limits=limits)) as client:
            assert not (await client.call_tool("memory_search", {"query": "deploy"})).is_error
            with pytest.raises(MCPError, match=r"rate_limited: .*MEMWARDEN_RATE_SEARCHES_PER_MINUTE"):
                await client.get_prompt("recall", {"task": "fix the deploy script"})
            with pytest.raises(MCPError, match=r"rate_limited: .*MEMWARDEN_RATE_SEARCHES_PER_MINUTE"):
                await client.read_resource("memwarden://projects/infra/pinned")
            assert (await client.read_resource("memwarden://guide")).contents  # no memories read

    anyio.run(run)


def test_buckets_refill_at_the_per_minute_rate_and_zero_means_no_limit() -> None:
    now = [1000.0]
    limits = ActorRateLimits(writes_per_minute=60, searches_per_minute=0, clock=lambda: now[0])
    for _ in range(60):
        limits.take("a", WRITE)
    with pytest.raises(RateLimited) as refused:
        limits.take("a", WRITE)
    assert refused.value.fields == {"limit": "MEMWARDEN_RATE_WRITES_PER_MINUTE", "retry_after_s": 1}
    limits.take("b", WRITE)  # another actor has its own allowance
    now[0] += 1.0
    limits.take("a", WRITE)  # one a second comes back
    with pytest.raises(RateLimited):
        limits.take("a", WRITE)
    for _ in range(10_000):
        limits.take("a", SEARCH)


def _tokens_file(folder: Path) -> Path:
    path = folder / "tokens.json"
    entries = [
        {"sha256": hashlib.sha256(token.encode()).hexdigest(), "actor": actor, "tenants": ["shared"]}
        for actor, token in TOKENS.items()
    ]
    path.write_text(json.dumps({"tokens": entries}), encoding="utf-8")
    path.chmod(0o600)
    return path


@pytest.fixture
def limited_app(settings: Settings, tmp_path: Path) -> Iterator[tuple[TestClient, Settings]]:
    configured = load_settings(
        **{
            **settings.model_dump(),
            "tokens_file": str(_tokens_file(tmp_path)),
            "rate_writes_per_minute": 2,
            "rate_searches_per_minute": 2,
        }
    )
    service = build_service(configured, embeddings=False)
    try:
        with TestClient(build_http_app(service, configured), base_url=BASE) as client:
            yield client, configured
    finally:
        service.close()


def _auth(actor: str, session: str | None = None) -> dict[str, str]:
    headers = {**ACCEPT, "authorization": f"Bearer {TOKENS[actor]}"}
    if session:
        headers |= {"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
    return headers


def _tool(
    client: TestClient, actor: str, session: str, name: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    call = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    answer = client.post("/mcp", json=call, headers=_auth(actor, session))
    assert answer.status_code == 200, answer.text
    data = next(line for line in answer.text.splitlines() if line.startswith("data: "))
    return dict(json.loads(data.removeprefix("data: "))["result"])


def _session(client: TestClient, actor: str) -> str:
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
    answer = client.post("/mcp", json=init, headers=_auth(actor))
    session = str(answer.headers["mcp-session-id"])
    client.post(
        "/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=_auth(actor, session)
    )
    return session


def test_over_http_each_actor_has_its_own_allowance_across_its_sessions(
    limited_app: tuple[TestClient, Settings],
) -> None:
    client, settings = limited_app
    first, second = _session(client, "alice"), _session(client, "alice")
    assert not _tool(client, "alice", first, "memory_add", {"content": "alpha fact"})["isError"]
    assert not _tool(client, "alice", second, "memory_add", {"content": "beta fact"})["isError"]
    refused = _tool(client, "alice", first, "memory_add", {"content": "gamma fact"})
    assert refused["isError"] and "rate_limited" in refused["content"][0]["text"]
    bob = _session(client, "bob")
    assert not _tool(client, "bob", bob, "memory_add", {"content": "bob's own fact"})["isError"]
    assert _memories(settings.db) == 3


def test_a_hook_route_past_the_search_limit_is_429_with_retry_after(
    limited_app: tuple[TestClient, Settings],
) -> None:
    client, _ = limited_app
    body = {"query": "deploy checklist", "limit": 3}
    for _ in range(2):
        assert client.post(RECALL_PATH, json=body, headers=_auth("alice")).status_code == 200
    refused = client.post(RECALL_PATH, json=body, headers=_auth("alice"))
    assert refused.status_code == 429
    answer = refused.json()
    assert answer["error"] == "rate_limited" and answer["limit"] == "MEMWARDEN_RATE_SEARCHES_PER_MINUTE"
    assert 1 <= answer["retry_after_s"] <= 30 and refused.headers["retry-after"] == str(
        answer["retry_after_s"]
    )
    assert f"retry in {answer['retry_after_s']} s" in answer["message"]
    assert client.post(RECALL_PATH, json=body, headers=_auth("bob")).status_code == 200


def test_a_stdio_server_in_its_own_process_applies_the_same_limits(cli_env: dict[str, str]) -> None:
    import sys

    from mcp import StdioServerParameters

    env = {**cli_env, "MEMWARDEN_DAEMON": "off", "MEMWARDEN_RATE_WRITES_PER_MINUTE": "2"}

    async def run() -> None:
        params = StdioServerParameters(command=sys.executable, args=["-m", "memwarden", "serve"], env=env)
        async with Client(params) as client:
            for n in range(2):
                assert not (await client.call_tool("memory_add", {"content": f"stdio note {n}"})).is_error
            refused = await client.call_tool("memory_add", {"content": "stdio one too many"})
            assert refused.is_error
            assert "MEMWARDEN_RATE_WRITES_PER_MINUTE" in refused.content[0].text  # type: ignore[union-attr]

    anyio.run(run)
    assert _memories(cli_env["MEMWARDEN_DB"]) == 2


def test_one_actor_name_in_two_tenants_has_two_allowances(settings: Settings, tmp_path: Path) -> None:
    # Attack round 2 (issue 33): the buckets were keyed by the actor's name alone, so globex's
    # `ci-bot` spent acme's `ci-bot` allowance.
    tokens = {"acme": "acme-ci-token-0123456789", "globex": "globex-ci-token-0123456789"}
    path = tmp_path / "tokens.json"
    entries = [
        {"sha256": hashlib.sha256(token.encode()).hexdigest(), "actor": "ci-bot", "tenants": [tenant]}
        for tenant, token in tokens.items()
    ]
    path.write_text(json.dumps({"tokens": entries}), encoding="utf-8")
    path.chmod(0o600)
    configured = load_settings(
        **{**settings.model_dump(), "tokens_file": str(path), "rate_searches_per_minute": 2}
    )
    service = build_service(configured, embeddings=False)
    body = {"query": "deploy checklist", "limit": 3}
    try:
        with TestClient(build_http_app(service, configured), base_url=BASE) as client:

            def recall(tenant: str) -> int:
                headers = {**ACCEPT, "authorization": f"Bearer {tokens[tenant]}"}
                return client.post(RECALL_PATH, json=body, headers=headers).status_code

            assert [recall("globex") for _ in range(3)] == [200, 200, 429]
            assert [recall("acme") for _ in range(3)] == [200, 200, 429]
    finally:
        service.close()
    limits = ActorRateLimits(writes_per_minute=1, searches_per_minute=1)
    limits.take("ci-bot", WRITE, tenant="acme")
    limits.take("ci-bot", WRITE, tenant="globex")
    with pytest.raises(RateLimited):
        limits.take("ci-bot", WRITE, tenant="acme")
