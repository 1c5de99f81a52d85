"""MCP sessions over Streamable HTTP: a room per caller, the caller's own least recently used
session closed first, and no caller able to make another's ``initialize`` fail (issue 33)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from http_servers import free_port, wait_for_http
from mcp import Client
from starlette.testclient import TestClient

from memwarden.app import build_service
from memwarden.config import Settings, load_settings
from memwarden.http.app import build_http_app

BASE = "http://127.0.0.1:8765"
TOKENS = {"alice": "alice-token-0123456789", "bob": "bob-token-0123456789"}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def _tokens_file(folder: Path) -> Path:
    path = folder / "tokens.json"
    entries = [
        {"sha256": hashlib.sha256(token.encode()).hexdigest(), "actor": actor, "tenants": [actor]}
        for actor, token in TOKENS.items()
    ]
    path.write_text(json.dumps({"tokens": entries}), encoding="utf-8")
    path.chmod(0o600)
    return path


def _headers(actor: str, session: str | None = None) -> dict[str, str]:
    found = {**ACCEPT, "authorization": f"Bearer {TOKENS[actor]}"}
    if session is not None:
        found |= {"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
    return found


def _open(client: Any, actor: str) -> str:
    answer = client.post("/mcp", json=INIT, headers=_headers(actor))
    assert answer.status_code == 200, answer.text
    session = str(answer.headers["mcp-session-id"])
    ready = client.post(
        "/mcp",
        json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        headers=_headers(actor, session),
    )
    assert ready.status_code == 202, ready.text
    return session


def _ping(client: Any, actor: str, session: str) -> int:
    answer = client.post(
        "/mcp", json={"jsonrpc": "2.0", "id": 2, "method": "ping"}, headers=_headers(actor, session)
    )
    return int(answer.status_code)


@pytest.fixture
def sessions_app(settings: Settings, tmp_path: Path) -> Iterator[TestClient]:
    configured = load_settings(
        **{**settings.model_dump(), "tokens_file": str(_tokens_file(tmp_path)), "http_sessions_per_caller": 3}
    )
    service = build_service(configured, embeddings=False)
    try:
        with TestClient(build_http_app(service, configured), base_url=BASE) as client:
            yield client
    finally:
        service.close()


def test_a_caller_past_its_room_loses_its_own_least_recently_used_session(sessions_app: TestClient) -> None:
    client = sessions_app
    bobs = _open(client, "bob")
    alices = [_open(client, "alice") for _ in range(3)]
    assert _ping(client, "alice", alices[0]) == 200  # the first is now the most recently used
    alices.append(_open(client, "alice"))  # one past the room: alices[1] is the least recently used
    assert _ping(client, "alice", alices[1]) == 404
    for session in (alices[0], alices[2], alices[3]):
        assert _ping(client, "alice", session) == 200
    assert _ping(client, "bob", bobs) == 200  # never another caller's


def test_one_caller_opening_sessions_in_a_loop_cannot_make_anothers_initialize_fail(
    sessions_app: TestClient,
) -> None:
    client = sessions_app
    bobs = _open(client, "bob")
    flood = [_open(client, "alice") for _ in range(40)]
    assert [_ping(client, "alice", s) for s in flood[-3:]] == [200, 200, 200]
    assert all(_ping(client, "alice", s) == 404 for s in flood[:-3])
    assert _ping(client, "bob", bobs) == 200
    assert _ping(client, "bob", _open(client, "bob")) == 200
    # and a session stays its opener's: the other token gets the unknown-session answer
    assert _ping(client, "bob", flood[-1]) == 404
    assert _ping(client, "alice", bobs) == 404


def test_an_idle_session_is_closed_after_the_configured_time(settings: Settings) -> None:
    configured = load_settings(**{**settings.model_dump(), "http_session_idle_s": 1})
    service = build_service(configured, embeddings=False)
    try:
        with TestClient(build_http_app(service, configured), base_url=BASE) as client:
            idle, used = _open_untokened(client), _open_untokened(client)
            deadline = time.monotonic() + 2.5
            while time.monotonic() < deadline:  # keep one session busy past the other's idle time
                assert _ping_untokened(client, used) == 200
                time.sleep(0.2)
            assert _ping_untokened(client, idle) == 404
            assert _ping_untokened(client, used) == 200
    finally:
        service.close()


def _open_untokened(client: TestClient) -> str:
    answer = client.post("/mcp", json=INIT, headers=ACCEPT)
    assert answer.status_code == 200, answer.text
    session = str(answer.headers["mcp-session-id"])
    headers = {**ACCEPT, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
    client.post("/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    return session


def _ping_untokened(client: TestClient, session: str) -> int:
    headers = {**ACCEPT, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
    return int(
        client.post("/mcp", json={"jsonrpc": "2.0", "id": 3, "method": "ping"}, headers=headers).status_code
    )


def test_the_flood_against_a_real_server_is_logged_once_and_a_real_client_of_another_tenant_works(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    port = free_port()
    log = tmp_path / "server.log"
    env = {
        **cli_env,
        "MEMWARDEN_TOKENS_FILE": str(_tokens_file(tmp_path)),
        "MEMWARDEN_HTTP_SESSIONS_PER_CALLER": "4",
        "MEMWARDEN_LOG_FILE": str(log),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "memwarden", "serve", "--http", f"127.0.0.1:{port}"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for_http(f"{base}/healthz", process)
        with httpx.Client(base_url=base, timeout=10) as raw:
            opened = [_open(raw, "alice") for _ in range(60)]
            assert _ping(raw, "alice", opened[0]) == 404 and _ping(raw, "alice", opened[-1]) == 200

        async def bob_works() -> None:
            from mcp.client.streamable_http import streamable_http_client

            headers = {"authorization": f"Bearer {TOKENS['bob']}"}
            async with (
                httpx.AsyncClient(headers=headers, timeout=10) as http,
                Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
            ):
                added = await client.call_tool("memory_add", {"content": "bob still gets a session"})
                assert not added.is_error

        anyio.run(bob_works)
    finally:
        process.terminate()
        process.wait(timeout=15)
    lines = [line for line in log.read_text(encoding="utf-8").splitlines() if "MCP sessions" in line]
    assert len(lines) == 1, lines
    assert "'alice'" in lines[0] and "MEMWARDEN_HTTP_SESSIONS_PER_CALLER=4" in lines[0]
    assert "Too many open sessions" not in log.read_text(encoding="utf-8")


def test_two_tokens_of_one_actor_name_cannot_use_end_or_crowd_out_each_others_sessions(
    settings: Settings, tmp_path: Path
) -> None:
    # Attack round 2 (issue 33): sessions were keyed by the actor's name, so the holder of a
    # second token with the same actor (here in another tenant) could ping and DELETE the first
    # token's session, and opening sessions ended it.
    twins = {"acme": "twin-acme-token-0123456789", "globex": "twin-globex-token-0123456789"}
    path = tmp_path / "twins.json"
    entries = [
        {"sha256": hashlib.sha256(token.encode()).hexdigest(), "actor": "ci-bot", "tenants": [tenant]}
        for tenant, token in twins.items()
    ]
    path.write_text(json.dumps({"tokens": entries}), encoding="utf-8")
    configured = load_settings(
        **{**settings.model_dump(), "tokens_file": str(path), "http_sessions_per_caller": 2}
    )
    service = build_service(configured, embeddings=False)

    def headers(tenant: str, session: str | None = None, scheme: str = "Bearer") -> dict[str, str]:
        found = {**ACCEPT, "authorization": f"{scheme} {twins[tenant]}"}
        if session is not None:
            found |= {"mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}
        return found

    def opened(client: TestClient, tenant: str) -> str:
        answer = client.post("/mcp", json=INIT, headers=headers(tenant))
        assert answer.status_code == 200, answer.text
        return str(answer.headers["mcp-session-id"])

    def ping(client: TestClient, tenant: str, session: str, scheme: str = "Bearer") -> int:
        return int(
            client.post(
                "/mcp",
                json={"jsonrpc": "2.0", "id": 2, "method": "ping"},
                headers=headers(tenant, session, scheme),
            ).status_code
        )

    try:
        with TestClient(build_http_app(service, configured), base_url=BASE) as client:
            acme = opened(client, "acme")
            client.post(
                "/mcp",
                json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                headers=headers("acme", acme),
            )
            assert ping(client, "acme", acme) == 200
            assert ping(client, "acme", acme, scheme="bearer") == 200  # the same token, spelled otherwise
            assert ping(client, "globex", acme) == 404
            assert client.delete("/mcp", headers=headers("globex", acme)).status_code == 404
            for _ in range(5):
                opened(client, "globex")
            assert ping(client, "acme", acme) == 200
    finally:
        service.close()
