"""What keeps ``memwarden serve --http`` answering under a flood of connections.

uvicorn alone gives a connection that never sends a request no deadline and serves as many as the
process has file descriptors; ~1,100 idle connections ran it out of them. Here: the soft
open-file limit is raised to the hard one, connections past a limit get a 503 and are closed, a
request head must arrive within ``HEAD_TIMEOUT_S``, and the accept loop's failures at descriptor
exhaustion are logged once a minute. ``http.app.serve_http`` puts them together; the body's
deadline is ``http.guard.BodyGuard``'s.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

logger = logging.getLogger(__name__)

HEAD_TIMEOUT_S = 5.0
"""A connection that has not sent a whole request head this long after it opened (or after
the first byte of its next request) is closed: idle and slow-header connections cannot pile
up until the process runs out of file descriptors."""
KEEP_ALIVE_S = 5
"""An idle keep-alive connection between requests is closed after this long."""
MAX_CONNECTIONS = 1000
"""Most connections served at once; past it (or past what the open-file limit leaves room
for, see ``connection_limit``) a new connection gets a 503 and is closed."""
OPEN_FILES_CEILING = 65536
"""The soft open-file limit is raised to the hard limit at server start, but no higher than this."""


def raise_open_file_limit(ceiling: int = OPEN_FILES_CEILING) -> int | None:
    """Raise the soft RLIMIT_NOFILE to the hard limit (at most ``ceiling``); the soft limit in
    force afterwards, or None where there is no such limit (Windows).

    Many systems start processes with a soft limit of 1024 and a far higher hard one; every
    connection takes a descriptor, so the server asks for what it is allowed."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = ceiling if hard == resource.RLIM_INFINITY else min(hard, ceiling)
    if soft == resource.RLIM_INFINITY or soft >= target:
        return ceiling if soft == resource.RLIM_INFINITY else soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):
        # macOS refuses more than kern.maxfilesperproc even under a higher hard limit: the
        # server keeps its soft limit and sizes its connection limit to it.
        return soft
    return target


def connection_limit(open_files: int | None) -> int:
    """Connections served at once: ``MAX_CONNECTIONS``, fewer when the open-file limit would
    not leave a quarter of it (at least 32 descriptors) for the database, the log and backups."""
    if open_files is None:
        return MAX_CONNECTIONS
    return max(1, min(MAX_CONNECTIONS, open_files - max(32, open_files // 4)))


def guarded_protocol(max_connections: int) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with a deadline for each request head and a connection limit.

    uvicorn gives a connection that never sends a request, or sends its head a byte at a time,
    no deadline at all; ``HEAD_TIMEOUT_S`` closes it (with a 408 when part of a head came). A
    connection past ``max_connections`` gets a 503 and is closed before it costs more."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    warned = [0.0]

    def answer(status: str, error: str, message: str) -> bytes:
        body = json.dumps({"error": error, "message": message}).encode()
        return (
            f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\nconnection: close\r\n"
            f"content-length: {len(body)}\r\n\r\n"
        ).encode() + body

    class GuardedH11Protocol(H11Protocol):
        head_deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                if time.monotonic() - warned[0] > 60:  # once a minute, not once per connection
                    warned[0] = time.monotonic()
                    logger.warning(
                        "refusing HTTP connections: %d are open, the limit is %d",
                        len(self.connections) - 1,
                        max_connections,
                    )
                self.transport.write(
                    answer(
                        "503 Service Unavailable",
                        "too_many_connections",
                        f"the server has {max_connections} connections open; try again shortly",
                    )
                )
                self.transport.close()
                return
            self._arm_head_deadline()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is h11.IDLE:
                self._arm_head_deadline()  # part of a head: the deadline runs from its first byte
            else:
                self._cancel_head_deadline()

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_head_deadline()
            super().connection_lost(exc)

        def _arm_head_deadline(self) -> None:
            if self.head_deadline is None and not self.transport.is_closing():
                self.head_deadline = self.loop.call_later(HEAD_TIMEOUT_S, self._head_too_late)

        def _cancel_head_deadline(self) -> None:
            if self.head_deadline is not None:
                self.head_deadline.cancel()
                self.head_deadline = None

        def _head_too_late(self) -> None:
            self.head_deadline = None
            if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
                return
            if self.conn.trailing_data[0]:
                self.transport.write(
                    answer(
                        "408 Request Timeout",
                        "request_timeout",
                        f"the request head did not arrive within {HEAD_TIMEOUT_S:g} s",
                    )
                )
            self.transport.close()

    return GuardedH11Protocol


def quiet_server_class() -> type[Any]:
    """uvicorn's Server, its event loop logging accept failures at most once a minute.

    Out of descriptors, Python 3.11's accept loop fails once per backlog slot (2048 times) on
    every retry, each logged with a traceback: a flood of idle connections would fill the log
    and the CPU. One warning a minute says it; the server accepts again once connections close."""
    import uvicorn

    warned = [0.0]

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") != "socket.accept() out of system resource":
            loop.default_exception_handler(context)
        elif time.monotonic() - warned[0] > 60:
            warned[0] = time.monotonic()
            logger.warning(
                "the HTTP server cannot accept connections: %s (too many connections open; "
                "it accepts again as they close)",
                context.get("exception"),
            )

    class QuietServer(uvicorn.Server):
        async def serve(self, sockets: Any = None) -> None:
            asyncio.get_running_loop().set_exception_handler(handle)
            await super().serve(sockets)

    return QuietServer
