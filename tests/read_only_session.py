"""Run by tests/cli/test_error_lines.py as a process without root's file capabilities: the calls of
a real MCP client session on a database this user may only read, printed as JSON.

The CLI refuses a read-only database before opening it; a server or the library API opened
on one (or a file made read-only under them) reaches the store, and each tool call must still
fail with one line naming the file and the fix. Log records are left on stderr, where the test
counts them.

    python tests/read_only_session.py DATABASE FOLDER [memory|http]
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp_helpers import call_error, mcp_client

from memwarden.app import build_service
from memwarden.config import load_settings

ULID_NOT_STORED = "01M8Z46BFM50ZJ2B9C2KYEA14X"
CALLS = {
    "memory_add": {"content": "a memory that cannot be stored"},
    "memory_search": {"query": "memory"},
    "memory_delete": {"id": ULID_NOT_STORED},
}


def main(database: str, folder: str, transport: str) -> None:
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )
    settings = load_settings(
        db=database, log_file=str(Path(folder) / "server.log"), backup_dir=str(Path(folder) / "backups")
    )
    service = build_service(settings, embeddings=False)

    async def in_memory() -> dict[str, str]:
        async with mcp_client(service) as client:
            return {tool: await call_error(client, tool, arguments) for tool, arguments in CALLS.items()}

    try:
        print(json.dumps(anyio.run(in_memory if transport == "memory" else over_http(service, settings))))
    finally:
        service.close()


def over_http(service: Any, settings: Any) -> Callable[[], Awaitable[dict[str, str]]]:
    """The same calls over Streamable HTTP: the real HTTP app (``build_http_app``) served by
    uvicorn on a loopback port in this process."""
    import httpx
    import uvicorn
    from http_servers import pick_port
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from memwarden.http.app import build_http_app

    port = pick_port()
    config = uvicorn.Config(
        build_http_app(service, settings, "127.0.0.1"),
        host="127.0.0.1",
        port=port,
        log_config=None,
        log_level="warning",
        lifespan="on",
    )
    server = uvicorn.Server(config)

    async def run() -> dict[str, str]:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(server.serve)
            with anyio.fail_after(30):
                while not server.started:
                    await anyio.sleep(0.02)
            http = httpx.AsyncClient()
            async with (
                http,
                Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)) as client,
            ):
                said = {tool: await call_error(client, tool, arguments) for tool, arguments in CALLS.items()}
            server.should_exit = True
        return said

    return run


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "memory")
