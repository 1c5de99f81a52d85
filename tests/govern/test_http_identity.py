"""Per-user identity over HTTP: tokens from MEMWARDEN_TOKENS_FILE, confined to their tenants,
recorded in the audit log, and never written to any log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client

from memwarden.govern.identity import token_digest
from memwarden.store.audit_logs import open_audit_log, verify_database

ALICE = "mwt_alice-token-0123456789abcdef"
BOB = "mwt_bob-token-fedcba9876543210"
STRANGER = "mwt_not-in-the-file-0000"
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
ACCEPT = {"accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from http_servers import free_port, wait_for_http

    tmp = tmp_path_factory.mktemp("identity")
    tokens = tmp / "tokens.json"
    tokens.write_text(
        json.dumps(
            {
                "tokens": [
                    {"sha256": token_digest(ALICE), "actor": "alice", "tenants": ["acme", "globex"]},
                    {"sha256": token_digest(BOB), "actor": "bob", "tenants": ["initech"]},
                ]
            }
        ),
        encoding="utf-8",
    )
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMWARDEN_")}
    env.update(
        MEMWARDEN_DB=str(tmp / "m.db"),
        MEMWARDEN_LOG_FILE=str(tmp / "server.log"),
        MEMWARDEN_LOG_LEVEL="DEBUG",
        MEMWARDEN_TOKENS_FILE=str(tokens),
        MEMWARDEN_TOOLS="all",
        MEMWARDEN_BACKUP_DIR=str(tmp / "backups"),
    )
    stderr = (tmp / "stderr.txt").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "memwarden", "serve", "--http", f"127.0.0.1:{port}"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        text=True,
    )
    try:
        wait_for_http(f"http://127.0.0.1:{port}/healthz", process)
        yield {"base": f"http://127.0.0.1:{port}", "tmp": tmp, "process": process}
    finally:
        process.terminate()
        process.wait(timeout=10)
        stderr.close()


def call(base: str, token: str, tool: str, arguments: dict[str, Any], tenant: str | None = None) -> Any:
    from mcp.client.streamable_http import streamable_http_client

    headers = {"authorization": f"Bearer {token}"} | ({"x-memwarden-tenant": tenant} if tenant else {})

    async def run() -> Any:
        http = httpx.AsyncClient(headers=headers)
        async with http, Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
            return await client.call_tool(tool, arguments)

    return anyio.run(run)


def test_missing_wrong_and_malformed_tokens_are_refused(server: dict[str, Any]) -> None:
    base = server["base"]
    assert httpx.post(f"{base}/mcp", json=INIT, headers=ACCEPT).status_code == 401
    for header in (f"Bearer {STRANGER}", ALICE, "Basic YWxpY2U6cHc=", "Bearer x"):
        assert (
            httpx.post(f"{base}/mcp", json=INIT, headers={**ACCEPT, "authorization": header}).status_code
            == 401
        )


def test_a_token_cannot_act_in_a_tenant_it_does_not_list(server: dict[str, Any]) -> None:
    response = httpx.post(
        f"{server['base']}/mcp",
        json=INIT,
        headers={**ACCEPT, "authorization": f"Bearer {BOB}", "x-memwarden-tenant": "acme"},
    )
    assert response.status_code == 403 and response.json()["error"] == "forbidden"


def test_tenants_cannot_read_change_or_learn_of_each_others_memories(server: dict[str, Any]) -> None:
    base = server["base"]
    added = call(
        base, ALICE, "memory_add", {"content": "Acme merger codename is Bluebird", "project": "deals"}
    )
    mid = added.structured_content["id"]
    assert call(base, ALICE, "memory_search", {"query": "bluebird"}).structured_content["count"] == 1
    assert call(base, BOB, "memory_search", {"query": "bluebird"}).structured_content["count"] == 0
    assert call(base, BOB, "memory_search", {"query": ""}).structured_content["count"] == 0
    assert call(base, BOB, "memory_get", {"ids": [mid]}).structured_content == {
        "memories": [],
        "missing": [mid],
    }
    assert call(base, BOB, "memory_list", {}).structured_content["count"] == 0
    stats = call(base, BOB, "memory_stats", {}).structured_content
    assert (stats["tenant"], stats["memories"], stats["projects"]) == ("initech", 0, {})
    for tool, args in (("memory_update", {"id": mid, "content": "hijacked"}), ("memory_delete", {"id": mid})):
        refused = call(base, BOB, tool, args)
        assert refused.is_error and "not_found" in refused.content[0].text
    # alice's second tenant is separate from her first
    assert (
        call(base, ALICE, "memory_search", {"query": "bluebird"}, tenant="globex").structured_content["count"]
        == 0
    )
    again = call(base, ALICE, "memory_get", {"ids": [mid]}).structured_content["memories"][0]
    assert again["content"] == "Acme merger codename is Bluebird" and again["version"] == 1


def test_prompts_and_pinned_resources_answer_for_the_callers_tenant(server: dict[str, Any]) -> None:
    from mcp.client.streamable_http import streamable_http_client

    base = server["base"]
    call(
        base,
        ALICE,
        "memory_add",
        {"content": "Acme releases ship on Thursdays", "project": "ops", "pinned": True},
    )

    def read(token: str, tenant: str | None = None) -> tuple[str, str]:
        headers = {"authorization": f"Bearer {token}"} | ({"x-memwarden-tenant": tenant} if tenant else {})

        async def run() -> tuple[str, str]:
            http = httpx.AsyncClient(headers=headers)
            async with http, Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
                pinned: Any = (await client.read_resource("memwarden://projects/ops/pinned")).contents[0]
                recall: Any = (await client.get_prompt("recall", {"task": "when do releases ship"})).messages[
                    0
                ]
                return pinned.text, recall.content.text

        return anyio.run(run)

    pinned, recalled = read(ALICE)
    assert "Thursdays" in pinned and "Thursdays" in recalled
    for token, tenant in ((BOB, None), (ALICE, "globex")):
        pinned, recalled = read(token, tenant)
        assert "Thursdays" not in pinned and "Thursdays" not in recalled
        assert pinned == 'No pinned memories to show in project "ops".' and "found no memories" in recalled


def test_the_audit_log_records_each_callers_actor_and_tenant(server: dict[str, Any]) -> None:
    base = server["base"]
    call(base, BOB, "memory_add", {"content": "Initech TPS reports are due Friday"})
    log = open_audit_log(str(server["tmp"] / "m.db"), readonly=True)
    try:
        seen = {(r.actor, r.tenant) for r in log.records()}
    finally:
        log.close()
    assert ("bob", "initech") in seen and ("alice", "acme") in seen
    assert ("bob", "acme") not in seen
    assert verify_database(str(server["tmp"] / "m.db")).ok


def test_a_confined_token_gets_health_without_the_servers_paths(server: dict[str, Any]) -> None:
    """memory_health for a token confined to its tenants names files by their last component
    only, as /healthz?deep=1 does for anyone but the local operator."""
    report = call(server["base"], BOB, "memory_health", {"repair": False}).structured_content
    text = json.dumps(report)
    assert report["checks"]["backups"]["directory"] == "…/backups"
    assert str(server["tmp"]) not in text


def test_an_mcp_session_answers_only_the_token_that_opened_it(server: dict[str, Any]) -> None:
    """A session id is a name, not a credential: another token sending alice's session id (it is
    logged at INFO) is answered as for an unknown session, and cannot end it with DELETE."""
    base = server["base"]
    alice = {**ACCEPT, "authorization": f"Bearer {ALICE}"}
    opened = httpx.post(f"{base}/mcp", json=INIT, headers=alice)
    assert opened.status_code == 200
    sid = opened.headers["mcp-session-id"]
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    bob = {**ACCEPT, "authorization": f"Bearer {BOB}", "mcp-session-id": sid}
    assert httpx.post(f"{base}/mcp", json=listing, headers=bob).status_code == 404
    assert httpx.delete(f"{base}/mcp", headers=bob).status_code == 404
    mine = {**alice, "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18"}
    assert httpx.post(f"{base}/mcp", json=initialized, headers=mine).status_code == 202
    assert httpx.post(f"{base}/mcp", json=listing, headers=mine).status_code == 200  # still hers
    assert httpx.delete(f"{base}/mcp", headers=mine).status_code == 200


def test_tokens_never_appear_in_logs(server: dict[str, Any]) -> None:
    base = server["base"]
    httpx.post(f"{base}/mcp", json=INIT, headers={**ACCEPT, "authorization": f"Bearer {STRANGER}"})
    call(base, ALICE, "memory_search", {"query": "anything"})
    server["process"].terminate()
    server["process"].wait(timeout=10)
    captured = (server["tmp"] / "server.log").read_text(encoding="utf-8", errors="replace")
    captured += (server["tmp"] / "stderr.txt").read_text(encoding="utf-8", errors="replace")
    assert "refused an HTTP request" in captured  # the log did record the refusals
    for token in (ALICE, BOB, STRANGER):
        assert token not in captured
        assert token_digest(token) not in captured


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (
            '{"tokens": [{"token": "abc", "actor": "a", "tenants": ["t"]}]}',
            "entry #1: holds a plaintext token",
        ),
        ('{"tokens": [{"sha256": "xyz", "actor": "a", "tenants": ["t"]}]}', "entry #1: sha256 must be 64"),
        (
            '{"tokens": [{"sha256": "' + "a" * 64 + '", "actor": "a", "tenants": []}]}',
            "entry #1: tenants must be",
        ),
        ('{"tokens": {}}', 'expected {"tokens"'),
        ("not json", "not valid JSON"),
    ],
)
def test_a_broken_tokens_file_stops_the_server(
    cli_env: dict[str, str], tmp_path: Path, content: str, problem: str
) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(content, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "memwarden", "serve", "--http", "127.0.0.1:1"],
        env={**cli_env, "MEMWARDEN_TOKENS_FILE": str(path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and problem in done.stderr, done.stderr
