"""What every dashboard handler gets: the service's ``Dashboard``, the sessions, the templates
and the tokens that may log in; and how a page or an error is rendered."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.templating import Jinja2Templates

from memwarden import __version__
from memwarden.errors import Conflict, InvalidInput, MemwardenError, NotFound
from memwarden.govern.identity import Identity
from memwarden.models import Caller
from memwarden.rate_limits import SEARCH, WRITE, ActorRateLimits, RateLimited
from memwarden.token_guesses import FailedLogins
from memwarden.ui import forms, security
from memwarden.ui.dashboard import Dashboard
from memwarden.ui.sessions import Session, SessionStore

Handler = Callable[[Request, "UiContext", Session], Awaitable[Response]]


# What a page says after an action redirected to it (``?done=<code>`` and the ids it names).
# Only these texts can appear: a link from elsewhere cannot make the dashboard say anything.
NOTICES = {
    "saved": "Saved.",
    "deleted": "Deleted memory {id}.",
    "merged": "Merged {drop} into {keep}.",
    "pinned": "Pinned memory {id}: it will not be proposed again.",
    "cleared": "Cleared the flags of memory {id}: the hooks recall it again until its text changes.",
    "checked": "Deep check done.",
}


def notice(params: Any) -> str | None:
    """The notice named by ``done`` with its memory ids checked; None for anything else."""
    text = NOTICES.get(params.get("done", ""))
    if text is None:
        return None
    ids = {}
    for name in ("id", "drop", "keep"):
        if "{" + name + "}" in text:
            try:
                ids[name] = forms.memory_id(params.get(name, ""))
            except InvalidInput:
                return None
    return text.format(**ids)


@dataclass
class UiContext:
    """Everything the handlers share: the service's dashboard, sessions, templates, tokens."""

    dashboard: Dashboard
    sessions: SessionStore
    templates: Jinja2Templates
    tokens: dict[str, Identity]  # token digest -> identity
    operator_digests: frozenset[str]  # digests of tokens that log in as the local operator
    operator: Caller
    launcher_key: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    failed_logins: FailedLogins = field(default_factory=FailedLogins)
    #: The last deep health report of each tenant, and when it ran: a session sees its own
    #: tenant's only, and a tenant's check runs at most once per ``health_interval_s``.
    health_reports: dict[str, tuple[dict[str, Any], datetime]] = field(default_factory=dict)
    health_interval_s: float = 10.0
    #: The server's per-actor rate limits (MEMWARDEN_RATE_*): every page counts as a read
    #: (search kind), every action as a write, as the same calls over MCP do. None: unlimited.
    limits: ActorRateLimits | None = None

    def spend(self, session: Session, *, write: bool) -> None:
        """One call of the session's actor against its rate limit; ``RateLimited`` past it."""
        if self.limits is not None:
            caller = session.caller
            self.limits.take(caller.actor, WRITE if write else SEARCH, tenant=caller.tenant)

    def render(
        self, request: Request, name: str, session: Session | None, status: int = 200, **values: Any
    ) -> Response:
        values.setdefault("error", None)
        values.setdefault("notice", notice(request.query_params))
        response = self.templates.TemplateResponse(
            request, name, {"session": session, "version": __version__, **values}, status_code=status
        )
        return security.secure(response)

    def error_page(
        self,
        request: Request,
        session: Session | None,
        exc: MemwardenError,
        name: str = "error.html",
        **values: Any,
    ) -> Response:
        if isinstance(exc, RateLimited):
            response = self.render(request, name, session, status=429, error=exc.message, **values)
            response.headers["retry-after"] = str(exc.fields.get("retry_after_s", 60))
            return response
        status = (
            404
            if isinstance(exc, NotFound)
            else 409
            if isinstance(exc, Conflict)
            else (400 if isinstance(exc, InvalidInput) else 500)
        )
        return self.render(request, name, session, status=status, error=exc.message, **values)
