"""Bearer-token authentication for the HTTP server, as a plain ASGI middleware.

A request to any path but ``/healthz`` needs ``Authorization: Bearer <token>`` when tokens are
configured (``MEMWARDEN_HTTP_TOKEN`` and/or ``MEMWARDEN_TOKENS_FILE``). Tokens are compared by
SHA-256 digest in constant time and never logged. The token's identity picks the tenant: its
first, or the one named by ``X-Memwarden-Tenant`` when the token lists it (403 otherwise). The
resolved caller is put in the ASGI scope for the MCP tools to read.

Wrong tokens are counted per local user (per client address where the user cannot be told,
``token_guesses``): past ten in a minute, that guesser's requests answer 429 with ``Retry-After``
whatever token they carry, so a short MEMWARDEN_HTTP_TOKEN cannot be found by trying, and
another account's guessing does not lock out the server's owner.

Without tokens (the loopback default), every path, ``/healthz`` included, answers only the
server's own user (and root): another user of the machine connecting to the port gets 403 and
a message saying to configure a token. Who connects is read from the kernel (``memwarden.peer``,
Linux only); where it cannot be told (macOS, Windows, an in-process test client) the request
is served as before.
"""

from __future__ import annotations

import hmac
import json
import logging
import math
import os
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from memwarden.govern.identity import Identity, token_digest
from memwarden.models import CALLER_SCOPE_KEY, Caller
from memwarden.peer import client_owner, describe, trusted
from memwarden.rate_limits import OncePerInterval
from memwarden.token_guesses import FailedLogins

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Any, Any], Awaitable[None]]
OPEN_PATHS = frozenset({"/healthz"})
TENANT_HEADER = b"x-memwarden-tenant"
#: Without tokens, the user id of the process connecting (``peer.client_owner``; None when unknown):
#: ``session_binding`` gives each local user its own room for MCP sessions.
PEER_UID_SCOPE_KEY = "memwarden.peer_uid"
logger = logging.getLogger(__name__)

__all__ = [
    "PEER_UID_SCOPE_KEY",
    "BearerAuth",
    "token_digest",
    "unauthorized_reason",
]


def unauthorized_reason(header: str | None) -> tuple[str, str]:
    """Why a request without a known token is refused (``reason``, message), from what the
    client sent alone: nothing, something that is not a bearer token, or a token this server
    does not know. Nothing in it depends on the valid tokens (not even how many or how long),
    so it tells a client what to fix without helping anyone guess."""
    where = "the server's MEMWARDEN_HTTP_TOKEN or a token of its MEMWARDEN_TOKENS_FILE"
    if not header or not header.strip():
        return "token_missing", f"no token sent: send Authorization: Bearer <token>, with {where}"
    if not header.lower().startswith("bearer ") or not header[7:].strip():
        return (
            "not_a_bearer_token",
            f"the Authorization header is not 'Bearer <token>': send Authorization: Bearer <token>, with {where}",
        )
    return (
        "token_mismatch",
        f"the bearer token sent does not match any token of this server: send {where} "
        "(a client with MEMWARDEN_HTTP_TOKEN set sends that one)",
    )


class BearerAuth:
    """Resolve the bearer token of each request to a Caller, or answer 401 / 403."""

    def __init__(self, app: ASGIApp | None, *, tokens: dict[str, Identity | Caller], default: Caller) -> None:
        # Keyed by SHA-256 digest: plaintext tokens are not kept in memory longer than needed.
        self.app = app
        self.tokens = {
            digest: who if isinstance(who, Identity) else Identity(who.actor, (who.tenant,))
            for digest, who in tokens.items()
        }
        self.default = default
        # Another local user can send requests as fast as it likes: say so once a minute per user.
        self._refusals = OncePerInterval(logger)
        self.guesses = FailedLogins()

    def identify(self, header: str | None) -> Identity | None:
        if not header or not header.lower().startswith("bearer "):
            return None
        digest = token_digest(header[7:].strip())
        found = None
        for known, identity in self.tokens.items():
            if hmac.compare_digest(known, digest):
                found = identity
        return found

    def resolve(self, header: str | None, tenant: str | None = None) -> Caller | None:
        """The caller for this Authorization header (and requested tenant), or None."""
        if not self.tokens:
            return self.default if tenant in (None, self.default.tenant) else None
        identity = self.identify(header)
        if identity is None:
            return None
        if tenant is None:
            return Caller(actor=identity.actor, tenant=identity.tenants[0])
        return Caller(actor=identity.actor, tenant=tenant) if tenant in identity.tenants else None

    @staticmethod
    def guesser(scope: Scope) -> str:
        """Who is trying tokens: the local user where it can be told, else the client address."""
        uid = client_owner(scope)
        if uid is not None:
            return f"uid:{uid}"
        client = scope.get("client")
        return f"addr:{client[0] if client else ''}"

    def guess_wait_s(self, scope: Scope) -> int:
        """Whole seconds before this request's sender may try a token again (0: now)."""
        if not self.guesses.any():
            return 0
        wait = self.guesses.wait_s(self.guesser(scope))
        return max(1, math.ceil(wait)) if wait > 0 else 0

    def wrong_token(self, scope: Scope) -> None:
        """Count a wrong (or missing) token against this request's sender."""
        who = self.guesser(scope)
        self.guesses.failed(who)
        if self.guesses.wait_s(who) > 0:
            self._refusals.warn(
                f"guess:{who}",
                "refused HTTP requests from %s for a minute: too many wrong tokens (%d in the last minute)",
                who,
            )

    async def _refuse(
        self, send: Any, status: int, error: str, message: str, reason: str = "", retry_after: int = 0
    ) -> None:
        headers = [(b"content-type", b"application/json")]
        if status == 401:
            headers.append((b"www-authenticate", b'Bearer realm="memwarden"'))
        if retry_after:
            headers.append((b"retry-after", str(retry_after).encode()))
        await send({"type": "http.response.start", "status": status, "headers": headers})
        body: dict[str, str] = {"error": error, "message": message}
        if reason:
            body["reason"] = reason
        await send({"type": "http.response.body", "body": json.dumps(body).encode()})

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if self.app is None:
            raise RuntimeError("BearerAuth has no application to pass requests to (see guard.protect)")
        if scope["type"] == "http" and not self.tokens:
            uid = client_owner(scope)
            scope[PEER_UID_SCOPE_KEY] = uid
            if not trusted(uid):
                self._refusals.warn(
                    f"uid:{uid}",
                    "refused HTTP requests from %s: this server has no token (%d in the last minute)",
                    describe(uid),
                )
                await self._refuse(
                    send,
                    403,
                    "forbidden",
                    f"this memwarden server has no token, so it answers only the user running it "
                    f"(user id {os.getuid()}), not {describe(uid)}: configure MEMWARDEN_HTTP_TOKEN "
                    "(or MEMWARDEN_TOKENS_FILE) on the server and send Authorization: Bearer <token>",
                )
                return
        if scope["type"] != "http" or scope.get("path") in OPEN_PATHS:
            await self.app(scope, receive, send)
            return
        header = tenant = None
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                header = value.decode("latin-1")
            elif name == TENANT_HEADER:
                tenant = value.decode("utf-8", "replace").strip()
        if self.tokens:
            wait = self.guess_wait_s(scope)
            if wait:
                await self._refuse(
                    send,
                    429,
                    "too_many_wrong_tokens",
                    f"too many wrong tokens from here in the last minute: wait {wait} s, then send "
                    "the right one (the server's MEMWARDEN_HTTP_TOKEN or a token of its MEMWARDEN_TOKENS_FILE)",
                    reason="too_many_wrong_tokens",
                    retry_after=wait,
                )
                return
            if self.identify(header) is None:
                reason, message = unauthorized_reason(header)
                logger.info("refused an HTTP request: %s", reason.replace("_", " "))
                if reason != "token_missing":  # a client that sent nothing is not guessing
                    self.wrong_token(scope)
                await self._refuse(send, 401, "unauthorized", message, reason=reason)
                return
        caller = self.resolve(header, tenant)
        if caller is None:
            logger.info("refused an HTTP request for a tenant its token does not list")
            await self._refuse(
                send, 403, "forbidden", "this token may not act in the tenant named by X-Memwarden-Tenant"
            )
            return
        scope[CALLER_SCOPE_KEY] = caller
        await self.app(scope, receive, send)
