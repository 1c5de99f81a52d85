"""Derive the handshake answers shipped in ``handshake_answers.json`` from the server itself.

The answer to ``initialize`` and ``server/discover`` is fixed by the memwarden release, the MCP
SDK's releases, the tools profile and the proposed protocol revision (``daemon/handshake.py``).
So it is derived once, when the package is built, by asking the daemon's own MCP servers
(``mcp/stream.py``, over a throwaway database) each handshake the SDK can negotiate: a brand-new
user's relay then answers at once, as a returning user's does from the daemon's last answer.

    python -m memwarden.daemon.handshake_derive --write   # after a change to the answer

``tests/daemon/test_handshake_answers.py`` fails when the shipped file differs from what the
server answers now. This module imports the MCP SDK; the relay never imports it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import anyio
from anyio.streams.buffered import BufferedByteReceiveStream

from memwarden.daemon.handshake import (
    FORMAT,
    PROTOCOL_META_KEY,
    SHIPPED_FILE,
    answer_key,
    release_key,
    sdk_versions,
    write_answers,
)
from memwarden.models import Caller

PROFILES = ("core", "all")


# The protocol revisions a client may propose (the MCP specification's, oldest first): those
# reached through ``initialize``, and the 2026 ones probed with ``server/discover``. Read here,
# not from the SDK (only ``mcp/`` imports it); a revision the installed SDK does not speak is
# dropped by asking the server (``derive_answers``), and one missing here is only answered
# later: its client waits for the daemon's answer, which is then saved.
HANDSHAKE_REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
DISCOVER_REVISIONS = ("2026-07-28",)


def handshake_requests() -> list[dict[str, Any]]:
    """One request per handshake a client may make: ``initialize`` at each revision reached that
    way, ``server/discover`` at each 2026-era revision."""
    client = {"name": "memwarden-handshake-derive", "version": "1"}
    requests: list[dict[str, Any]] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": client},
        }
        for version in HANDSHAKE_REVISIONS
    ]
    requests += [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "server/discover",
            "params": {
                "_meta": {
                    PROTOCOL_META_KEY: version,
                    "io.modelcontextprotocol/clientInfo": client,
                    "io.modelcontextprotocol/clientCapabilities": {},
                }
            },
        }
        for version in DISCOVER_REVISIONS
    ]
    return requests


def speaks(request: dict[str, Any], result: dict[str, Any] | None) -> bool:
    """Whether the server took the revision ``request`` proposed (an ``initialize`` it does not
    know is answered with another; a ``server/discover`` it does not know, with an error)."""
    if result is None:
        return False
    if request["method"] == "initialize":
        return bool(result.get("protocolVersion") == request["params"]["protocolVersion"])
    return request["params"]["_meta"][PROTOCOL_META_KEY] in result.get("supportedVersions", [])


class _Collected:
    """The server's side of the connection: every line it sends."""

    def __init__(self) -> None:
        self.lines: list[bytes] = []

    async def send(self, item: bytes) -> None:
        self.lines.append(item)


async def _ask(servers: Any, tools: str, request: dict[str, Any]) -> dict[str, Any] | None:
    """The result the daemon's MCP server gives ``request`` on a connection of its own (None: an
    error)."""
    send, receive = anyio.create_memory_object_stream[bytes](4)
    sender = _Collected()
    async with send:
        await send.send(json.dumps(request).encode("utf-8") + b"\n")
    with anyio.fail_after(30):
        async with receive:
            await servers.serve(
                BufferedByteReceiveStream(receive),
                sender,
                tools=tools,
                caller=Caller(actor="derive", tenant="t"),
            )
    for line in sender.lines:
        for part in line.splitlines():
            message = json.loads(part)
            if message.get("id") == request["id"]:
                result: dict[str, Any] | None = message.get("result")
                return result
    raise RuntimeError(f"the server did not answer {request['method']}")


def derive_answers() -> dict[str, dict[str, Any]]:
    """Every handshake answer of this install, keyed as the relay looks them up."""
    from memwarden.app import build_service
    from memwarden.config import load_settings
    from memwarden.mcp.stream import StreamServers

    releases = release_key(sdk_versions())
    if releases is None:
        raise RuntimeError("the MCP SDK's distributions (mcp, mcp-types) are not installed")
    with tempfile.TemporaryDirectory(prefix="mwhandshake") as folder:
        settings = load_settings(db=str(Path(folder) / "derive.db"), embedder="none", audit=False)
        service = build_service(settings, background=False)
        try:
            servers = StreamServers(service)
            answers: dict[str, dict[str, Any]] = {}
            for tools in PROFILES:
                for request in handshake_requests():
                    key = answer_key(releases, tools, request)
                    assert key is not None
                    result = anyio.run(_ask, servers, tools, request)
                    if result is not None and speaks(request, result):
                        answers[key] = result
        finally:
            service.close()
    return answers


def shipped_answers() -> dict[str, Any]:
    with open(SHIPPED_FILE, encoding="utf-8") as file:
        kept: dict[str, Any] = json.load(file)
    return kept


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memwarden.daemon.handshake_derive", description=__doc__)
    parser.add_argument("--write", action="store_true", help=f"write {SHIPPED_FILE}")
    args = parser.parse_args(argv)
    answers = derive_answers()
    if args.write:
        write_answers(SHIPPED_FILE, answers)
        print(f"wrote {len(answers)} answers to {SHIPPED_FILE}")
    else:
        print(json.dumps({"format": FORMAT, "answers": answers}, sort_keys=True, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
