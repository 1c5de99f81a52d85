"""MCP sessions belong to the caller that opened them.

The Streamable HTTP transport names a session by the ``mcp-session-id`` its first answer sets;
the SDK takes any request that carries a known id as part of that session. Without a binding,
a caller holding another token (another actor) who learns a session id (it is logged at INFO)
could send requests into it or end it with ``DELETE``. ``SessionBinding`` sits behind the
bearer check: it records which actor a session was opened by, from the answer that named it,
and answers ``404`` (as for an unknown session, telling nothing) to a request of any other
actor carrying that id. A server without tokens has one caller, so nothing changes there.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import MutableMapping
from typing import Any

from starlette.types import ASGIApp, Receive, Scope, Send

from memwarden.models import CALLER_SCOPE_KEY

SESSION_HEADER = b"mcp-session-id"
#: Sessions remembered; the oldest binding is dropped past this (the SDK ends idle sessions
#: long before a server sees this many).
MAX_SESSIONS = 10_000


class SessionBinding:
    """ASGI middleware: a request may use an MCP session only as the actor that opened it."""

    def __init__(self, app: ASGIApp, *, max_sessions: int = MAX_SESSIONS) -> None:
        self.app = app
        self.max_sessions = max_sessions
        self.owners: OrderedDict[str, str] = OrderedDict()

    @staticmethod
    def _actor(scope: Scope) -> str:
        caller = scope.get(CALLER_SCOPE_KEY)
        return "" if caller is None else f"{caller.actor}"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == SESSION_HEADER), None)
        actor = self._actor(scope)
        if sent is not None and sent in self.owners and self.owners[sent] != actor:
            await _not_found(send)
            return

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
                    self.owners[named] = actor
                    while len(self.owners) > self.max_sessions:
                        self.owners.popitem(last=False)
            await send(message)

        await self.app(scope, receive, record)
        if scope.get("method") == "DELETE" and sent is not None:
            self.owners.pop(sent, None)


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


__all__ = ["SessionBinding"]
