"""The dashboard's own checks on top of the HTTP security layer: who is logged in (and, on
Linux, that the request comes from the local user the session belongs to: browsers send a
127.0.0.1 cookie to every port, another user's server included), the CSRF token of every
state-changing request, same-origin POSTs, and the response headers (a Content-Security-Policy
that allows no inline script, no framing, no referrer, no caching)."""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response

from memwarden.peer import client_owner
from memwarden.ui.sessions import Session, SessionStore, csrf_matches

COOKIE = "memwarden_session"
LOGIN_COOKIE = "memwarden_login"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
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


def session_of(request: Request, sessions: SessionStore) -> Session | None:
    """The session of this request's cookie, if it is live and this request's local user is
    the one it belongs to (``SessionStore.get``)."""
    sid = request.cookies.get(COOKIE)
    return sessions.get(sid, peer_uid=client_owner(request.scope)) if sid else None


def login_uid(request: Request) -> int | None:
    """The local user logging in with this request (for ``SessionStore.start(peer_uid=...)``)."""
    uid = client_owner(request.scope)
    return None if uid is None or uid < 0 else uid


async def csrf_ok(request: Request, session: Session) -> bool:
    sent = request.headers.get(CSRF_HEADER)
    if sent is None:
        form = await request.form()
        value = form.get(CSRF_FIELD)
        sent = value if isinstance(value, str) else None
    return csrf_matches(session, sent)


def set_session_cookie(response: Response, sid: str, *, secure_only: bool) -> None:
    response.set_cookie(COOKIE, sid, httponly=True, samesite="strict", secure=secure_only, path="/ui")
