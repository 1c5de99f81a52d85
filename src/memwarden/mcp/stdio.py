"""MCP over stdio, and over the daemon's connections, where every request gets an answer.

The SDK's stdio reader (``mcp.server.stdio``) hands a line it cannot parse to the session as
an exception, and the session drops it: a request holding a lone surrogate escape
(``\\ud800``) or nested past its parser's ~250 levels got no answer at all, and the client waited
for its own timeout. This transport reads the same wire (one JSON-RPC message per line, UTF-8)
and answers such a line itself, as JSON-RPC 2.0 asks:

- the line is too deep, holds a lone surrogate, is not UTF-8 or not JSON: ``-32700`` (parse
  error) with the request's ``id`` when one can be read from the text, ``null`` otherwise;
- the line is JSON but not a JSON-RPC message: ``-32600`` (invalid request), same ``id`` rule;
  so is a request whose ``id`` is ``null``, a fraction or a boolean (MCP allows a string or an
  integer): the SDK would read it as a notification and answer nothing, and the client would wait;
- an answer the server cannot encode (it would not be UTF-8 JSON) is replaced by a ``-32603``
  error for the same ``id``.

``answering_lines`` is that reader over any line transport: ``memwarden serve`` in its own process
(``answering_stdio``) and the daemon's MCP connections (``mcp/stream.py``, which the relay of
``MEMWARDEN_DAEMON=auto`` feeds byte for byte) share it, so bad input is answered alike on each.

A malformed *response* (a line with ``result`` or ``error`` and no ``method``) is dropped, not
answered (HTTP, which can answer, says 400), and logged once a minute with a count: one warning
per line let any client fill the log and the stderr pipe its host reads. The server keeps serving after every one of these. As in the SDK, while it serves,
file descriptor 0 reads the null device and 1 writes to stderr, so a stray ``print`` or child
process cannot corrupt the wire. This module uses two SDK internals (``_lowlevel_server`` and
``create_context_streams``, the SDK's own stdio transport is built on the same two), which is why
``mcp`` is pinned below 3.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, BinaryIO

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.mcpserver import MCPServer
from mcp.shared._context_streams import ContextReceiveStream, ContextSendStream, create_context_streams
from mcp.shared.message import SessionMessage

from memwarden.json_limits import json_problem, read_request_id
from memwarden.rate_limits import OncePerInterval

__all__ = ["answering_lines", "answering_stdio", "run_answering_stdio"]

logger = logging.getLogger(__name__)
Id = str | int | None
_dropped_responses = OncePerInterval(logger)


def jsonrpc_error(request_id: Id, code: int, message: str) -> SessionMessage:
    return SessionMessage(
        types.JSONRPCError(jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message))
    )


def triage(line: bytes) -> tuple[bool, SessionMessage] | None:
    """``(False, message)`` to pass on to the server, ``(True, error)`` to answer the client
    with at once, or ``None`` when there is nothing to do."""
    problem = json_problem(line)
    if problem is None:
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as exc:
            problem = f"the line is not UTF-8 text (byte {exc.start})"
    if problem is not None:
        return True, jsonrpc_error(read_request_id(line), types.PARSE_ERROR, f"Parse error: {problem}")
    try:
        message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValueError:
        pass
    else:
        if not isinstance(message, types.JSONRPCNotification) or not _has_id(line):
            return False, SessionMessage(message)
    try:
        parsed = json.loads(line)
    except ValueError as exc:
        return True, jsonrpc_error(
            read_request_id(line), types.PARSE_ERROR, f"Parse error: the line is not JSON ({exc})"
        )
    request_id = parsed.get("id") if isinstance(parsed, dict) else None
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        request_id = None
    if isinstance(parsed, dict) and "method" not in parsed and ("result" in parsed or "error" in parsed):
        _dropped_responses.warn(
            "response",
            "dropped a malformed JSON-RPC response from a client (id %r); %d in the last minute",
            request_id,
        )
        return None
    return True, jsonrpc_error(
        request_id,
        types.INVALID_REQUEST,
        "Invalid Request: not a JSON-RPC 2.0 message (jsonrpc, id, method, params)",
    )


def _has_id(line: bytes) -> bool:
    """Whether a line the SDK read as a notification carries an ``id`` (one it could not take)."""
    try:
        parsed = json.loads(line)
    except ValueError:
        return False
    return isinstance(parsed, dict) and "id" in parsed


def _encode(message: SessionMessage) -> bytes:
    try:
        return (message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode("utf-8")
    except (ValueError, UnicodeError) as exc:
        request_id = getattr(message.message, "id", None)
        logger.error(
            "an answer could not be encoded as UTF-8 JSON (%s); sending an error instead", type(exc).__name__
        )
        fallback = jsonrpc_error(
            request_id, types.INTERNAL_ERROR, "the answer could not be encoded as UTF-8 JSON"
        )
        return (fallback.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode("utf-8")


class _Wire:
    """fd 0 and 1 moved to private descriptors; 0 then reads /dev/null and 1 writes to stderr."""

    def __init__(self) -> None:
        # Buffered: the readline of an unbuffered file reads one byte per system call.
        self.reader: BinaryIO = os.fdopen(os.dup(0), "rb")
        self.writer: BinaryIO = os.fdopen(os.dup(1), "wb", buffering=0)
        self._saved = (os.dup(0), os.dup(1))
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        os.dup2(2, 1)

    def restore(self) -> None:
        sys.stdout.flush()
        for fd, saved in zip((0, 1), self._saved, strict=True):
            os.dup2(saved, fd)
            os.close(saved)


#: How long the server keeps its read side open, after the client closed its own, for the answers
#: to requests already sent.
DRAIN_S = 60.0


class _PendingRequests:
    """The ids of requests passed to the server and not answered yet."""

    def __init__(self) -> None:
        self.ids: set[Id] = set()
        self._none_left = anyio.Event()

    def sent(self, message: SessionMessage) -> None:
        if isinstance(message.message, types.JSONRPCRequest):
            self.ids.add(message.message.id)

    def answered(self, message: SessionMessage) -> None:
        if isinstance(message.message, types.JSONRPCResponse | types.JSONRPCError):
            self.ids.discard(message.message.id)
            if not self.ids:
                self._none_left.set()
                self._none_left = anyio.Event()

    async def drained(self) -> None:
        if self.ids:
            await self._none_left.wait()


Streams = tuple[ContextReceiveStream[SessionMessage | Exception], ContextSendStream[SessionMessage]]


@asynccontextmanager
async def answering_lines(
    lines: AsyncIterable[bytes | SessionMessage], write: Callable[[bytes], Awaitable[None]]
) -> AsyncIterator[Streams]:
    """Streams for ``Server.run`` over any line transport (stdio, a daemon connection): each
    line is triaged as the module docstring says, each answer written as one UTF-8 line. A
    transport answers a line it could not read whole itself, by yielding the error in its place."""
    read_send, read_stream = create_context_streams[SessionMessage | Exception](0)
    write_stream, write_receive = create_context_streams[SessionMessage](0)
    answers = write_stream.clone()
    pending = _PendingRequests()

    async def read_lines() -> None:
        try:
            async with read_send, answers:
                async for line in lines:
                    if isinstance(line, SessionMessage):
                        await answers.send(line)
                        continue
                    if not line.strip():
                        continue
                    triaged = triage(line)
                    if triaged is not None:
                        answer_now, message = triaged
                        if not answer_now:
                            pending.sent(message)
                        await (answers if answer_now else read_send).send(message)
                # The client closed its side: the server stops once its read stream closes, and a
                # request still running then is cancelled unanswered. Wait (bounded) for the
                # answers first, so a last request is answered however soon the end follows it.
                with anyio.move_on_after(DRAIN_S):
                    await pending.drained()
        except anyio.ClosedResourceError:
            await anyio.lowlevel.checkpoint()

    async def write_lines() -> None:
        try:
            async with write_receive:
                async for message in write_receive:
                    await write(_encode(message))
                    pending.answered(message)
        except anyio.ClosedResourceError:
            await anyio.lowlevel.checkpoint()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_lines)
        tasks.start_soon(write_lines)
        yield read_stream, write_stream


@asynccontextmanager
async def answering_stdio(
    reader: BinaryIO | None = None, writer: BinaryIO | None = None
) -> AsyncIterator[Streams]:
    """Streams for ``Server.run`` over stdin/stdout (or the given files); see ``answering_lines``."""
    wire = _Wire() if reader is None or writer is None else None
    source = anyio.wrap_file(reader or (wire.reader if wire else sys.stdin.buffer))
    sink = writer or (wire.writer if wire else sys.stdout.buffer)

    def send(data: bytes) -> None:
        sink.write(data)
        sink.flush()

    async def write(data: bytes) -> None:
        await anyio.to_thread.run_sync(send, data)  # one trip to a worker thread, not two

    try:
        async with answering_lines(source, write) as streams:
            yield streams
    finally:
        if wire is not None:
            wire.restore()


def run_answering_stdio(server: MCPServer) -> None:
    """Serve ``server`` over stdin/stdout until the client closes stdin."""

    async def serve() -> None:
        lowlevel: Any = server._lowlevel_server  # the SDK's run_stdio_async does exactly this
        async with answering_stdio() as (read_stream, write_stream):
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())

    anyio.run(serve)
