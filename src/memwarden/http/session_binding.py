"""MCP sessions belong to the caller that opened them, and no caller can use up the others' room.

The Streamable HTTP transport names a session by the ``mcp-session-id`` its first answer sets;
the SDK takes any request that carries a known id as part of that session. ``SessionBinding``
sits behind the bearer check and does two things with the sessions it sees opened:

- **Binding.** It records which caller opened each session, from the answer that named it, and
  answers ``404`` (as for an unknown session, telling nothing) to a request of any other caller
  carrying that id: another token (another actor) that learns a session id (it is logged at
  INFO) can neither send requests into it nor end it with ``DELETE``.
- **Room per caller.** The SDK's own cap counts every session of the server: one token opening
  sessions in a loop filled all 10,000 slots and every other tenant's ``initialize`` then got
  503 until the sessions idled out. That cap is off (``mcp.server.streamable_http_app``); here
  each caller holds at most ``MEMWARDEN_HTTP_SESSIONS_PER_CALLER`` open sessions, and opening one
  more ends that caller's least recently used session, never anyone else's: a client that leaks
  sessions hurts only itself. A caller is the token's actor; on a server without tokens, the
  local user connecting (each user id its own room). Sessions also end after
  ``MEMWARDEN_HTTP_SESSION_IDLE_S`` without a request (the SDK's idle timeout). Past
  ``MAX_SESSIONS`` in all (many actors at their caps), the caller holding the most sessions loses
  its least recently used one. Sessions ended for room are logged once a minute per caller.

A caller is its credential, not only its actor's name: a tokens file may give two tokens the same
actor (a bot in two tenants, a token and its replacement), and keyed by the name alone the holder
of one could send requests into, ``DELETE`` or crowd out the other's sessions. With tokens, a
caller is the actor and the SHA-256 of the bearer token it sent (as ``http.auth`` compares it, so
spelling the header differently is the same caller); the log names only the actor.
"""

from __future__ import annotations

import json
import logging
from collections import OrderedDict
from collections.abc import MutableMapping
from typing import Any, Protocol

from starlette.types import ASGIApp, Receive, Scope, Send

from memwarden.http.auth import PEER_UID_SCOPE_KEY, token_digest
from memwarden.models import CALLER_SCOPE_KEY
from memwarden.rate_limits import OncePerInterval

__all__ = ["MAX_SESSIONS", "OpenSessions", "SessionBinding"]

logger = logging.getLogger(__name__)
SESSION_HEADER = b"mcp-session-id"
AUTHORIZATION_HEADER = b"authorization"
#: Open sessions of all callers together; past it the biggest holder loses its oldest.
MAX_SESSIONS = 10_000


class OpenSessions(Protocol):
    """The transport's open sessions (``mcp.server.McpSessions``)."""

    def is_open(self, session_id: str) -> bool: ...

    async def end(self, session_id: str) -> None: ...


class SessionBinding:
    """ASGI middleware: a session is used only by the caller that opened it, within its room."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        sessions: OpenSessions | None = None,
        per_caller: int = 32,
        per_local_user: bool = False,
        max_sessions: int = MAX_SESSIONS,
    ) -> None:
        self.app = app
        self.sessions = sessions
        self.per_caller = per_caller
        self.per_local_user = per_local_user
        self.max_sessions = max_sessions
        self.owners: OrderedDict[str, str] = OrderedDict()  # least recently used first
        self.held: dict[str, OrderedDict[str, None]] = {}  # caller → its sessions, same order
        self._ended = OncePerInterval(logger)

    def _caller(self, scope: Scope) -> str:
        """Who owns the sessions this request opens: shown as the log shows it, then (after a NUL,
        which no actor name holds) the credential that tells two callers of one name apart."""
        caller = scope.get(CALLER_SCOPE_KEY)
        actor = "" if caller is None else f"{caller.actor}"
        if self.per_local_user:
            return f"{actor} (user id {scope.get(PEER_UID_SCOPE_KEY)})"
        header = next((v for k, v in scope.get("headers", []) if k == AUTHORIZATION_HEADER), b"")
        bearer = header.decode("latin-1")
        token = bearer[7:].strip() if bearer[:7].lower() == "bearer " else bearer
        return f"{actor}\0{token_digest(token)}"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == SESSION_HEADER), None)
        caller = self._caller(scope)
        if sent is not None and sent in self.owners:
            if self.owners[sent] != caller:
                await _not_found(send)
                return
            self.owners.move_to_end(sent)
            self.held[caller].move_to_end(sent)
        opened: list[str] = []

        async def record(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start" and sent is None:
                named = next(
                    (
                        v.decode("latin-1")
                        for k, v in message.get("headers", [])
                        if k.lower() == SESSION_HEADER
                    ),
                    None,
                )
                if named is not None and named not in self.owners:
                    self.owners[named] = caller
                    self.held.setdefault(caller, OrderedDict())[named] = None
                    opened.append(named)
            await send(message)

        await self.app(scope, receive, record)
        if scope.get("method") == "DELETE" and sent is not None and self.owners.get(sent) == caller:
            self._forget(sent)
        if opened:
            await self._make_room(caller, keep=opened[0])

    def _forget(self, session_id: str) -> None:
        caller = self.owners.pop(session_id, None)
        if caller is not None:
            mine = self.held.get(caller)
            if mine is not None:
                mine.pop(session_id, None)
                if not mine:
                    del self.held[caller]

    async def _make_room(self, caller: str, *, keep: str) -> None:
        """After ``caller`` opened ``keep``: end its least recently used sessions past its room,
        then, past the server's total, the biggest holder's."""
        mine = self.held.get(caller, OrderedDict())
        if len(mine) > self.per_caller:
            for session_id in [s for s in mine if self.sessions is not None and not self.sessions.is_open(s)]:
                self._forget(session_id)  # ended by the transport (idle, closed) since last seen
        while len(self.held.get(caller, ())) > self.per_caller:
            oldest = next(s for s in self.held[caller] if s != keep)
            await self._end(oldest, caller, f"MEMWARDEN_HTTP_SESSIONS_PER_CALLER={self.per_caller}")
        if len(self.owners) > self.max_sessions:
            for session_id in [
                s for s in self.owners if self.sessions is not None and not self.sessions.is_open(s)
            ]:
                self._forget(session_id)
        while len(self.owners) > self.max_sessions:
            biggest = max(self.held, key=lambda who: len(self.held[who]))
            theirs = next((s for s in self.held[biggest] if s != keep), None)
            if theirs is None:  # every caller holds one session at most: nothing to take back
                return
            await self._end(theirs, biggest, f"{self.max_sessions} sessions in all")

    async def _end(self, session_id: str, caller: str, limit: str) -> None:
        self._forget(session_id)
        if self.sessions is not None:
            await self.sessions.end(session_id)
        self._ended.warn(
            caller,
            "caller %r opened more MCP sessions than it may hold (%s): its least recently used "
            "sessions are being closed (%d in the last minute)",
            caller.split("\0", 1)[0],
            limit,
        )


async def _not_found(send: Send) -> None:
    body = json.dumps({"error": "not_found", "message": "Session not found"}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 404,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
