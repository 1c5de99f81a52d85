"""The JSON-RPC lines ``memwarden serve``'s relay reads and writes (``relay.py``): whole lines
taken from a buffer, a message read from one, and the errors the relay itself answers with."""

from __future__ import annotations

import _socket  # the C socket type: socket.py builds enums the relay never needs
import json
import os

# Not typing's: a relay imports this module and stays resident for its client's whole session
# (docs/daemon.md, "The relay"); mypy reads it as True.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

# JSON-RPC's range for implementation-defined server errors (-32000 to -32099).
DAEMON_RESTARTED = -32000


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def message_of(line: bytes) -> dict[str, Any] | None:
    """The JSON-RPC message on ``line``, or None for anything else (forwarded untracked)."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def key_of(request_id: object) -> str:
    # 1 and "1" are different JSON-RPC ids: key them by their JSON text.
    return json.dumps(request_id)


def take_line(buffer: bytearray) -> bytes | None:
    end = buffer.find(b"\n")
    if end < 0:
        return None
    line = bytes(buffer[: end + 1])
    del buffer[: end + 1]
    return line


def _error_line(request_id: object, message: str, reason: str, retry: bool) -> bytes:
    error = {"code": DAEMON_RESTARTED, "message": message, "data": {"reason": reason, "retry": retry}}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode("utf-8") + b"\n"


def restart_error(request_id: object, pid: object) -> bytes:
    """The one answer a request in flight gets when the daemon dies under it."""
    return _error_line(
        request_id,
        f"the memwarden daemon (pid {pid}) stopped while this request was in flight and a new one "
        "is taking over: the request got no answer and may or may not have taken effect; retry it",
        "daemon_restarted",
        True,
    )


def unavailable_error(request_id: object, reason: str) -> bytes:
    """The answer a queued request gets when no daemon could be had: it never ran."""
    return _error_line(
        request_id,
        f"memwarden could not reach its daemon ({reason}); the request did not run. Restart the MCP "
        "client to try again; MEMWARDEN_DAEMON=off serves in the client's own process",
        "daemon_unavailable",
        False,
    )


def shut_write(sock: _socket.socket) -> None:
    try:
        sock.shutdown(_socket.SHUT_WR)  # the daemon ends the session, then closes
    except OSError:
        pass
