"""Serving the dashboard beside the API in one ASGI application.

Requests under ``/ui`` go to the dashboard, which logs people in itself (session cookie, CSRF
token, one-time link) because browsers do not send bearer tokens; everything else goes to the
API behind its bearer check. Both sit behind the same outer HTTP checks of the server.
"""

from __future__ import annotations

from typing import Any

from memwarden.govern.identity import Identity, token_digest
from memwarden.http.auth import ASGIApp, Scope
from memwarden.models import Caller
from memwarden.service import MemoryService
from memwarden.ui.app import build_ui_app

PREFIX = "/ui"


class DashboardDispatch:
    """Route ``/ui`` and ``/ui/…`` to the dashboard, the rest to ``api``."""

    def __init__(self, api: ASGIApp, dashboard: ASGIApp) -> None:
        self.api = api
        self.dashboard = dashboard

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path == PREFIX:
            await send({"type": "http.response.start", "status": 308, "headers": [(b"location", b"/ui/")]})
            await send({"type": "http.response.body", "body": b""})
            return
        if path.startswith(PREFIX + "/"):
            await self.dashboard(scope, receive, send)
            return
        await self.api(scope, receive, send)


def dashboard_app(
    service: MemoryService,
    *,
    tokens: dict[str, Identity | Caller],
    http_token: str | None,
    operator: Caller,
    health_interval_s: float = 10.0,
    limits: Any = None,
) -> Any:
    """The dashboard for this server's tokens: ``http_token`` (MEMWARDEN_HTTP_TOKEN) logs in as
    the local operator, every token of MEMWARDEN_TOKENS_FILE as its own actor and tenants."""
    identities = {
        digest: who if isinstance(who, Identity) else Identity(who.actor, (who.tenant,))
        for digest, who in tokens.items()
    }
    operators = frozenset({token_digest(http_token)} if http_token else set())
    return build_ui_app(
        service,
        tokens=identities,
        operator_digests=operators,
        operator=operator,
        health_interval_s=health_interval_s,
        limits=limits,
    )
