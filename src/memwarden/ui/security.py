"""The dashboard's own checks on top of the HTTP security layer: who is logged in (and, on
Linux, that the request comes from the local user the session belongs to: browsers send a
127.0.0.1 cookie to every port, another user's server included), that a server without a token
answers only its own user (``OwnUserOnly``, as ``http.auth.BearerAuth`` does for the API), the
CSRF token of every state-changing request, same-origin POSTs, and the response headers (a
Content-Security-Policy that allows no inline script, no framing, no referrer, no caching)."""

from __future__ import annotations

import logging
import os
from urllib.parse import quote, urlsplit

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memwarden.peer import client_owner, describe, trusted
from memwarden.ui.sessions import Session, SessionStore, csrf_matches

logger = logging.getLogger(__name__)

COOKIE = "memwarden_session"
LOGIN_COOKIE = "memwarden_login"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
CSP = (
    "default-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",  # "no-referrer" makes Chromium send Origin: null on POST
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}


def path_segment(value: object) -> str:
    """``value`` as one segment of a URL path (``/``, ``?``, ``#`` and the rest quoted): an id
    written by a foreign writer cannot add a query or point a link below another route."""
    return quote(str(value), safe="")


def secure(response: Response) -> Response:
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def same_origin(request: Request) -> bool:
    """A POST from a page must come from this server's own origin (scheme, host and port).

    Browsers send ``Origin`` on every POST; a request without one (a script, curl) still needs
    the session cookie and the CSRF token, which only a page of this origin can read.
    """
    origin = request.headers.get("origin")
    if origin is None:
        return True
    parts = urlsplit(origin)
    host = request.headers.get("host", "")
    return parts.scheme == request.url.scheme and parts.netloc.lower() == host.lower()


PEER_KEY = "memwarden.peer_uid"


def peer_of(scope: Scope) -> int | None:
    """The local user at the client end of this request's connection (``peer.client_owner``:
    None when it cannot be told), asked of the kernel once per request."""
    if PEER_KEY not in scope:
        scope[PEER_KEY] = client_owner(scope)
    uid: int | None = scope[PEER_KEY]
    return uid


def own_user(request: Request) -> bool:
    """Whether this request comes from the user running the server, or root (``peer.trusted``)."""
    return trusted(peer_of(request.scope))


def session_of(request: Request, sessions: SessionStore) -> Session | None:
    """The session of this request's cookie, if it is live and this request's local user is
    the one it belongs to (``SessionStore.get``)."""
    sid = request.cookies.get(COOKIE)
    return sessions.get(sid, peer_uid=peer_of(request.scope)) if sid else None


def login_uid(request: Request) -> int | None:
    """The local user logging in with this request (for ``SessionStore.start(peer_uid=...)``)."""
    uid = peer_of(request.scope)
    return None if uid is None or uid < 0 else uid


class OwnUserOnly:
    """A dashboard without any token answers only the user running the server (and root), as
    the API does (``http.auth.BearerAuth``): on Linux, another local user's request gets 403
    before any route runs, the login page, the one-time link and the static files included, so
    a link they got hold of is not spent; a session cookie they send ends that session (it has
    leaked). Where the user cannot be told (macOS, Windows, in-process tests) nothing changes."""

    def __init__(self, app: ASGIApp, sessions: SessionStore) -> None:
        self.app = app
        self.sessions = sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            uid = peer_of(scope)
            if not trusted(uid):
                logger.warning("refused a dashboard request from %s: this server has no token", describe(uid))
                self.sessions.end(Request(scope).cookies.get(COOKIE))
                refusal = PlainTextResponse(
                    f"refused: this memwarden server has no token, so its dashboard answers only the user "
                    f"running it (user id {os.getuid()}), not {describe(uid)}: run `memwarden ui` as that "
                    "user, or configure MEMWARDEN_HTTP_TOKEN (or MEMWARDEN_TOKENS_FILE) on the server and "
                    "log in with a token",
                    status_code=403,
                )
                await secure(refusal)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class SecureHeaders:
    """The headers of ``secure`` on every dashboard response, those no handler builds included:
    Starlette's own 404 and 405 answers and the static files went out without them (no
    ``nosniff``, no CSP, no framing rule). A header a response already sets is kept. Static files
    may be cached (they hold no data), so they get every header but ``cache-control``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        static = str(scope.get("path", "")).startswith("/ui/static/")
        wanted = [
            (k.encode(), v.encode()) for k, v in HEADERS.items() if not (static and k == "cache-control")
        ]

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                have = {k.lower() for k, _ in message.get("headers", [])}
                message["headers"] = [
                    *message.get("headers", []),
                    *[(k, v) for k, v in wanted if k not in have],
                ]
            await send(message)

        await self.app(scope, receive, send_secured)


async def csrf_ok(request: Request, session: Session) -> bool:
    sent = request.headers.get(CSRF_HEADER)
    if sent is None:
        form = await request.form()
        value = form.get(CSRF_FIELD)
        sent = value if isinstance(value, str) else None
    return csrf_matches(session, sent)


def set_session_cookie(response: Response, sid: str, *, secure_only: bool) -> None:
    response.set_cookie(COOKIE, sid, httponly=True, samesite="strict", secure=secure_only, path="/ui")
