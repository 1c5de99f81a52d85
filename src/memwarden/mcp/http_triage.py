"""JSON-RPC bodies posted to ``/mcp`` answered as the stdio reader answers the same line.

Over Streamable HTTP the SDK answers a body it cannot read with its own words: not JSON gets
``-32700`` without the request's ``id``, a body that is JSON but no JSON-RPC message (``"jsonrpc":
"1.0"``, a method that is not a string, a batch array) ``-32602`` with pydantic's validation text.
``JsonRpcTriage`` runs each POST body through ``mcp.stdio.triage`` first, so ``/mcp`` answers
such a body exactly as stdio and the daemon answer the same line (``-32700`` / ``-32600`` with
the ``id`` read from the text), with HTTP status 400. A malformed JSON-RPC *response*, which stdio
drops (it cannot answer one), gets 400 with ``-32600`` and ``id`` null here, where an answer is
possible; the SDK gave ``-32602`` with pydantic's text. Everything else goes on unchanged. Bodies
that are not UTF-8, nest too deep or hold a lone surrogate never get here: the HTTP security layer
refuses them first (``400 invalid_input``, ``http/guard.py``).
"""

from __future__ import annotations

from typing import Any

from mcp_types import INVALID_REQUEST

from memwarden.mcp.stdio import jsonrpc_error, triage

__all__ = ["JsonRpcTriage"]

DROPPED_RESPONSE = (
    "Invalid Request: a JSON-RPC response (result or error) without a valid jsonrpc and id; dropped"
)


class JsonRpcTriage:
    """ASGI middleware in front of the SDK's Streamable HTTP app, for POSTs to ``path``."""

    def __init__(self, app: Any, path: str = "/mcp") -> None:
        self.app = app
        self.path = path

    def __getattr__(self, name: str) -> Any:
        # Transparent to attribute reads (the Starlette app's ``state``, ``router``).
        if name == "app":
            raise AttributeError(name)
        return getattr(self.app, name)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST" or scope.get("path") != self.path:
            await self.app(scope, receive, send)
            return
        messages = []
        body = bytearray()
        while True:  # the guard has bounded the body's size and time already
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break
            body.extend(message.get("body", b""))
            if not message.get("more_body", False):
                break
        triaged = triage(bytes(body)) if body.strip() else None
        if body.strip() and triaged is None:  # a malformed response, dropped (and counted) by triage
            triaged = True, jsonrpc_error(None, INVALID_REQUEST, DROPPED_RESPONSE)
        if triaged is not None and triaged[0]:
            answer = triaged[1].message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8")
            headers = [(b"content-type", b"application/json"), (b"content-length", str(len(answer)).encode())]
            await send({"type": "http.response.start", "status": 400, "headers": headers})
            await send({"type": "http.response.body", "body": answer})
            return
        replay = [{"type": "http.request", "body": bytes(body), "more_body": False}] + [
            m for m in messages if m["type"] != "http.request"
        ]

        async def replayed() -> Any:
            return replay.pop(0) if replay else await receive()

        await self.app(scope, replayed, send)
