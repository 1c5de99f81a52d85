"""A client's side of the attach protocol: connect, say hello, make calls. Standard library only.

The prompt hook and ``memwarden search`` import this on every run, so it stays as light as
``hooks/loopback.py``, whose deadline-bounded reads it shares. Every failure to reach the
daemon is a ``DaemonUnavailable`` (a ``LoopbackError``), which callers answer by doing the
work in their own process; a daemon that answers but refuses this client raises its subclass
``AttachRefused`` with the daemon's reason.
"""

from __future__ import annotations

# The C socket type, not the socket module: socket.py builds its enums and imports selectors,
# about 4 ms of each prompt hook. A Unix-socket client needs nothing more; TCP (Windows)
# imports socket for create_connection.
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
from memwarden.hooks.loopback import LoopbackError, read_line

TYPE_CHECKING = False  # not typing's: importing typing costs the prompt hook ~15 ms (mypy reads it as True)
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Self


class DaemonUnavailable(LoopbackError):
    """No daemon answered in time (none running, a stale socket, a private-folder problem)."""


class AttachRefused(DaemonUnavailable):
    """The daemon answered and refused this client; ``code`` says why (``settings_differ``, …)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"the memwarden daemon refused this client: {message}")
        self.code = code
        self.reason = message


_ERRORS: dict[str, type[MemwardenError]] = {
    cls.code: cls
    for cls in (NotFound, Conflict, InvalidInput, PolicyBlocked, StorageError, EmbeddingUnavailable)
}


def remote_error(error: object) -> MemwardenError:
    """The daemon's ``{"code", "message"}`` as the memwarden error the same call raises in-process."""
    code = str(error.get("code", "error")) if isinstance(error, dict) else "error"
    message = str(error.get("message", "the daemon failed")) if isinstance(error, dict) else str(error)
    return _ERRORS.get(code, MemwardenError)(message)


def _connect(place: DaemonPlace, timeout: float) -> tuple[_socket.socket, str | None]:
    try:
        place.check()
        if os.name != "nt" and os.path.exists(place.socket_file):
            sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
            try:
                sock.settimeout(timeout)
                sock.connect(place.socket_file)
            except BaseException:
                sock.close()
                raise
            return sock, None
        import socket

        port, token = place.read_token()
        return socket.create_connection(("127.0.0.1", port), timeout=timeout), token
    except PlaceError as exc:
        raise DaemonUnavailable(str(exc)) from None
    except TimeoutError:
        raise DaemonUnavailable(f"the daemon did not accept within {timeout * 1000:.0f} ms") from None
    except OSError as exc:
        raise DaemonUnavailable(
            f"no daemon answers in {place.folder} ({exc.strerror or type(exc).__name__})"
        ) from None


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
            answer = _exchange(sock, pending, hello, deadline)
            if not isinstance(answer, dict) or answer.get("ok") is not True:
                error = answer.get("error") if isinstance(answer, dict) else None
                code = str(error.get("code", "refused")) if isinstance(error, dict) else "refused"
                message = (
                    str(error.get("message", "no reason given")) if isinstance(error, dict) else "odd answer"
                )
                raise AttachRefused(code, message)
            return cls(sock, answer, pending)
        except BaseException:
            sock.close()
            raise

    def call(self, op: str, args: dict[str, Any] | None = None, *, timeout: float = 10.0) -> Any:
        """The result of ``op``; the daemon's error re-raised as the same MemwardenError."""
        self._next_id += 1
        reply = _exchange(
            self.sock,
            self.pending,
            {"id": self._next_id, "op": op, "args": args or {}},
            time.monotonic() + timeout,
        )
        if not isinstance(reply, dict) or reply.get("id") != self._next_id:
            raise DaemonUnavailable("the daemon answered out of turn")
        if reply.get("ok") is True:
            return reply.get("result")
        raise remote_error(reply.get("error"))

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _exchange(sock: _socket.socket, pending: bytearray, frame: object, deadline: float) -> Any:
    try:
        sock.settimeout(max(deadline - time.monotonic(), 0.001))
        sock.sendall(encode(frame))
        return decode(read_line(sock, pending, deadline, MAX_CALL_BYTES))
    except TimeoutError:
        raise DaemonUnavailable("the daemon did not answer in time") from None
    except LoopbackError as exc:
        raise DaemonUnavailable(str(exc)) from None
    except OSError as exc:
        raise DaemonUnavailable(
            f"the daemon connection failed ({exc.strerror or type(exc).__name__})"
        ) from None
    except ProtocolError:
        raise DaemonUnavailable("the daemon answered something that is not JSON") from None
