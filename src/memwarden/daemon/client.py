"""A client's side of the attach protocol: connect, say hello, make calls. Standard library only.

The prompt hook and ``memwarden search`` import this on every run, so it stays as light as
``net.py``, whose deadline-bounded reads it shares. Every failure to reach the
daemon is a ``DaemonUnavailable`` (a ``LoopbackError``), which callers answer by doing the
work in their own process; a daemon that answers but refuses this client raises its subclass
``AttachRefused`` with the daemon's reason.
"""

from __future__ import annotations

# The C socket type, not the socket module: socket.py builds its enums and imports selectors,
# a measurable share of each prompt hook (docs/performance.md#cold-start). A Unix-socket client
# needs nothing more; TCP (Windows) imports socket for create_connection.
import _socket
import os
import time

from memwarden.daemon.place import DaemonPlace, PlaceError
from memwarden.daemon.protocol import MAX_CALL_BYTES, ProtocolError, decode, encode, hello_frame
from memwarden.errors import (
    Conflict,
    EmbeddingUnavailable,
    InvalidInput,
    MemwardenError,
    NotFound,
    PolicyBlocked,
    StorageError,
)
from memwarden.net import LoopbackError, connected, read_line

# Not typing's: the prompt hook asking the daemon never imports typing, whose import is a
# large share of that hook's CPU (docs/performance.md#cold-start). mypy reads it as True.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Self


class DaemonUnavailable(LoopbackError):
    """No daemon answered in time (none running, a stale socket, a private-folder problem)."""


class DaemonAbsent(DaemonUnavailable):
    """Nothing listens where the daemon would (no socket or token file, a socket left by a
    daemon that was killed, a folder that is not private): no daemon is up, which is normal."""


class DaemonForeign(DaemonUnavailable):
    """The daemon's TCP port is held by another user's process (a daemon killed with -9 left
    ``daemon.json`` behind and someone else took its port): nothing was sent to it."""


class DaemonLostMidCall(DaemonUnavailable):
    """The connection ended before the answer: the daemon stopped or was killed during the call.
    Callers ask once more (a relay or another client may have started its successor by then);
    a write made again is answered by exact dedup with the id it got, if it was stored."""


class AttachRefused(DaemonUnavailable):
    """The daemon answered and refused this client; ``code`` says why (``settings_differ``, …)."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(f"the memwarden daemon refused this client: {message}")
        self.code = code
        self.reason = message
        # What the daemon says of itself when it refuses (``pid``, ``version``): enough to stop
        # a daemon of another version, or to report it in ``memwarden daemon status``.
        self.details = details or {}


_ERRORS: dict[str, type[MemwardenError]] = {
    cls.code: cls
    for cls in (NotFound, Conflict, InvalidInput, PolicyBlocked, StorageError, EmbeddingUnavailable)
}


def remote_error(error: object) -> MemwardenError:
    """The daemon's ``{"code", "message"}`` as the memwarden error the same call raises in-process."""
    code = str(error.get("code", "error")) if isinstance(error, dict) else "error"
    message = str(error.get("message", "the daemon failed")) if isinstance(error, dict) else str(error)
    known = _ERRORS.get(code)
    if known is not None:
        return known(message)
    error = MemwardenError(message)
    error.code = code  # rate_limited and others raised only by a server: the caller can tell them apart
    return error


def _connect(place: DaemonPlace, timeout: float) -> tuple[_socket.socket, str | None]:
    try:
        place.check()
        if os.name != "nt" and os.path.exists(place.socket_file):
            return connected(_socket.AF_UNIX, place.socket_file, timeout), None
        import socket

        port, token = place.read_token()
        sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    except PlaceError as exc:
        raise DaemonAbsent(str(exc)) from None
    except TimeoutError:
        raise DaemonUnavailable(f"the daemon did not accept within {timeout * 1000:.0f} ms") from None
    except OSError as exc:
        raise DaemonAbsent(
            f"no daemon answers in {place.folder} ({exc.strerror or type(exc).__name__})"
        ) from None
    # A port is anyone's to take once the daemon is gone: check its owner before the token goes.
    from memwarden.peer import foreign_server

    reason = foreign_server(sock, "the daemon token or any request")
    if reason is not None:
        sock.close()
        raise DaemonForeign(f"the memwarden daemon's {reason}")
    return sock, token


class DaemonClient:
    """One connection to the daemon, after a hello it accepted."""

    def __init__(self, sock: _socket.socket, info: dict[str, Any], pending: bytearray) -> None:
        self.sock = sock
        self.info = info
        self.pending = pending
        self._next_id = 0

    @classmethod
    def attach(
        cls,
        place: DaemonPlace,
        settings: Any,
        *,
        mode: str = "call",
        timeout: float = 2.0,
        tools: str = "core",
        server_settings: bool = False,
    ) -> DaemonClient:
        """Connect and say hello within ``timeout`` seconds; DaemonUnavailable or AttachRefused if not."""
        deadline = time.monotonic() + timeout
        sock, token = _connect(place, timeout)
        try:
            pending = bytearray()
            hello = hello_frame(
                settings, mode=mode, tools=tools, token=token, server_settings=server_settings
            )
            return cls(sock, _accepted(_exchange(sock, pending, encode(hello), deadline)), pending)
        except BaseException:
            sock.close()
            raise

    @classmethod
    def call_once(
        cls, place: DaemonPlace, settings: Any, op: str, args: dict[str, Any], *, timeout: float
    ) -> Any:
        """``attach`` then ``call``, within ``timeout`` seconds in all, on a connection used once.

        Over the Unix socket the hello and the request go in one write, so the answer comes one
        round trip sooner (the prompt hook's way); a refused hello is answered and the request
        never read. A connection that ends before the answer is tried once more within the same
        ``timeout``. Raises what ``attach`` and ``call`` raise."""
        deadline = time.monotonic() + timeout
        try:
            return cls._call_until(place, settings, op, args, deadline)
        except DaemonLostMidCall:
            if time.monotonic() >= deadline:
                raise
            return cls._call_until(place, settings, op, args, deadline)

    @classmethod
    def _call_until(
        cls, place: DaemonPlace, settings: Any, op: str, args: dict[str, Any], deadline: float
    ) -> Any:
        sock, token = _connect(place, max(deadline - time.monotonic(), 0.001))
        try:
            pending = bytearray()
            hello = encode(hello_frame(settings, mode="call", token=token))
            request = encode(_request(1, op, args))
            if token is None:
                _accepted(_exchange(sock, pending, hello + request, deadline))
                return _result(_exchange(sock, pending, None, deadline), 1)
            # TCP: a daemon that refuses the hello closes the connection, and unread request bytes
            # would make that a reset that may arrive before the refusal: wait for the answer.
            _accepted(_exchange(sock, pending, hello, deadline))
            return _result(_exchange(sock, pending, request, deadline), 1)
        finally:
            sock.close()

    def call(self, op: str, args: dict[str, Any] | None = None, *, timeout: float = 10.0) -> Any:
        """The result of ``op``; the daemon's error re-raised as the same MemwardenError."""
        self._next_id += 1
        request = encode(_request(self._next_id, op, args or {}))
        return _result(_exchange(self.sock, self.pending, request, time.monotonic() + timeout), self._next_id)

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _request(request_id: int, op: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"id": request_id, "op": op, "args": args}


def _accepted(answer: Any) -> dict[str, Any]:
    """The daemon's answer to a hello it accepted; AttachRefused with its reason otherwise."""
    if isinstance(answer, dict) and answer.get("ok") is True:
        return answer
    error = answer.get("error") if isinstance(answer, dict) else None
    code = str(error.get("code", "refused")) if isinstance(error, dict) else "refused"
    message = str(error.get("message", "no reason given")) if isinstance(error, dict) else "odd answer"
    daemon = error.get("daemon") if isinstance(error, dict) else None
    raise AttachRefused(code, message, daemon if isinstance(daemon, dict) else None)


def _result(reply: Any, request_id: int) -> Any:
    """The result of the call ``request_id``; the daemon's error re-raised as the same MemwardenError."""
    if not isinstance(reply, dict) or reply.get("id") != request_id:
        raise DaemonUnavailable("the daemon answered out of turn")
    if reply.get("ok") is True:
        return reply.get("result")
    raise remote_error(reply.get("error"))


def _exchange(sock: _socket.socket, pending: bytearray, frame: bytes | None, deadline: float) -> Any:
    """Send ``frame`` (if any), then read and decode one answer line before ``deadline``."""
    try:
        sock.settimeout(max(deadline - time.monotonic(), 0.001))
        if frame is not None:
            sock.sendall(frame)
        return decode(read_line(sock, pending, deadline, MAX_CALL_BYTES))
    except TimeoutError:
        raise DaemonUnavailable("the daemon did not answer in time") from None
    except LoopbackError as exc:
        # read_line's "the connection closed before a full answer": the daemon went away.
        lost = DaemonLostMidCall if "closed" in str(exc) else DaemonUnavailable
        raise lost(str(exc)) from None
    except OSError as exc:
        raise DaemonLostMidCall(
            f"the daemon connection failed ({exc.strerror or type(exc).__name__})"
        ) from None
    except ProtocolError:
        raise DaemonUnavailable("the daemon answered something that is not JSON") from None
