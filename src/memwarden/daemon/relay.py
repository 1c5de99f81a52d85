"""``memwarden serve`` attached to the daemon: copy stdin to the socket and the socket to stdout,
and carry the client's MCP session over to a new daemon when the one it talks to dies.

The MCP client talks to this process exactly as to a stdio server; the messages go unchanged to
the daemon, which runs the MCP session (``mcp/stream.py``). This process imports neither the
MCP SDK nor the model: it stays small however many clients run.

MCP over stdio is one JSON-RPC message per line, so the relay forwards whole lines only (a line
cut short by a dying daemon never reaches the client) and remembers what a new daemon needs:

- the client's ``initialize`` request and ``notifications/initialized``, replayed to the new
  daemon (its answer to the replay is read here, never shown to the client, which already has
  one), so the client's session carries on without knowing;
- the ids of the client's requests not answered yet: when the daemon dies, each gets exactly one
  JSON-RPC error naming the restart and saying to retry. They are not re-sent: the relay cannot
  tell whether a write reached the database before the daemon died;
- the ids of the daemon's own requests to the client: the client's late answers to a dead
  daemon's questions are dropped rather than confuse the new one.

Requests the client sends while the relay reconnects wait for the new daemon, then go on.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
from collections.abc import Callable
from typing import Any

from memwarden.daemon.client import DaemonClient, DaemonUnavailable

CHUNK = 65536
# JSON-RPC's range for implementation-defined server errors (-32000 to -32099).
DAEMON_RESTARTED = -32000
REPLAY_TIMEOUT_S = 60.0  # a new daemon may migrate the database before it answers
RECONNECT_ATTEMPTS = 3

Reconnect = Callable[[], DaemonClient]


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _message(line: bytes) -> dict[str, Any] | None:
    """The JSON-RPC message on ``line``, or None for anything else (forwarded untracked)."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None


def _key(request_id: object) -> str:
    # 1 and "1" are different JSON-RPC ids: key them by their JSON text.
    return json.dumps(request_id)


def _take_line(buffer: bytearray) -> bytes | None:
    end = buffer.find(b"\n")
    if end < 0:
        return None
    line = bytes(buffer[: end + 1])
    del buffer[: end + 1]
    return line


def restart_error(request_id: object, pid: object) -> bytes:
    """The one answer a request in flight gets when the daemon dies under it."""
    error = {
        "code": DAEMON_RESTARTED,
        "message": (
            f"the memwarden daemon (pid {pid}) stopped while this request was in flight and a new "
            "one is taking over: the request got no answer and may or may not have taken effect; "
            "retry it"
        ),
        "data": {"reason": "daemon_restarted", "retry": True},
    }
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode("utf-8") + b"\n"


class DaemonLost(Exception):
    """The daemon connection ended while the relay replayed the session to it."""


class McpRelay:
    """One MCP client's stdio session relayed to the daemon, across daemon restarts."""

    def __init__(
        self, client: DaemonClient, reconnect: Reconnect | None, *, stdin_fd: int = 0, stdout_fd: int = 1
    ) -> None:
        self._client = client
        self._reconnect = reconnect
        self._stdin_fd = stdin_fd
        self._stdout_fd = stdout_fd
        self._state = threading.Condition()
        self._ready = True  # False from the daemon's death until a new one has the session
        self._wanted = False  # the client sent something while no daemon was attached
        self._closed = False
        self._initialize: bytes | None = None
        self._initialize_key: str | None = None
        self._initialize_answered = False
        self._initialized: bytes | None = None
        self._waiting: dict[str, object] = {}  # the client's unanswered requests: key -> id
        self._daemon_asks: set[str] = set()  # the daemon's unanswered requests to the client
        self._stale_asks: set[str] = set()  # ... asked by a daemon that has since died
        self._client_done = threading.Event()
        self.restarts = 0

    # -- client -> daemon (a thread) ---------------------------------------------------------

    def _upstream(self) -> None:
        buffer = bytearray()
        try:
            while chunk := os.read(self._stdin_fd, CHUNK):
                buffer += chunk
                while (line := _take_line(buffer)) is not None:
                    self._from_client(line)
            if buffer:
                self._from_client(bytes(buffer))  # a last message without its newline
        except OSError:
            pass  # stdin broke: the client is gone
        with self._state:
            self._client_done.set()
            self._state.notify_all()
            sock = self._client.sock
        try:
            sock.shutdown(socket.SHUT_WR)  # the daemon ends the session, then closes
        except OSError:
            pass

    def _from_client(self, line: bytes) -> None:
        message = _message(line)
        with self._state:
            while not self._ready and not self._closed:
                self._wanted = True
                self._state.notify_all()
                self._state.wait()
            if self._closed:
                return
            if message is not None and not self._note_from_client(line, message):
                return
            sock = self._client.sock
        try:
            sock.sendall(line)
        except OSError:
            pass  # the daemon died: the downstream loop sees it and answers this request

    def _note_from_client(self, line: bytes, message: dict[str, Any]) -> bool:
        """Remember what a new daemon would need; False to drop the line (holding the lock)."""
        method, has_id = message.get("method"), "id" in message
        if isinstance(method, str) and has_id:
            key = _key(message["id"])
            self._waiting[key] = message["id"]
            if method == "initialize":
                self._initialize, self._initialize_key = line, key
                self._initialize_answered = False
        elif method == "notifications/initialized":
            self._initialized = line
        elif method is None and has_id:  # the client's answer to a daemon's request
            key = _key(message["id"])
            if key in self._stale_asks:
                self._stale_asks.discard(key)
                return False
            self._daemon_asks.discard(key)
        return True

    # -- daemon -> client (the calling thread) -----------------------------------------------

    def run(self) -> int:
        """Relay until the MCP client closes stdin (0), or no daemon can be had again (1)."""
        threading.Thread(target=self._upstream, name="memwarden-relay", daemon=True).start()
        buffer = bytearray(self._client.pending)
        self._client.pending.clear()
        try:
            while True:
                while (line := _take_line(buffer)) is not None:
                    self._to_client(line)
                try:
                    chunk = self._client.sock.recv(CHUNK)
                except OSError:
                    chunk = b""
                if chunk:
                    buffer += chunk
                    continue
                if self._client_done.is_set() or self._reconnect is None:
                    break
                rest = self._restart()
                if rest is None:
                    return 1
                buffer = rest
                if self._client_done.is_set():
                    break
        except OSError:
            pass  # stdout closed: the client is gone
        finally:
            with self._state:
                self._closed = True
                self._state.notify_all()
            self._client.close()
        if self._client_done.is_set():
            return 0
        print("memwarden: the daemon closed the connection", file=sys.stderr)
        return 1

    def _to_client(self, line: bytes) -> None:
        message = _message(line)
        if message is not None and "id" in message:
            with self._state:
                key = _key(message["id"])
                if "method" in message:
                    self._daemon_asks.add(key)
                elif self._waiting.pop(key, None) is not None and key == self._initialize_key:
                    self._initialize_answered = "result" in message
        _write_all(self._stdout_fd, line)

    def _restart(self) -> bytearray | None:
        """Answer what was in flight, attach to a new daemon and replay the session to it; the
        bytes it sent past the replay, or None when no daemon could be had (said on stderr)."""
        pid = self._client.info.get("pid")
        with self._state:
            self._ready = False
            in_flight = list(self._waiting.values())
            self._waiting.clear()
            self._stale_asks |= self._daemon_asks
            self._daemon_asks.clear()
            replay = [self._initialize] if self._initialize_answered and self._initialize else []
            if replay and self._initialized is not None:
                replay.append(self._initialized)
        for request_id in in_flight:
            _write_all(self._stdout_fd, restart_error(request_id, pid))
        self._client.close()
        # A new daemon is found or started when the client next sends something, not at once:
        # after `memwarden daemon stop` the daemon stays stopped until a client needs it.
        with self._state:
            while not self._wanted and not self._client_done.is_set():
                self._state.wait()
            self._wanted = False
        if self._client_done.is_set():
            return bytearray()
        print(f"memwarden: the daemon (pid {pid}) ended; finding or starting a new one", file=sys.stderr)
        assert self._reconnect is not None
        for attempt in range(1, RECONNECT_ATTEMPTS + 1):
            try:
                self._client = self._reconnect()
                rest = self._replay(replay)
            except (DaemonUnavailable, DaemonLost) as exc:
                self._client.close()
                if attempt < RECONNECT_ATTEMPTS and isinstance(exc, DaemonLost):
                    continue  # the new daemon died too (killed again): find another
                print(f"memwarden: no daemon to relay to ({exc}); restart the MCP client", file=sys.stderr)
                return None
            break
        with self._state:
            self._ready = True
            self._state.notify_all()
        self.restarts += 1
        print(
            f"memwarden: now relaying to the daemon pid {self._client.info.get('pid')}; "
            "the MCP session carries on",
            file=sys.stderr,
        )
        return rest

    def _replay(self, lines: list[bytes]) -> bytearray:
        """Send the client's ``initialize`` and wait for its answer (kept from the client), then
        ``notifications/initialized``; the bytes read past the answer."""
        import time

        buffer = bytearray(self._client.pending)
        self._client.pending.clear()
        sock = self._client.sock
        sock.settimeout(None)
        if not lines:
            return buffer
        deadline = time.monotonic() + REPLAY_TIMEOUT_S
        try:
            sock.sendall(lines[0])
            while True:
                while (line := _take_line(buffer)) is not None:
                    message = _message(line)
                    if (
                        message is not None
                        and "method" not in message
                        and _key(message.get("id")) == self._initialize_key
                    ):
                        if "result" not in message:
                            raise DaemonUnavailable(f"the new daemon refused the session: {line[:200]!r}")
                        for later in lines[1:]:
                            sock.sendall(later)
                        return buffer
                    self._to_client(line)
                sock.settimeout(max(deadline - time.monotonic(), 0.001))
                chunk = sock.recv(CHUNK)
                if not chunk:
                    raise DaemonLost("the new daemon closed the connection")
                buffer += chunk
        except TimeoutError:
            raise DaemonUnavailable("the new daemon did not answer the session's initialize") from None
        except OSError as exc:
            raise DaemonLost(f"the new daemon connection failed ({exc})") from None
        finally:
            sock.settimeout(None)


def relay_stdio(
    client: DaemonClient, stdin_fd: int = 0, stdout_fd: int = 1, *, reconnect: Reconnect | None = None
) -> int:
    """Relay until the MCP client closes stdin (0) or the daemon is lost for good (1).

    With ``reconnect`` (how to attach to the daemon again, starting one if needed) a daemon that
    dies is replaced and the session replayed to it; without it the relay ends with the daemon.
    """
    client.sock.settimeout(None)
    return McpRelay(client, reconnect, stdin_fd=stdin_fd, stdout_fd=stdout_fd).run()
