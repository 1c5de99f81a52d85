"""MCP over one daemon connection: the stdio framing (a JSON-RPC message per line) on a socket.

``memwarden serve`` relays its stdin/stdout to the daemon byte for byte, so the daemon sees
exactly what a stdio server would; this module runs the MCP server on that byte stream, as the
connection's caller. The servers (one per tool profile) are built once and shared: the SDK's
low-level ``Server.run`` serves one connection per call, many at once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol, cast

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server

from memwarden.mcp.calls import CONNECTION_CALLER
from memwarden.mcp.server import create_server
from memwarden.models import Caller
from memwarden.service import MemoryService

MAX_LINE_BYTES = 1024 * 1024 * 1024  # like stdio: the import tool takes whole files as text


class LineReceiver(Protocol):
    async def receive_until(self, delimiter: bytes, max_bytes: int) -> bytes: ...


class ByteSender(Protocol):
    async def send(self, item: bytes) -> None: ...


class _Lines:
    """The connection's incoming lines, as the text file ``stdio_server`` reads."""

    def __init__(self, receiver: LineReceiver) -> None:
        self.receiver = receiver

    def __aiter__(self) -> AsyncIterator[str]:
        return self._lines()

    async def _lines(self) -> AsyncIterator[str]:
        while True:
            try:
                line = await self.receiver.receive_until(b"\n", MAX_LINE_BYTES)
            except (anyio.EndOfStream, anyio.IncompleteRead, anyio.BrokenResourceError):
                return
            yield line.decode("utf-8", errors="replace")


class _Writer:
    """The connection's outgoing side, as the text file ``stdio_server`` writes."""

    def __init__(self, sender: ByteSender) -> None:
        self.sender = sender

    async def write(self, text: str) -> None:
        await self.sender.send(text.encode("utf-8"))

    async def flush(self) -> None:
        return None


class StreamServers:
    """The daemon's MCP servers over ``service``, one per tool profile, built on first use."""

    def __init__(self, service: MemoryService) -> None:
        self.service = service
        self._servers: dict[str, MCPServer] = {}

    async def serve(self, receiver: LineReceiver, sender: ByteSender, *, tools: str, caller: Caller) -> None:
        """Serve one MCP session over this connection until the client closes its side."""
        server = self._servers.get(tools)
        if server is None:
            server = self._servers[tools] = create_server(self.service, tools=tools)
        token = CONNECTION_CALLER.set(caller)
        try:
            async with stdio_server(cast(Any, _Lines(receiver)), cast(Any, _Writer(sender))) as (read, write):
                # The SDK's public entry points serve the process's own stdio or HTTP; a socket
                # needs the low-level server they wrap, whose run() serves one connection.
                lowlevel = server._lowlevel_server
                await lowlevel.run(read, write, lowlevel.create_initialization_options())
        finally:
            CONNECTION_CALLER.reset(token)
