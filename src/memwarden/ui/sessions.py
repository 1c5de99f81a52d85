"""Dashboard logins: one-time links, sessions and their CSRF tokens, all held in memory.

- A **one-time link** (``/ui/login?ticket=…``) carries a random ticket that works once, within
  ``TICKET_TTL``; ``memwarden ui`` (or the server at start) mints it and prints or opens it.
  Without a configured token it is the only way in, so other local users and other sites
  cannot use the dashboard: they never see the ticket.
- A **token login** exchanges a bearer token (``MEMWARDEN_HTTP_TOKEN`` or an entry of
  ``MEMWARDEN_TOKENS_FILE``) for a session.
- A **session** is a random id in an HttpOnly, SameSite=Strict cookie; it ends after
  ``IDLE`` without a request, after ``LIFETIME`` in any case, and at logout. Each session has
  its own CSRF token, which every state-changing request must send back.
- A session belongs to the **local user** whose browser logged in over loopback: cookies are
  not kept apart by port, so a browser sends this cookie to every server on 127.0.0.1, another
  user's included. Each request's connection names its user (``memwarden.peer``, Linux); the
  session remembers the first one (at login when the caller passes it, else on first use), and
  a request from another user ends it (the cookie has leaked) and is asked to log in again.
  Where the user cannot be told (macOS, Windows, in-process tests) nothing changes.

Tickets, session ids and CSRF tokens are stored only as SHA-256 digests; a restart logs
everyone out.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from memwarden.models import Caller, utcnow

TICKET_TTL = timedelta(minutes=5)
IDLE = timedelta(minutes=30)
LIFETIME = timedelta(hours=12)
MAX_SESSIONS = 1000
# Sessions one actor may hold at once; a new login past it ends that actor's least recently used
# session. Without it one token could log in MAX_SESSIONS times and push everyone else's
# sessions out (the global cap evicts the least recently used, whoever holds it).
MAX_SESSIONS_PER_ACTOR = 20
MAX_TICKETS = 100


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True, slots=True)
class Session:
    """Who is logged in. ``operator``: the local operator (one-time link or the server's own
    token), who sees every tenant's audit rows, the health report and the backups; anyone else
    is confined to ``tenants`` (``caller.tenant`` is the one being viewed)."""

    caller: Caller
    tenants: tuple[str, ...]
    operator: bool
    csrf: str
    started: datetime
    seen: datetime
    peer_uid: int | None = None  # the local user the session belongs to (None: not known yet)


class SessionStore:
    """Sessions and one-time tickets of one server process (thread-safe)."""

    def __init__(
        self,
        clock: Callable[[], datetime] = utcnow,
        *,
        idle: timedelta = IDLE,
        lifetime: timedelta = LIFETIME,
    ) -> None:
        self.clock = clock
        self.idle = idle
        self.lifetime = lifetime
        self._sessions: dict[str, Session] = {}
        self._tickets: dict[str, datetime] = {}
        self._lock = threading.Lock()

    def issue_ticket(self) -> str:
        ticket = secrets.token_urlsafe(32)
        now = self.clock()
        with self._lock:
            self._tickets = {d: t for d, t in self._tickets.items() if t > now}
            if len(self._tickets) >= MAX_TICKETS:
                self._tickets.pop(min(self._tickets, key=self._tickets.__getitem__))
            self._tickets[_digest(ticket)] = now + TICKET_TTL
        return ticket

    def redeem_ticket(self, ticket: str) -> bool:
        """True once for a ticket issued less than TICKET_TTL ago; False ever after."""
        with self._lock:
            expires = self._tickets.pop(_digest(ticket), None)
        return expires is not None and expires > self.clock()

    def ticket_pending(self, ticket: str) -> bool:
        """Whether ``ticket`` can still be redeemed (issued, not used, not expired): what
        ``memwarden ui`` waits on before it removes the login file holding it."""
        with self._lock:
            expires = self._tickets.get(_digest(ticket))
        return expires is not None and expires > self.clock()

    def start(
        self, caller: Caller, tenants: tuple[str, ...], *, operator: bool, peer_uid: int | None = None
    ) -> tuple[str, Session]:
        """A new session: its id (for the cookie) and the session (with its CSRF token).
        ``peer_uid``: the local user who logged in (``peer.client_owner``), when known."""
        sid = secrets.token_urlsafe(32)
        now = self.clock()
        if peer_uid is not None and peer_uid < 0:
            peer_uid = None  # no process held the login's connection: bind on first use
        # Writes made in the session record the dashboard as their route (Memory.source).
        session = Session(
            caller.via("dashboard"), tenants, operator, secrets.token_urlsafe(32), now, now, peer_uid
        )
        with self._lock:
            # One identity: the actor with its tenants (two tokens may share an actor name).
            own = [
                d
                for d, held in self._sessions.items()
                if held.caller.actor == session.caller.actor and held.tenants == session.tenants
            ]
            if len(own) >= MAX_SESSIONS_PER_ACTOR:
                self._sessions.pop(min(own, key=lambda d: self._sessions[d].seen))
            elif len(self._sessions) >= MAX_SESSIONS:
                self._sessions.pop(min(self._sessions, key=lambda d: self._sessions[d].seen))
            self._sessions[_digest(sid)] = session
        return sid, session

    def get(self, sid: str | None, *, peer_uid: int | None = None) -> Session | None:
        """The live session for this cookie value (its idle clock restarts), else None.

        ``peer_uid``: the local user sending it (None: cannot be told). A session is bound to
        the first user that uses it; another user's request ends it (its cookie has leaked), and
        a connection no process holds (``peer.NOT_LISTED``) is refused."""
        if not sid:
            return None
        key, now = _digest(sid), self.clock()
        with self._lock:
            session = self._sessions.get(key)
            if session is None:
                return None
            if now - session.seen > self.idle or now - session.started > self.lifetime:
                del self._sessions[key]
                return None
            if peer_uid is not None and peer_uid < 0:
                return None
            if peer_uid is not None and session.peer_uid is not None and peer_uid != session.peer_uid:
                del self._sessions[key]
                return None
            if peer_uid is not None and session.peer_uid is None:
                session = replace(session, peer_uid=peer_uid)
            session = replace(session, seen=now)
            self._sessions[key] = session
        return session

    def switch_tenant(self, sid: str, tenant: str) -> Session | None:
        """View another tenant the session may act in; None when it may not."""
        key = _digest(sid)
        with self._lock:
            session = self._sessions.get(key)
            if session is None or tenant not in session.tenants:
                return None
            session = replace(session, caller=session.caller._replace(tenant=tenant))
            self._sessions[key] = session
        return session

    def end(self, sid: str | None) -> None:
        if sid:
            with self._lock:
                self._sessions.pop(_digest(sid), None)


def csrf_matches(session: Session, sent: str | None) -> bool:
    return bool(sent) and hmac.compare_digest(session.csrf.encode(), str(sent).encode("utf-8", "replace"))
