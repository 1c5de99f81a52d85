"""MCP over one daemon connection: the stdio framing (a JSON-RPC message per line) on a socket.

``memwarden serve`` relays its stdin/stdout to the daemon byte for byte, so the daemon sees
exactly what a stdio server would; this module runs the MCP server on that byte stream, as the
connection's caller, through the same answering reader as stdio (``mcp/stdio.py``): a line the
SDK's own reader would drop (a lone surrogate escape, nesting past its parser's limit, bytes that
are not UTF-8) is answered with a JSON-RPC error here too. The servers (one per tool profile)
are built once and shared: the SDK's low-level ``Server.run`` serves one connection per call,
many at once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.shared.message import SessionMessage
from mcp_types import PARSE_ERROR

from memwarden.json_limits import read_request_id
from memwarden.mcp.calls import CONNECTION_CALLER
from memwarden.mcp.server import create_server
from memwarden.mcp.stdio import answering_lines, jsonrpc_error
from memwarden.models import Caller
from memwarden.service import MemoryService

#: The longest line is a memory_import call carrying a whole file (MEMWARDEN_IMPORT_MAX_BYTES) as a
#: JSON string, whose escapes (``\u00XX``) take up to six bytes for one; the rest of the call fits
#: in the slack.
JSON_ESCAPE_GROWTH = 6
LINE_SLACK_BYTES = 1024 * 1024
#: How much of an over-long line is kept to read its request id from.
HEAD_BYTES = 64 * 1024


class LineReceiver(Protocol):
    async def receive_until(self, delimiter: bytes, max_bytes: int) -> bytes: ...

    async def receive(self, max_bytes: int = 65536) -> bytes: ...

    def feed_data(self, data: bytes, /) -> None: ...

    @property
    def buffer(self) -> bytes: ...


class ByteSender(Protocol):
    async def send(self, item: bytes) -> None: ...


async def _lines(receiver: LineReceiver, max_bytes: int) -> AsyncIterator[bytes | SessionMessage]:
    """The connection's incoming lines, as raw bytes (the reader decides what is valid).

    A last line the client closed its side after without a newline is a line too, as stdio's
    reader takes it: dropped here, the same request went unanswered only through the daemon. A
    line longer than ``max_bytes`` is answered ``-32700`` (with the id its start names) and skipped
    to its end; it used to end the connection unanswered, after buffering a gigabyte.
    """
    while True:
        try:
            line = await receiver.receive_until(b"\n", max_bytes)
        except anyio.IncompleteRead:
            if receiver.buffer.strip():
                yield receiver.buffer
            return
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            return
        except anyio.DelimiterNotFound:
            request_id = read_request_id(receiver.buffer[:HEAD_BYTES])
            yield jsonrpc_error(
                request_id,
                PARSE_ERROR,
                f"Parse error: the line is longer than {max_bytes} bytes (MEMWARDEN_IMPORT_MAX_BYTES "
                "bounds what one call may carry; import bigger files by name or with memwarden import)",
            )
            if not await _skip_line(receiver):
                return
            continue
        yield line


async def _skip_line(receiver: LineReceiver) -> bool:
    """Drop bytes up to the next newline (False: the client closed first)."""
    while True:
        try:
            chunk = await receiver.receive()
        except (anyio.EndOfStream, anyio.BrokenResourceError):
            return False
        end = chunk.find(b"\n")
        if end >= 0:
            receiver.feed_data(chunk[end + 1 :])
            return True


class StreamServers:
    """The daemon's MCP servers over ``service``, one per tool profile, built on first use."""

    def __init__(self, service: MemoryService, **server_options: Any) -> None:
        self.service = service
        self.server_options = server_options
        self._servers: dict[str, MCPServer] = {}

    async def serve(self, receiver: LineReceiver, sender: ByteSender, *, tools: str, caller: Caller) -> None:
        """Serve one MCP session over this connection until the client closes its side."""
        server = self._servers.get(tools)
        if server is None:
            server = self._servers[tools] = create_server(self.service, tools=tools, **self.server_options)
        token = CONNECTION_CALLER.set(caller)
        try:
            longest = JSON_ESCAPE_GROWTH * self.service.operations.options.import_max_bytes + LINE_SLACK_BYTES
            async with answering_lines(_lines(receiver, longest), sender.send) as (read, write):
                # The SDK's public entry points serve the process's own stdio or HTTP; a socket
                # needs the low-level server they wrap, whose run() serves one connection.
                lowlevel: Any = server._lowlevel_server
                await lowlevel.run(read, write, lowlevel.create_initialization_options())
        finally:
            CONNECTION_CALLER.reset(token)
