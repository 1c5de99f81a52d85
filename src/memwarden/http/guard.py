"""The one security layer in front of every HTTP route memwarden serves.

``protect(app, policy, auth)`` wraps a whole ASGI application, so every route inside it, now
and later, passes these checks in this order before its handler runs:

1. **Host**: the ``Host`` header names an allowed host (loopback names by default, the bind
   address and this machine's names when bound to one, ``MEMWARDEN_HTTP_ALLOWED_HOSTS``);
   otherwise 421. This is what stops DNS rebinding.
2. **Origin**: a request from a web page (it carries ``Origin``) comes from this server's own
   origin or from one in ``MEMWARDEN_HTTP_ALLOWED_ORIGINS``; otherwise 403. No CORS headers are
   ever sent unless origins are configured; then the CORS preflight is answered for those only.
3. **Bearer token** (``auth.BearerAuth``): when tokens are configured, every path but
   ``/healthz`` needs one (401, or 403 for a tenant the token does not list).
4. **Body**: a request with a body, and every POST, PUT or PATCH, must be
   ``application/json`` in UTF-8 (the dashboard's forms: ``application/x-www-form-urlencoded``) (415); the body is at most ``MEMWARDEN_HTTP_MAX_BODY_BYTES``
   (413, read no further); it is UTF-8, nests at most ``json_limits.MAX_JSON_DEPTH`` levels and
   holds no lone surrogate escape (400). The checked body is handed on unchanged. The body must
   arrive within ``BODY_TIMEOUT_S``, extended by a second for every ``BODY_MIN_RATE`` bytes that
   came (408, and the connection is closed): a stalled upload cannot hold a connection forever.

Refusals are JSON, ``{"error": code, "message": text}``; a refused request never reaches a
handler. WebSocket connections are refused (no route uses them).

How a new route is protected: add it to the application that ``http.app.build_http_app``
builds (a ``Route`` or ``Mount`` in its route list); it is behind every check above with no
further code. The dashboard under ``/ui`` logs people in itself (session cookie and CSRF token:
browsers send no bearer token), so it gets steps 1, 2 and 4 with HTML form bodies
(``application/x-www-form-urlencoded``) instead of JSON: ``HttpGuard`` wraps the whole server
and ``guard_routes`` each group of routes. A separate application (a page served on its own)
is protected by ``protect(app, GuardPolicy.from_settings(settings, bind_host), auth, media=…)``.
``tests/http/test_http_guard.py`` enumerates the routes of the built app and fails if any answers a
foreign Host, a foreign Origin, an oversized or non-JSON body, or a missing token with
anything but a refusal. A route that must take another body type (a form, an upload) is a
deliberate change to step 4 here, not an exception in the route.
"""

from __future__ import annotations

import json
import logging
import socket
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import anyio

from memwarden.errors import ConfigError
from memwarden.http.auth import ASGIApp, BearerAuth, Scope
from memwarden.json_limits import MAX_JSON_DEPTH, json_problem
from memwarden.net import is_loopback

__all__ = ["BodyGuard", "GuardPolicy", "HttpGuard", "guard_routes", "protect"]

logger = logging.getLogger(__name__)
BODY_TIMEOUT_S = 10.0
"""Time a request body has to arrive, plus a second per ``BODY_MIN_RATE`` bytes received."""
BODY_MIN_RATE = 64 * 1024
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_BINDS = ("0.0.0.0", "::", "")
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
CORS_HEADERS = [
    "authorization",
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
    "x-memwarden-tenant",
]


def split_host(value: str) -> tuple[str, int | None]:
    """``name:port`` / ``[v6]:port`` / ``name`` → (lower-case name without brackets, port)."""
    value = value.strip().lower()
    if value.startswith("["):
        name, _, rest = value[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ""
    elif value.count(":") == 1:
        name, _, port = value.partition(":")
    else:
        name, port = value, ""
    return name.rstrip("."), int(port) if port.isdigit() else None


def _origin(value: str) -> tuple[str, str, int | None]:
    """An origin as (scheme, host, port or the scheme's default)."""
    parts = urlsplit(value.strip().lower())
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is None:
        port = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").rstrip("."), port


def machine_names() -> set[str]:
    """This machine's host name and the addresses it resolves to (for a wildcard bind)."""
    names: set[str] = set()
    try:
        hostname = socket.gethostname().lower()
    except OSError:
        return names
    names.update({hostname, hostname.split(".")[0]})
    try:
        infos = socket.getaddrinfo(hostname, None)
    except OSError:
        infos = []
    names.update(str(info[4][0]).lower() for info in infos)
    return {name for name in names if name}


@dataclass(frozen=True)
class GuardPolicy:
    """What the layer allows. ``allowed_hosts`` holds names without ports (``*``: any host)."""

    allowed_hosts: frozenset[str]
    allowed_origins: frozenset[str] = frozenset()  # normalized: scheme://host:port
    cors_origins: tuple[str, ...] = ()  # as configured, for the CORS answer (browsers send these)
    max_body_bytes: int = 1024 * 1024
    max_json_depth: int = MAX_JSON_DEPTH
    body_timeout_s: float = BODY_TIMEOUT_S
    # Bound to every interface: a Host naming the address the connection arrived on is the
    # machine itself (a rebinding attacker's page would send its own domain name instead).
    allow_local_address: bool = False

    @classmethod
    def from_settings(
        cls, settings: Any, bind_host: str | None = None, *, tokens: bool = False
    ) -> GuardPolicy:
        hosts = {*LOOPBACK_NAMES, *(split_host(h)[0] for h in _split(settings.http_allowed_hosts))}
        wildcard = bind_host is not None and bind_host.strip("[]") in WILDCARD_BINDS
        if bind_host is not None and not wildcard:
            hosts.add(split_host(bind_host if ":" not in bind_host else f"[{bind_host.strip('[]')}]")[0])
        if wildcard:
            hosts |= machine_names()
        if "*" in hosts and not tokens:
            raise ConfigError(
                "MEMWARDEN_HTTP_ALLOWED_HOSTS=* accepts any Host header, which only a bearer token "
                "makes safe: set MEMWARDEN_HTTP_TOKEN or MEMWARDEN_TOKENS_FILE, or list the host names"
            )
        origins, configured = set(), []
        for origin in _split(settings.http_allowed_origins):
            scheme, host, port = _origin(origin)
            if scheme not in ("http", "https") or not host or origin.strip().rstrip("/").count("/") != 2:
                raise ConfigError(
                    f"MEMWARDEN_HTTP_ALLOWED_ORIGINS: {origin!r} is not an origin such as "
                    "https://tools.example.com or http://localhost:3000"
                )
            origins.add(f"{scheme}://{host}:{port}")
            configured.append(origin.strip().rstrip("/").lower())
        return cls(
            frozenset(hosts),
            frozenset(origins),
            tuple(configured),
            int(settings.http_max_body_bytes),
            allow_local_address=wildcard,
        )

    def host_allowed(self, host: str, scope: Scope) -> bool:
        name, _ = split_host(host)
        if not name:
            return False
        if "*" in self.allowed_hosts or name in self.allowed_hosts:
            return True
        server = scope.get("server")
        return self.allow_local_address and server is not None and name == str(server[0]).lower()

    def origin_allowed(self, origin: str, host: str) -> bool:
        scheme, name, port = _origin(origin)
        if scheme not in ("http", "https") or not name:
            return False  # "null" (a sandboxed frame, a file://) and anything but a web origin
        if f"{scheme}://{name}:{port}" in self.allowed_origins:
            return True
        own_name, own_port = split_host(host)
        return name == own_name and port == (own_port or {"http": 80, "https": 443}[scheme])


def _split(value: str) -> Iterable[str]:
    return (part.strip() for part in value.split(",") if part.strip())


async def _refuse(send: Any, status: int, error: str, message: str, *, close: bool = False) -> None:
    body = json.dumps({"error": error, "message": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if close:  # the rest of the request was not read: the connection cannot carry another
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _headers(scope: Scope) -> dict[str, str]:
    found: dict[str, str] = {}
    for name, value in scope.get("headers", []):
        key = name.decode("latin-1").lower()
        if key not in found:  # the first of repeated headers, as the handlers read them
            found[key] = value.decode("latin-1")
    return found


class HttpGuard:
    """Host and Origin checks and the CORS answer when configured, in front of ``app``."""

    def __init__(self, app: ASGIApp, policy: GuardPolicy) -> None:
        self.app = app
        self.policy = policy
        inner: ASGIApp = app
        if policy.allowed_origins:
            from starlette.middleware.cors import CORSMiddleware

            inner = CORSMiddleware(
                inner,
                allow_origins=list(policy.cors_origins),
                allow_methods=["GET", "POST", "DELETE"],
                allow_headers=CORS_HEADERS,
                expose_headers=["mcp-session-id"],
            )
        self.checked = inner

    def __getattr__(self, name: str) -> Any:
        # Transparent to attribute reads, like the application it wraps (its ``state``, the
        # dashboard's sessions), so wrapping a route group changes nothing for its callers.
        if name == "app":
            raise AttributeError(name)
        return getattr(self.app, name)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008})
            return
        headers = _headers(scope)
        host = headers.get("host", "")
        if not self.policy.host_allowed(host, scope):
            logger.info("refused an HTTP request for a Host that is not allowed")
            await _refuse(
                send,
                421,
                "host_not_allowed",
                f"Host {host[:100]!r} is not one this server answers to; add its name to "
                "MEMWARDEN_HTTP_ALLOWED_HOSTS if it should be",
            )
            return
        origin = headers.get("origin")
        if origin is not None and not self.policy.origin_allowed(origin, host):
            logger.info("refused an HTTP request from a web origin that is not allowed")
            await _refuse(
                send,
                403,
                "origin_not_allowed",
                f"requests from the web page at {origin[:100]!r} are not allowed; list its origin in "
                "MEMWARDEN_HTTP_ALLOWED_ORIGINS if it should be",
            )
            return
        await self.checked(scope, receive, send)


JSON = ("application/json",)
FORM = ("application/x-www-form-urlencoded",)


class BodyGuard:
    """Content type, size, UTF-8, depth and surrogate checks; the body is then replayed.

    ``media``: the body types the wrapped routes take (JSON for the API; the dashboard's HTML
    forms post ``application/x-www-form-urlencoded``). Depth and surrogates are checked on JSON."""

    def __init__(self, app: ASGIApp, policy: GuardPolicy, media: tuple[str, ...] = JSON) -> None:
        self.app = app
        self.policy = policy
        self.media = media

    def __getattr__(self, name: str) -> Any:
        # Transparent to attribute reads, like the application it wraps (its ``state``, the
        # dashboard's sessions), so wrapping a route group changes nothing for its callers.
        if name == "app":
            raise AttributeError(name)
        return getattr(self.app, name)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = _headers(scope)
        declared = headers.get("content-length", "").strip()
        has_body = (declared not in ("", "0")) or "transfer-encoding" in headers
        if scope.get("method", "GET") in BODY_METHODS or has_body:
            media, _, params = headers.get("content-type", "").partition(";")
            charset = (
                params.strip().lower().removeprefix("charset=").strip('"') if params.strip() else "utf-8"
            )
            if media.strip().lower() not in self.media or charset not in ("utf-8", "utf8"):
                await _refuse(
                    send,
                    415,
                    "unsupported_media_type",
                    f"send the body as Content-Type: {' or '.join(self.media)} (UTF-8)",
                )
                return
        if declared and not declared.isdigit():
            await _refuse(send, 400, "invalid_input", "Content-Length is not a number")
            return
        limit = self.policy.max_body_bytes
        if declared.isdigit() and int(declared) > limit:
            await _refuse(
                send,
                413,
                "body_too_large",
                f"the body is larger than {limit} bytes (MEMWARDEN_HTTP_MAX_BODY_BYTES)",
            )
            return
        body = bytearray()
        replay: deque[dict[str, Any]] = deque()
        deadline = anyio.current_time() + self.policy.body_timeout_s
        while has_body:
            with anyio.move_on_after(deadline - anyio.current_time()) as waiting:
                message = await receive()
            if waiting.cancelled_caught:
                logger.info("refused an HTTP request whose body did not arrive in time")
                await _refuse(
                    send,
                    408,
                    "request_timeout",
                    f"the request body did not arrive in time ({len(body)} bytes came; a body has "
                    f"{self.policy.body_timeout_s:g} s plus 1 s per {BODY_MIN_RATE // 1024} KiB): "
                    "send the whole body without pausing",
                    close=True,
                )
                return
            deadline += len(message.get("body", b"")) / BODY_MIN_RATE
            if message["type"] != "http.request":
                replay.append(message)
                break
            body.extend(message.get("body", b""))
            if len(body) > limit:
                await _refuse(
                    send,
                    413,
                    "body_too_large",
                    f"the body is larger than {limit} bytes (MEMWARDEN_HTTP_MAX_BODY_BYTES)",
                )
                return
            if not message.get("more_body", False):
                break
        if body:
            problem = self._problem(
                bytes(body), json_body=headers.get("content-type", "").lower().startswith(JSON)
            )
            if problem is not None:
                await _refuse(send, 400, "invalid_input", problem)
                return
        if has_body:
            replay.appendleft({"type": "http.request", "body": bytes(body), "more_body": False})

        async def replayed() -> Any:
            return replay.popleft() if replay else await receive()

        await self.app(scope, replayed, send)

    def _problem(self, body: bytes, *, json_body: bool) -> str | None:
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as exc:
            return f"the body is not UTF-8 text (byte {exc.start})"
        return json_problem(body, max_depth=self.policy.max_json_depth) if json_body else None


def protect(
    app: ASGIApp, policy: GuardPolicy, auth: BearerAuth | None = None, *, media: tuple[str, ...] = JSON
) -> HttpGuard:
    """``app`` behind the whole layer (see the module docstring): Host, Origin, then the
    bearer check when ``auth`` is given, then the body checks for ``media``."""
    return HttpGuard(guard_routes(app, policy, auth, media=media), policy)


def guard_routes(
    app: ASGIApp, policy: GuardPolicy, auth: BearerAuth | None = None, *, media: tuple[str, ...] = JSON
) -> ASGIApp:
    """The inner part of the layer (bearer, then body checks) for one group of routes; the
    outer part (``HttpGuard``: Host, Origin) wraps the whole server once."""
    inner: ASGIApp = BodyGuard(app, policy, media)
    if auth is not None:
        auth.app = inner
        inner = auth
    return inner


def client_is_loopback(scope: Scope) -> bool:
    """Whether the connection comes from this machine (the socket's peer, not a header)."""
    client = scope.get("client")
    return client is not None and is_loopback(str(client[0]))
