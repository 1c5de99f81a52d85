"""Bearer-token authentication for the HTTP server, as a plain ASGI middleware.

A request to any path but ``/healthz`` needs ``Authorization: Bearer <token>`` when a token is
configured; tokens are compared in constant time and never logged. The resolved caller is put
in the ASGI scope for the MCP tools to read.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from memwarden.errors import ConfigError
from memwarden.models import CALLER_SCOPE_KEY, Caller


Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Any, Any], Awaitable[None]]
OPEN_PATHS = frozenset({"/healthz"})


def parse_bind(address: str) -> tuple[str, int]:
    """``host:port`` (``[v6]:port`` for IPv6) → (host, port), with a clear error otherwise."""
    host, sep, port = address.strip().rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"MEMWARDEN_HTTP={address!r}: expected host:port such as 127.0.0.1:8765")
    return host.strip("[]"), int(port)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class BearerAuth:
    """Resolve the bearer token of each request to a Caller, or answer 401."""

    def __init__(self, app: ASGIApp, *, tokens: dict[str, Caller], default: Caller) -> None:
        # Keyed by SHA-256 digest: plaintext tokens are not kept in memory longer than needed.
        self.app = app
        self.tokens = tokens
        self.default = default

    def resolve(self, header: str | None) -> Caller | None:
        if not self.tokens:
            return self.default
        if not header or not header.lower().startswith("bearer "):
            return None
        digest = token_digest(header[7:].strip())
        for known, caller in self.tokens.items():
            if hmac.compare_digest(known, digest):
                return caller
        return None

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope.get("path") in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        header = None
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                header = value.decode("latin-1")
                break
        caller = self.resolve(header)
        if caller is None:
            body = json.dumps({"error": "unauthorized", "message": "send Authorization: Bearer <token>"}).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"www-authenticate", b'Bearer realm="memwarden"'),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        scope[CALLER_SCOPE_KEY] = caller
        await self.app(scope, receive, send)
