"""Run by tests/test_error_lines.py as a process without root's file capabilities: the calls of
a real MCP client session on a database this user may only read, printed as JSON.

The CLI refuses a read-only database before opening it; a server or the library API opened
on one (or a file made read-only under them) reaches the store, and each tool call must still
fail with one line naming the file and the fix. Log records are left on stderr, where the test
counts them.

    python tests/read_only_session.py DATABASE FOLDER
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

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


def main(database: str, folder: str) -> None:
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )
    settings = load_settings(
        db=database, log_file=str(Path(folder) / "server.log"), backup_dir=str(Path(folder) / "backups")
    )
    service = build_service(settings, embeddings=False)

    async def run() -> dict[str, str]:
        async with mcp_client(service) as client:
            return {tool: await call_error(client, tool, arguments) for tool, arguments in CALLS.items()}

    try:
        print(json.dumps(anyio.run(run)))
    finally:
        service.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
