"""``memwarden serve`` attached to the daemon: copy stdin to the socket and the socket to stdout,
answer the MCP handshake before the daemon is up, and carry the client's MCP session over to a
new daemon when the one it talks to dies.

The MCP client talks to this process exactly as to a stdio server; the messages go unchanged to
the daemon, which runs the MCP session (``mcp/stream.py``). This process imports neither the
MCP SDK nor the model: it stays small however many clients run.

MCP over stdio is one JSON-RPC message per line, so the relay forwards whole lines only (a line
cut short by a dying daemon never reaches the client) and remembers what a new daemon needs:

- the client's handshake request (``initialize``, or the 2026 revision's ``server/discover``)
  and ``notifications/initialized``, replayed to each daemon that takes the session over (its
  answer to the replay is read here, never shown to the client, which already has one), so the
  client's session carries on without knowing. ``initialize`` is waited for before anything
  else goes to the daemon (the session's state); ``server/discover`` is stateless, so its
  answer is read whenever it comes, and only keeps the saved answer fresh;
- the ids of the client's requests sent and not answered yet: when the daemon dies, each gets
  exactly one JSON-RPC error naming the restart and saying to retry. They are not re-sent: the
  relay cannot tell whether a write reached the database before the daemon died;
- the ids of the daemon's own requests to the client: the client's late answers to a dead
  daemon's questions are dropped rather than confuse the new one.

While no daemon is attached (it is starting, or a new one replaces a dead one) the client's
lines wait in a bounded queue and go to the daemon in order once it has the session; a handshake
request with a kept answer (``daemon/handshake.py``: the daemon's answer saved last time, or the
one shipped with the package) is answered at once instead, and replayed to the daemon when it
is up. If no daemon can be had, every queued request gets a JSON-RPC error saying why.
"""

from __future__ import annotations

import os
import sys
import threading

from memwarden.daemon.client import DaemonClient, DaemonUnavailable
from memwarden.daemon.handshake import HANDSHAKE_METHODS, KeptAnswers, handshake_answer
from memwarden.daemon.relay_lines import (
    key_of,
    message_of,
    restart_error,
    shut_write,
    take_line,
    unavailable_error,
    write_all,
)

# Not typing's: a relay imports this module and stays resident for its client's whole session
# (docs/daemon.md, "The relay"); mypy reads it as True.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

    Connect = Callable[[], DaemonClient]

CHUNK = 65536
REPLAY_TIMEOUT_S = 60.0  # a new daemon may migrate the database before it answers
RECONNECT_ATTEMPTS = 3
# What the client may send while no daemon is attached; past it the relay stops reading stdin
# until one is (the client's writes then wait in the pipe).
QUEUE_MAX_BYTES = 8 * 1024 * 1024


class DaemonLost(Exception):
    """The daemon connection ended while the relay replayed the session to it."""


class McpRelay:
    """One MCP client's stdio session relayed to the daemon, across daemon starts and restarts.

    ``client`` is the daemon connection when one is attached at the start; with None, ``connect``
    attaches (starting the daemon) while the relay already reads the client: ``kept`` answers
    the handshake meanwhile.
    """

    def __init__(
        self,
        client: DaemonClient | None,
        reconnect: Connect | None,
        *,
        connect: Connect | None = None,
        kept: KeptAnswers | None = None,
        fallback: Connect | None = None,
        stdin_fd: int = 0,
        stdout_fd: int = 1,
        on_attached: Callable[[DaemonClient], None] | None = None,
    ) -> None:
        self._client = client
        self._connect = connect
        self._fallback = fallback
        self._reconnect = reconnect
        self._kept = kept
        self._on_attached = on_attached
        self._stdin_fd = stdin_fd
        self._stdout_fd = stdout_fd
        self._state = threading.Condition()
        self._ready = client is not None  # a daemon has the session and the queue is sent
        self._closed = False
        self._epoch = 0  # one more for each daemon attached: a flush of an older one stops
        self._queue: list[tuple[bytes, dict[str, Any] | None]] = []
        self._queued_bytes = 0
        self._handshake: bytes | None = None  # the client's initialize / server/discover line
        self._handshake_message: dict[str, Any] | None = None
        self._handshake_key: str | None = None
        self._handshake_answered = False  # the client has an answer (the daemon's or a kept one)
        self._kept_result: dict[str, Any] | None = None  # the kept answer the client got, if any
        self._initialized: bytes | None = None
        self._waiting: dict[str, object] = {}  # the client's requests sent, unanswered: key -> id
        self._daemon_asks: set[str] = set()  # the daemon's unanswered requests to the client
        self._stale_asks: set[str] = set()  # ... asked by a daemon that has since died
        self._client_done = threading.Event()
        self.restarts = 0
        self._initialized_passed = False  # the replay is past the point of sending it
        self._swallow: str | None = None  # id of a replayed server/discover whose answer is ours
        self._out = threading.Lock()  # both threads write whole lines to the client

    # -- client -> daemon (a thread) ---------------------------------------------------------

    def _upstream(self) -> None:
        buffer = bytearray()
        try:
            while chunk := os.read(self._stdin_fd, CHUNK):
                buffer += chunk
                while (line := take_line(buffer)) is not None:
                    self._from_client(line)
            if buffer:
                self._from_client(bytes(buffer))  # a last message without its newline
        except OSError:
            pass  # stdin broke: the client is gone
        with self._state:
            self._client_done.set()
            self._state.notify_all()
            # Sent all: the daemon ends the session, then closes. Not yet (a daemon starting, the
            # queue not sent): the flush that empties the queue closes this side.
            sock = self._client.sock if self._ready and self._client is not None else None
        if sock is not None:
            shut_write(sock)

    def _from_client(self, line: bytes) -> None:
        message = message_of(line)
        answer = None
        with self._state:
            if self._closed or (message is not None and self._is_stale_answer(message)):
                return
            if not self._ready:
                answer = self._hold(line, message)
                sock = None
            else:
                if message is not None:
                    self._note_sent(line, message)
                assert self._client is not None
                sock = self._client.sock
        if answer is not None:
            self._write(answer)
        if sock is not None:
            try:
                sock.sendall(line)
            except OSError:
                pass  # the daemon died: the downstream loop sees it and answers this request

    def _hold(self, line: bytes, message: dict[str, Any] | None) -> bytes | None:
        """No daemon has the session: answer a handshake from a kept answer (the bytes to write),
        keep ``notifications/initialized`` for the replay, queue the rest (holding the lock)."""
        if message is not None and message.get("method") in HANDSHAKE_METHODS and "id" in message:
            result = self._kept.lookup(message) if self._kept is not None else None
            if result is not None:
                self._handshake, self._handshake_message = line, message
                self._handshake_key = key_of(message["id"])
                self._handshake_answered, self._kept_result = True, result
                return handshake_answer(message["id"], result)
        if (
            message is not None
            and message.get("method") == "notifications/initialized"
            and self._handshake_answered
            and not self._initialized_passed
        ):
            self._initialized = line  # the replay sends it right after the handshake's answer
            return None
        self._queue.append((line, message))
        self._queued_bytes += len(line)
        self._state.notify_all()
        while self._queued_bytes > QUEUE_MAX_BYTES and not self._ready and not self._closed:
            self._state.wait()
        return None

    def _is_stale_answer(self, message: dict[str, Any]) -> bool:
        """The client's answer to a request of a daemon that has died since (dropped)."""
        if message.get("method") is None and "id" in message:
            key = key_of(message["id"])
            if key in self._stale_asks:
                self._stale_asks.discard(key)
                return True
            self._daemon_asks.discard(key)
        return False

    def _note_sent(self, line: bytes, message: dict[str, Any]) -> None:
        """Remember what a new daemon would need of a line sent to the daemon (holding the lock)."""
        method = message.get("method")
        if isinstance(method, str) and "id" in message:
            key = key_of(message["id"])
            self._waiting[key] = message["id"]
            if method in HANDSHAKE_METHODS:
                self._handshake, self._handshake_message, self._handshake_key = line, message, key
                self._handshake_answered, self._kept_result = False, None
        elif method == "notifications/initialized":
            self._initialized = line

    def _flush(self, epoch: int) -> None:
        """Send what the client queued to the daemon now attached, in order, then let the client's
        lines go straight through (a thread: the downstream loop reads the answers meanwhile)."""
        while True:
            with self._state:
                if self._epoch != epoch or self._closed or self._client is None:
                    return
                sock = self._client.sock
                if not self._queue:
                    self._ready = True
                    self._state.notify_all()
                    done = self._client_done.is_set()
                    break
                line, message = self._queue.pop(0)
                self._queued_bytes -= len(line)
                self._state.notify_all()
                if message is not None:
                    self._note_sent(line, message)
            try:
                sock.sendall(line)
            except OSError:
                return  # the daemon died: the downstream loop restarts; this line was in flight
        if done:
            shut_write(sock)

    # -- daemon -> client (the calling thread) -----------------------------------------------

    def run(self) -> int:
        """Relay until the MCP client closes stdin (0), or no daemon can be had (1)."""
        threading.Thread(target=self._upstream, name="memwarden-relay", daemon=True).start()
        outcome: bytearray | int
        try:
            if self._client is None:
                assert self._connect is not None
                attached = self._attach(self._connect)
                if isinstance(attached, str) and self._fallback is not None:
                    # When: no daemon could be had after the handshake was answered (MEMWARDEN_DAEMON
                    # =auto). Why: the client must get a server, as when serve waited and then
                    # served in its own process. What it sees: the same session, served cold.
                    print(
                        f"memwarden: serving in a process of its own, not the shared daemon: {attached}",
                        file=sys.stderr,
                    )
                    self._reconnect = None
                    attached = self._attach(self._fallback)
                if isinstance(attached, str):
                    outcome = self._give_up(attached)
                else:
                    outcome = attached
                    if self._on_attached is not None and self._client is not None:
                        self._on_attached(self._client)
            else:
                outcome = bytearray(self._client.pending)
                self._client.pending.clear()
            while isinstance(outcome, bytearray):
                outcome = self._relay_until_lost(outcome)
        except OSError:
            outcome = 0 if self._client_done.is_set() else 1  # stdout closed: the client is gone
        finally:
            with self._state:
                self._closed = True
                self._state.notify_all()
            if self._client is not None:
                self._client.close()
        return outcome

    def _relay_until_lost(self, buffer: bytearray) -> bytearray | int:
        """Copy the daemon's lines to the client until its connection ends; then what ``run`` does
        next: the bytes of the daemon that took over, or the exit code."""
        assert self._client is not None
        while True:
            while (line := take_line(buffer)) is not None:
                self._to_client(line)
            try:
                chunk = self._client.sock.recv(CHUNK)
            except OSError:
                chunk = b""
            if not chunk:
                break
            buffer += chunk
        with self._state:
            finished = self._client_done.is_set() and self._ready
        if finished:
            return 0
        if self._reconnect is None:
            if self._client_done.is_set():
                return 0
            print("memwarden: the daemon closed the connection", file=sys.stderr)
            return 1
        return self._restart()

    def _to_client(self, line: bytes) -> None:
        message = message_of(line)
        handshake = None
        if message is not None and "id" in message:
            with self._state:
                key = key_of(message["id"])
                if "method" not in message and key == self._swallow:
                    self._swallow = None  # the answer to a replayed server/discover: not the client's
                    request = self._handshake_message
                else:
                    request = None
            if request is not None:
                if "result" in message:
                    self._compare_kept(request, message["result"])
                return
            with self._state:
                if "method" in message:
                    self._daemon_asks.add(key)
                elif self._waiting.pop(key, None) is not None and key == self._handshake_key:
                    self._handshake_answered = "result" in message
                    handshake = self._handshake_message
        self._write(line)
        if handshake is not None and message is not None and "result" in message:
            self._keep(handshake, message["result"])

    def _write(self, data: bytes) -> None:
        with self._out:
            write_all(self._stdout_fd, data)

    def _keep(self, request: dict[str, Any], result: object) -> None:
        """Save the daemon's answer to a handshake for the next start (``daemon/handshake.py``)."""
        if self._kept is None:
            return
        try:
            self._kept.remember(request, result)
        except OSError as exc:
            print(f"memwarden: could not save the handshake answer ({exc})", file=sys.stderr)

    def _restart(self) -> bytearray | int:
        """Answer what was in flight, attach to a new daemon and replay the session to it; the
        bytes it sent past the replay, 0 when the client left meanwhile, 1 when no daemon could
        be had (said on stderr, and to each queued request)."""
        assert self._client is not None and self._reconnect is not None
        pid = self._client.info.get("pid")
        with self._state:
            self._ready = False
            self._epoch += 1  # a flush still sending to the dead daemon stops
            in_flight = list(self._waiting.values())
            self._waiting.clear()
            self._stale_asks |= self._daemon_asks
            self._daemon_asks.clear()
            self._swallow = None
        for request_id in in_flight:
            self._write(restart_error(request_id, pid))
        self._client.close()
        # A new daemon is found or started when the client next sends something, not at once:
        # after `memwarden daemon stop` the daemon stays stopped until a client needs it.
        with self._state:
            while not self._queue and not self._client_done.is_set():
                self._state.wait()
            if not self._queue:
                return 0
        print(f"memwarden: the daemon (pid {pid}) ended; finding or starting a new one", file=sys.stderr)
        outcome = self._attach(self._reconnect)
        if isinstance(outcome, str):
            return self._give_up(outcome)
        self.restarts += 1
        assert self._client is not None
        print(
            f"memwarden: now relaying to the daemon pid {self._client.info.get('pid')}; "
            "the MCP session carries on",
            file=sys.stderr,
        )
        return outcome

    def _attach(self, connect: Connect) -> bytearray | str:
        """Attach with ``connect``, replay the session and start sending the queue; the bytes the
        daemon sent past the replay, or why no daemon could be had."""
        reason = "no daemon answered"
        for attempt in range(1, RECONNECT_ATTEMPTS + 1):
            try:
                client = connect()
            except (DaemonUnavailable, OSError) as exc:
                return str(exc)
            with self._state:
                self._client = client
                self._initialized_passed = False
            try:
                rest = self._replay(client)
            except (DaemonUnavailable, DaemonLost) as exc:
                client.close()
                reason = str(exc)
                if attempt < RECONNECT_ATTEMPTS and isinstance(exc, DaemonLost):
                    continue  # the new daemon died too (killed again): find another
                return reason
            with self._state:
                self._epoch += 1
                epoch = self._epoch
            threading.Thread(target=self._flush, args=(epoch,), name="memwarden-flush", daemon=True).start()
            return rest
        return reason

    def _give_up(self, reason: str) -> int:
        """No daemon: each queued request gets an error saying so, and ``serve`` exits 1."""
        with self._state:
            self._closed = True
            queued = [
                message["id"]
                for _, message in self._queue
                if message is not None and isinstance(message.get("method"), str) and "id" in message
            ]
            self._queue.clear()
            self._queued_bytes = 0
            self._state.notify_all()
        for request_id in queued:
            self._write(unavailable_error(request_id, reason))
        print(f"memwarden: no daemon to relay to ({reason}); restart the MCP client", file=sys.stderr)
        return 1

    def _replay(self, client: DaemonClient) -> bytearray:
        """Send the client's handshake request and wait for its answer (kept from the client, which
        has one), then ``notifications/initialized``; the bytes read past the answer. Nothing to
        replay when the client has no answer yet: its handshake is in the queue."""
        import time

        buffer = bytearray(client.pending)
        client.pending.clear()
        sock = client.sock
        sock.settimeout(None)
        with self._state:
            if not self._handshake_answered or self._handshake is None:
                self._initialized_passed = True
                return buffer
            line, key, request = self._handshake, self._handshake_key, self._handshake_message
            if request is not None and request.get("method") == "server/discover":
                # Stateless (each later request carries its own version): nothing waits for the
                # daemon's answer, which is read as it comes to keep the saved one fresh.
                self._swallow = key
                self._initialized_passed = True
                try:
                    sock.sendall(line)
                except OSError as exc:
                    raise DaemonLost(f"the daemon connection failed ({exc})") from None
                return buffer
        deadline = time.monotonic() + REPLAY_TIMEOUT_S
        try:
            sock.sendall(line)
            while True:
                while (got := take_line(buffer)) is not None:
                    message = message_of(got)
                    if message is not None and "method" not in message and key_of(message.get("id")) == key:
                        if "result" not in message:
                            raise DaemonUnavailable(f"the daemon refused the session: {got[:200]!r}")
                        self._compare_kept(request, message["result"])
                        with self._state:
                            if self._initialized is not None:
                                sock.sendall(self._initialized)
                            self._initialized_passed = True
                        return buffer
                    self._to_client(got)
                sock.settimeout(max(deadline - time.monotonic(), 0.001))
                chunk = sock.recv(CHUNK)
                if not chunk:
                    raise DaemonLost("the daemon closed the connection")
                buffer += chunk
        except TimeoutError:
            raise DaemonUnavailable("the daemon did not answer the session's handshake") from None
        except OSError as exc:
            raise DaemonLost(f"the daemon connection failed ({exc})") from None
        finally:
            sock.settimeout(None)

    def _compare_kept(self, request: dict[str, Any] | None, result: object) -> None:
        """The daemon's answer to a replayed handshake: saved for next time, and a kept answer the
        client got that differs from it is said on stderr (the client keeps the one it has)."""
        with self._state:
            given, self._kept_result = self._kept_result, None
        if given is not None and given != result:
            print(
                "memwarden: the kept handshake answer differed from the daemon's; the daemon's is "
                "saved for the next start",
                file=sys.stderr,
            )
        if request is not None:
            self._keep(request, result)


def relay_stdio(
    client: DaemonClient | None,
    stdin_fd: int = 0,
    stdout_fd: int = 1,
    *,
    reconnect: Connect | None = None,
    connect: Connect | None = None,
    kept: KeptAnswers | None = None,
    fallback: Connect | None = None,
    on_attached: Callable[[DaemonClient], None] | None = None,
) -> int:
    """Relay until the MCP client closes stdin (0) or the daemon is lost for good (1).

    With ``client`` None, ``connect`` attaches (starting the daemon) while the client's handshake
    is answered from ``kept`` and its other lines wait; when no daemon can be had, ``fallback``
    (if given) serves the session instead. With ``reconnect`` (how to attach to the
    daemon again, starting one if needed) a daemon that dies is replaced and the session
    replayed to it; without it the relay ends with the daemon.
    """
    if client is not None:
        client.sock.settimeout(None)
    relay = McpRelay(
        client,
        reconnect,
        connect=connect,
        kept=kept,
        fallback=fallback,
        stdin_fd=stdin_fd,
        stdout_fd=stdout_fd,
        on_attached=on_attached,
    )
    return relay.run()
