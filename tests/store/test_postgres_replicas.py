"""Two memwarden HTTP replicas on one PostgreSQL database behave as one memwarden.

Real processes (``memwarden serve --http``) on two loopback ports, a real PostgreSQL (pgserver),
a fake Ollama over real HTTP for embeddings. Every wait is bounded.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import anyio
import httpx
import pytest
from fake_ollama import fake_ollama
from http_servers import free_port, wait_for_http

pytestmark = [pytest.mark.postgres, pytest.mark.slow]
TOKEN = "replica-token-0123456789"
VECTOR_DEADLINE_S = 30.0


@pytest.fixture
def replicas(pg_url: str, cli_env: dict[str, str]) -> Iterator[list[str]]:
    with fake_ollama() as ollama_url:
        env = {
            **cli_env,
            "MEMWARDEN_DB": pg_url,
            "MEMWARDEN_HTTP_TOKEN": TOKEN,
            "MEMWARDEN_TOOLS": "all",
            "MEMWARDEN_EMBEDDER": "ollama",
            "MEMWARDEN_EMBED_URL": ollama_url,
            "MEMWARDEN_EMBED_MODEL": "fake-embed",
            "MEMWARDEN_VECTOR_TIMEOUT_MS": "5000",
        }
        processes, bases = [], []
        try:
            for _ in range(2):
                port = free_port()
                processes.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "memwarden", "serve", "--http", f"127.0.0.1:{port}"],
                        env=env,
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.PIPE,
                        text=True,
                    )
                )
                bases.append(f"http://127.0.0.1:{port}")
            for base, process in zip(bases, processes, strict=True):
                wait_for_http(f"{base}/healthz", process, timeout=60)
            yield bases
        finally:
            for process in processes:
                process.terminate()
            for process in processes:
                process.wait(timeout=20)
                if process.stderr:
                    process.stderr.close()


def call(base: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """One MCP tool call over Streamable HTTP, in a fresh client session."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    result: dict[str, Any] = {}

    async def run() -> None:
        http = httpx.AsyncClient(headers={"authorization": f"Bearer {TOKEN}"}, timeout=30)
        async with http, Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
            answer = await client.call_tool(tool, arguments)
            assert not answer.is_error, answer.content
            result.update(answer.structured_content or {})

    anyio.run(run)
    return result


def eventually(check: Callable[[], Any], deadline_s: float) -> Any:
    """Poll ``check`` until it returns something truthy, at most ``deadline_s`` seconds."""
    end = time.monotonic() + deadline_s
    while True:
        value = check()
        if value or time.monotonic() > end:
            return value
        time.sleep(0.1)


def test_a_write_through_one_replica_is_found_through_the_other(replicas: list[str]) -> None:
    a, b = replicas
    added = call(a, "memory_add", {"content": "The staging car park closes at 9 pm", "project": "site"})
    found = call(b, "memory_search", {"query": "staging park", "project": "site"})
    assert [h["id"] for h in found["hits"]] == [added["id"]]  # keyword search: at once

    def by_vector() -> dict[str, Any] | None:
        result = call(b, "memory_search", {"query": "automobile", "project": "site"})
        hits = [h for h in result["hits"] if h["id"] == added["id"]]
        return hits[0] if hits and not result["degraded"] else None

    hit = eventually(by_vector, VECTOR_DEADLINE_S)  # vector search: within a bounded delay
    assert hit is not None, f"replica B did not find the memory by vector within {VECTOR_DEADLINE_S} s"
    assert (
        call(b, "memory_search", {"query": "automobile", "project": "site", "limit": 1})["hits"][0]["id"]
        == added["id"]
    )


def test_concurrent_adds_of_the_same_content_through_both_replicas_store_one_memory(
    replicas: list[str],
) -> None:
    contents = [f"shared fact number {i}" for i in range(10)]

    def add(job: tuple[str, str]) -> tuple[str, bool]:
        base, content = job
        result = call(base, "memory_add", {"content": content, "project": "race"})
        return result["id"], result["duplicate"]

    jobs = [(base, c) for c in contents for base in replicas]
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(add, jobs))
    for i in range(len(contents)):
        pair = results[2 * i : 2 * i + 2]
        assert pair[0][0] == pair[1][0], "both replicas must answer with the same id"
        assert sorted(dup for _, dup in pair) == [False, True]
    stats = call(replicas[0], "memory_stats", {"project": "race"})
    assert stats["memories"] == len(contents)


def test_an_update_through_one_replica_is_a_conflict_for_a_stale_version_through_the_other(
    replicas: list[str],
) -> None:
    a, b = replicas
    added = call(a, "memory_add", {"content": "the backup window is 2 am", "project": "ops"})
    call(a, "memory_update", {"id": added["id"], "content": "the backup window is 3 am", "if_version": 1})

    async def stale() -> bool:
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        http = httpx.AsyncClient(headers={"authorization": f"Bearer {TOKEN}"}, timeout=30)
        async with http, Client(streamable_http_client(f"{b}/mcp", http_client=http)) as client:
            answer = await client.call_tool(
                "memory_update", {"id": added["id"], "content": "4 am", "if_version": 1}
            )
            return bool(answer.is_error)

    assert anyio.run(stale) is True
    got = call(b, "memory_get", {"ids": [added["id"]]})
    assert got["memories"][0]["content"] == "the backup window is 3 am"
