"""The daemon's event loop: accept local clients, check who they are, serve calls and MCP sessions.

One ``MemoryService`` for every client: the model loads once, each connection acts as the
caller its hello names (see ``protocol``). Nothing a client sends can stop the daemon: a bad
hello or request gets an error frame naming the problem, the connection closes (or, for a
bad request, carries on), and every other client is served as before. The daemon leaves when
no client has been connected for ``MEMWARDEN_DAEMON_IDLE_S``, when asked to (``stop``), or on
SIGTERM / SIGINT: it stops accepting, lets the calls under way finish (``DRAIN_S`` at most),
then the socket is removed and the store closed (``launch.run_daemon``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import signal
import socket
import struct
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
from anyio.abc import SocketAttribute, SocketStream
from anyio.streams.buffered import BufferedByteReceiveStream

from memwarden.daemon.calls import DASHBOARD_ARGS, CallHandler, checked, error_frame
from memwarden.daemon.place import DaemonPlace
from memwarden.daemon.protocol import (
    HELLO_TIMEOUT_S,
    MAX_CALL_BYTES,
    MAX_HELLO_BYTES,
    SERVER_SETTINGS,
    SHARED_SETTINGS,
    ProtocolError,
    check_hello,
    decode,
    encode,
    fingerprint,
)
from memwarden.models import Caller
from memwarden.rate_limits import ActorRateLimits
from memwarden.version import __version__

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.config import Settings
    from memwarden.service import MemoryService

logger = logging.getLogger(__name__)

DRAIN_S = 10.0  # how long a stopping daemon waits for the calls under way
# Refusals that come after the token check: the answer may say which daemon refused (its pid
# and version), so a client can stop a daemon of another version or report it in a status.
_SAY_WHO = frozenset({"version_differs", "settings_differ"})

# What a client that hangs up or stalls mid-frame looks like to anyio.
_GONE = (
    anyio.EndOfStream,
    anyio.IncompleteRead,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    ConnectionError,
)


def _quiet_late_wakeups(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """The loop's error handler, without one harmless error anyio's sockets cause at a stop.

    anyio (4.x) waits for a socket to become readable with ``loop.add_reader(sock,
    future.set_result, None)`` and removes the reader in a callback of that future. When the
    daemon stops, cancelling a connection that waits to read, and its client closes the socket
    in the same turn of the loop, the reader's ``set_result`` runs on the cancelled future:
    asyncio logs an ``InvalidStateError`` at ERROR (once per idle client, at every stop). Nothing
    was lost (the waiter was cancelled); every other error is logged as asyncio does.
    """
    callback = getattr(context.get("handle"), "_callback", None)
    future = getattr(callback, "__self__", None)
    if (
        isinstance(context.get("exception"), asyncio.InvalidStateError)
        and isinstance(future, asyncio.Future)
        and getattr(callback, "__name__", "") == "set_result"
        and future.cancelled()
    ):
        return
    loop.default_exception_handler(context)


def peer_uid(stream: SocketStream) -> int | None:
    """The user id of the process at the other end of a Unix socket (Linux), else None."""
    raw: socket.socket = stream.extra(SocketAttribute.raw_socket)
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None or raw.family != getattr(socket, "AF_UNIX", None):
        return None
    _pid, uid, _gid = struct.unpack("3i", raw.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i")))
    return int(uid)


async def listen_unix(place: DaemonPlace) -> Any:
    """A listener on the place's socket, whose file appears only once it accepts connections.

    anyio binds, sets the mode and listens in three steps, the first two in worker threads: a
    client that found the socket file in between was refused, and took the daemon for one that
    had died. So the socket listens under a temporary name in the same folder first, then is
    renamed into place (``rename`` is atomic; a connection goes to the socket, not the name). The
    temporary name is no longer than the final one, which must fit a Unix socket address
    (``sun_path``).
    """
    partial = os.path.join(os.fspath(place.folder), f".s{os.getpid():x}")
    listener = await anyio.create_unix_listener(partial, mode=0o600)
    try:
        os.replace(partial, place.socket_file)
    except OSError:
        await listener.aclose()
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise
    return listener


class Daemon:
    """Serves one service to every local client of this user until idle or stopped."""

    def __init__(
        self,
        service: MemoryService,
        settings: Settings,
        place: DaemonPlace,
        *,
        transport: str,
        idle_s: float | None = None,
        version: str = __version__,
        dashboard: Callable[..., Any] | None = None,
        mcp_first: bool = False,
    ) -> None:
        self.service = service
        self.full_settings = settings
        self.place = place
        self.transport = transport
        self.idle_s = settings.daemon_idle_s if idle_s is None else idle_s
        self.settings = fingerprint(settings, SHARED_SETTINGS + SERVER_SETTINGS)
        self.token = secrets.token_urlsafe(32) if transport == "tcp" else None
        # The version this daemon reports and requires of its clients: this package's, unless
        # the tests make it pose as another release (``python -m memwarden.daemon --as-version``).
        self.version = version
        self.busy = 0  # calls under way, waited for when the daemon stops
        self.started = time.monotonic()
        self.last_active = self.started
        self.clients = 0
        # One allowance per actor for everything this daemon serves: calls and MCP sessions.
        self.limits = ActorRateLimits.from_settings(settings)
        self.calls = CallHandler(
            service, started=self.started, clients=lambda: self.clients, limits=self.limits
        )
        self._stop: anyio.Event | None = None
        self._mcp: Any = None  # memwarden.mcp.stream.StreamServers (``_warm_up``, ``_mcp_servers``)
        self._mcp_built: anyio.Event | None = None
        self._mcp_lock: anyio.Lock | None = None
        self.mcp_first = mcp_first  # started by an MCP client's `serve`: its handshake waits
        self._group: Any = None
        # How to build the dashboard (``daemon.dashboard.DaemonDashboard``, given by
        # ``__main__``: importing it here would close an import cycle through ``http.app``), and
        # the one built once `memwarden ui` asked for it.
        self._dashboard_factory = dashboard
        self._dashboard: Any = None

    async def run(self) -> None:
        """Listen, serve until idle or stopped, then remove the socket / token file."""
        self._stop = anyio.Event()
        self._mcp_built = anyio.Event()
        self._mcp_lock = anyio.Lock()
        asyncio.get_running_loop().set_exception_handler(_quiet_late_wakeups)
        if self.transport == "tcp":
            listener: Any = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
            self.place.write_token(listener.extra(SocketAttribute.local_port), self.token or "")
        else:
            self.place.remove_files()  # a socket left by a daemon killed with -9 (we hold the lock)
            listener = await listen_unix(self.place)
        logger.info(
            "daemon %d serving on %s",
            os.getpid(),
            self.place.socket_path if self.transport == "unix" else "127.0.0.1 (see daemon.json)",
        )
        try:
            async with anyio.create_task_group() as group:
                self._group = group
                group.start_soon(self._leave_when_idle)
                group.start_soon(self._stop_on_signal)
                group.start_soon(self._warm_up)
                serving = anyio.CancelScope()
                group.start_soon(self._accept, serving, listener, group)
                await self._stop.wait()
                # No new clients: a client arriving now starts the next daemon, which waits for
                # this one's lock. The calls under way finish first.
                serving.cancel()
                await listener.aclose()
                self.place.remove_files()
                if self._dashboard is not None:
                    await self._dashboard.close()
                await self._drain()
                group.cancel_scope.cancel()
        finally:
            self.place.remove_files()
            if self._dashboard is not None:
                self._dashboard.remove_state()
            await listener.aclose()
        logger.info("daemon %d stopped", os.getpid())

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    async def _accept(self, scope: anyio.CancelScope, listener: Any, group: Any) -> None:
        with scope:
            await listener.serve(partial(self._connection), group)

    async def _warm_up(self) -> None:
        """Build the MCP servers, then start loading the model: in that order, because a client's
        MCP handshake waits for the first (the SDK's import is most of it) and nothing waits for
        the second (searches answer by keywords, marked ``warming_up``, until it is warm). Both
        at once, the model's import and load hold the interpreter lock the SDK's import needs.
        A daemon started by a call (``memwarden search``/``add`` with ``only``, a bench) loads
        the model at once and builds the MCP servers for its first MCP client: building them
        first would hold that lock while its caller waits for an answer."""
        assert self._mcp_built is not None
        if not self.mcp_first:
            self._mcp_built.set()
            self.service.searcher.start_background()
            return
        try:
            self._mcp = await anyio.to_thread.run_sync(self._build_mcp)
        except Exception:
            logger.exception("building the MCP server failed; MCP clients will retry it")
        finally:
            self._mcp_built.set()
        self.service.searcher.start_background()  # the model loads once, for every client to come

    async def _mcp_servers(self) -> Any:
        """The MCP servers: built at start (``mcp_first``), else by the first MCP client, in a
        thread (the SDK's import takes a second; other clients are served meanwhile)."""
        assert self._mcp_built is not None and self._mcp_lock is not None
        await self._mcp_built.wait()
        async with self._mcp_lock:
            if self._mcp is None:
                self._mcp = await anyio.to_thread.run_sync(self._build_mcp)
        return self._mcp

    def _build_mcp(self) -> Any:
        from memwarden.mcp.stream import StreamServers  # the MCP SDK: only the daemon imports it

        return StreamServers(self.service, limits=self.limits)

    async def _stop_on_signal(self) -> None:
        """SIGTERM (a logout, ``kill``) and SIGINT stop the daemon as ``stop`` does."""
        if os.name == "nt":
            return  # no such signals to receive there; ``memwarden daemon stop`` asks instead
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as received:
            async for number in received:
                logger.info("daemon %d got %s; stopping", os.getpid(), signal.Signals(number).name)
                self.stop()
                return

    async def _drain(self) -> None:
        """Wait (``DRAIN_S`` at most) for the calls under way, so their answers go out."""
        with anyio.move_on_after(DRAIN_S):
            while self.busy:
                await anyio.sleep(0.02)
        if self.busy:
            logger.warning("daemon stopping with %d call(s) unfinished after %.0f s", self.busy, DRAIN_S)

    async def _leave_when_idle(self) -> None:
        while True:
            await anyio.sleep(min(1.0, self.idle_s / 4))
            if self.clients == 0 and time.monotonic() - self.last_active >= self.idle_s:
                logger.info("daemon idle for %.0f s; leaving", self.idle_s)
                self.stop()
                return

    async def _connection(self, stream: SocketStream) -> None:
        self.clients += 1
        try:
            async with stream:
                await self._serve(stream)
        except _GONE:
            pass  # the client left mid-frame; nothing to answer
        except Exception:
            logger.exception("daemon connection failed")
        finally:
            self.clients -= 1
            self.last_active = time.monotonic()

    async def _serve(self, stream: SocketStream) -> None:
        uid = peer_uid(stream)
        if uid is not None and uid != os.getuid():
            logger.warning("daemon refused a connection from user id %d", uid)
            await stream.send(
                encode(
                    ProtocolError(
                        "wrong_user", f"this daemon serves user id {os.getuid()} only, not {uid}"
                    ).frame()
                )
            )
            return
        reader = BufferedByteReceiveStream(stream)
        try:
            with anyio.fail_after(HELLO_TIMEOUT_S):
                line = await reader.receive_until(b"\n", MAX_HELLO_BYTES)
            frame = decode(line)
            hello = check_hello(frame, daemon_settings=self.settings, token=self.token)
            if frame.get("version") != self.version:
                raise ProtocolError(
                    "version_differs",
                    f"this daemon runs memwarden {self.version}, the client {frame.get('version')!r}; "
                    "the first client of a newer version replaces it (or: memwarden daemon restart)",
                )
        except ProtocolError as exc:
            refusal = exc.frame()
            if exc.code in _SAY_WHO:
                refusal["error"]["daemon"] = {"pid": os.getpid(), "version": self.version}
            await stream.send(encode(refusal))
            return
        except anyio.DelimiterNotFound:
            await stream.send(
                encode(ProtocolError("bad_hello", f"hello longer than {MAX_HELLO_BYTES} bytes").frame())
            )
            return
        except TimeoutError:
            await stream.send(
                encode(ProtocolError("bad_hello", f"no hello within {HELLO_TIMEOUT_S:.0f} s").frame())
            )
            return
        caller = Caller(actor=hello.actor, tenant=hello.tenant)
        await stream.send(
            encode({"ok": True, "pid": os.getpid(), "version": self.version, "mode": hello.mode})
        )
        if hello.mode == "mcp":
            servers = await self._mcp_servers()
            await servers.serve(reader, stream, tools=hello.tools, caller=caller)
            return
        await self._serve_calls(reader, stream, caller)

    async def _open_dashboard(self, args: dict[str, Any]) -> dict[str, Any]:
        """``memwarden ui``: the dashboard served here (started on first use) and a login to it."""
        port = checked(args, DASHBOARD_ARGS, ()).get("port")
        if self._dashboard is None:
            if self._dashboard_factory is None:
                raise ProtocolError("unknown_op", "this daemon serves no dashboard")
            self._dashboard = self._dashboard_factory(self.service, self.full_settings, touch=self._touch)
        answer: dict[str, Any] = await self._dashboard.open(self._group, port)
        return answer

    def _touch(self) -> None:
        self.last_active = time.monotonic()

    async def _serve_calls(
        self, reader: BufferedByteReceiveStream, stream: SocketStream, caller: Caller
    ) -> None:
        while True:
            try:
                line = await reader.receive_until(b"\n", MAX_CALL_BYTES)
            except anyio.DelimiterNotFound:
                await stream.send(
                    encode(ProtocolError("bad_frame", f"request longer than {MAX_CALL_BYTES} bytes").frame())
                )
                return
            self.last_active = time.monotonic()
            request_id: object = None
            try:
                frame = decode(line)
                request_id = self.calls.request_id(frame)
                op, args = self.calls.parse(frame)
                self.busy += 1
                try:
                    if op == "dashboard":
                        result = await self._open_dashboard(args)
                    else:
                        result = await anyio.to_thread.run_sync(self.calls.run, op, args, caller)
                finally:
                    self.busy -= 1
                answer: dict[str, Any] = {"id": request_id, "ok": True, "result": result}
            except Exception as exc:  # noqa: BLE001 - every failure becomes an error frame (error_frame logs)
                answer = error_frame(request_id, exc)
                op = ""
            await stream.send(encode(answer))
            if op == "stop":
                self.stop()
                return
