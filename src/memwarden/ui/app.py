"""The dashboard's ASGI application, mounted at ``/ui`` by the HTTP server.

Pages are rendered on the server (Jinja2 templates under ``templates/``) and enhanced with htmx
and Chart.js from ``static/`` (vendored, see ``static/LICENSES.md``): every page works with the
keyboard, and with scripts off apart from the charts (each has its data as a table too).
Handlers are in ``pages.py`` (reads) and ``actions.py`` (writes); this module wires them with
the login, session and CSRF checks of ``security.py``.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from memwarden.errors import InvalidInput, MemwardenError
from memwarden.govern.identity import Identity, token_digest
from memwarden.models import Caller, utcnow
from memwarden.rate_limits import ActorRateLimits
from memwarden.service import MemoryService
from memwarden.token_guesses import FailedLogins
from memwarden.ui import actions, bulk_actions, display, live, memory_map, pages, security
from memwarden.ui.context import Handler, UiContext
from memwarden.ui.dashboard import THREAD_HOPS, Dashboard
from memwarden.ui.launcher import LAUNCHER_HEADER
from memwarden.ui.sessions import Session, SessionStore

HERE = Path(__file__).parent


def page(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """A page for logged-in sessions: others go to the login page (or get 401 for htmx)."""

    async def run(request: Request) -> Response:
        ui: UiContext = request.app.state.ui
        session = security.session_of(request, ui.sessions)
        if session is None:
            if request.headers.get("hx-request"):
                return security.secure(
                    Response("log in again", status_code=401, headers={"hx-redirect": "/ui/login"})
                )
            return security.secure(
                RedirectResponse(
                    "/ui/login?expired=1" if security.COOKIE in request.cookies else "/ui/login",
                    status_code=303,
                )
            )
        try:
            ui.spend(session, write=False)
            return await handler(request, ui, session)
        except MemwardenError as exc:
            return ui.error_page(request, session, exc)

    return run


def action(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """A state-changing request: same origin, a live session and its CSRF token, else refused."""

    async def run(request: Request) -> Response:
        ui: UiContext = request.app.state.ui
        if not security.same_origin(request):
            return security.secure(Response("refused: this request comes from another site", status_code=403))
        session = security.session_of(request, ui.sessions)
        if session is None:
            return security.secure(
                Response("refused: log in first (the session ended or never began)", status_code=401)
            )
        if not await security.csrf_ok(request, session):
            return security.secure(
                Response("refused: the CSRF token is missing or wrong; reload the page", status_code=403)
            )
        try:
            ui.spend(session, write=True)
            return await handler(request, ui, session)
        except MemwardenError as exc:
            return ui.error_page(request, session, exc)

    return run


# -- login ---------------------------------------------------------------------------------


async def login_page(request: Request) -> Response:
    ui: UiContext = request.app.state.ui
    ticket = request.query_params.get("ticket")
    if ticket is not None:
        if not security.own_user(request):
            # A one-time link logs in as the operator: it is for the user running the server
            # (who ran `memwarden ui`), whether or not tokens are configured. Not spent here.
            return _login_form(
                request,
                ui,
                status=403,
                error="This login link is for the user who runs the memwarden server: "
                "open it as that user, or log in with a token.",
            )
        if not ui.sessions.redeem_ticket(ticket):
            return _login_form(
                request,
                ui,
                status=401,
                error="This login link was already used or has expired: run `memwarden ui` again.",
            )
        sid, _ = ui.sessions.start(
            ui.operator, (ui.operator.tenant,), operator=True, peer_uid=security.login_uid(request)
        )
        response: Response = RedirectResponse("/ui/", status_code=303)
        if request.headers.get("sec-fetch-site") == "cross-site":
            # Opened from another site (`memwarden ui`'s login file is a file:// page): the
            # browser would send the SameSite=Strict cookie on no redirect of that navigation,
            # so a page of this origin moves on to the overview instead.
            response = ui.render(request, "opening.html", None)
        security.set_session_cookie(response, sid, secure_only=request.url.scheme == "https")
        return security.secure(response)
    notice = "Your session ended; log in again." if request.query_params.get("expired") else None
    return _login_form(request, ui, notice=notice)


def _login_form(
    request: Request, ui: UiContext, *, status: int = 200, error: str | None = None, notice: str | None = None
) -> Response:
    nonce = secrets.token_urlsafe(24)
    response = ui.render(
        request,
        "login.html",
        None,
        status=status,
        error=error,
        notice=notice,
        login_csrf=nonce,
        tokens_configured=bool(ui.tokens),
    )
    response.set_cookie(
        security.LOGIN_COOKIE,
        nonce,
        httponly=True,
        samesite="strict",
        path="/ui",
        secure=request.url.scheme == "https",
    )
    return response


async def login_submit(request: Request) -> Response:
    ui: UiContext = request.app.state.ui
    if not security.same_origin(request):
        return security.secure(Response("refused: this request comes from another site", status_code=403))
    form = await request.form()
    sent, expected = form.get(security.CSRF_FIELD), request.cookies.get(security.LOGIN_COOKIE)
    if not isinstance(sent, str) or not expected or not secrets.compare_digest(sent, expected):
        return _login_form(request, ui, status=403, error="The login form expired; try again.")
    guesser = _guesser(request)
    wait = ui.failed_logins.wait_s(guesser)
    if wait > 0:
        response = _login_form(
            request,
            ui,
            status=429,
            error=f"Too many wrong tokens from here: wait {math.ceil(wait)} s, then try again.",
        )
        response.headers["retry-after"] = str(math.ceil(wait))
        return response
    token = form.get("token")
    identity = None
    if isinstance(token, str) and token.strip() and ui.tokens:
        digest = token_digest(token.strip())
        identity = next(
            (who for known, who in ui.tokens.items() if secrets.compare_digest(known, digest)), None
        )
    if identity is None:
        message = (
            "That token is not valid."
            if ui.tokens
            else "No token is configured on this server: open the one-time link that `memwarden ui` prints."
        )
        if ui.tokens:
            ui.failed_logins.failed(guesser)
        return _login_form(request, ui, status=401, error=message)
    digest = token_digest(str(token).strip())
    operator = digest in ui.operator_digests
    sid, _ = ui.sessions.start(
        Caller(identity.actor, identity.tenants[0]),
        identity.tenants,
        operator=operator,
        peer_uid=security.login_uid(request),
    )
    response = RedirectResponse("/ui/", status_code=303)
    security.set_session_cookie(response, sid, secure_only=request.url.scheme == "https")
    response.delete_cookie(security.LOGIN_COOKIE, path="/ui")
    return security.secure(response)


def _guesser(request: Request) -> str:
    """Who is trying tokens: the local user where it can be told, else the client address."""
    uid = security.login_uid(request)
    if uid is not None:
        return f"uid:{uid}"
    return f"addr:{request.client.host if request.client else ''}"


async def logout(request: Request, ui: UiContext, session: Session) -> Response:
    ui.sessions.end(request.cookies.get(security.COOKIE))
    response = RedirectResponse("/ui/login", status_code=303)
    response.delete_cookie(security.COOKIE, path="/ui")
    return security.secure(response)


async def switch_tenant(request: Request, ui: UiContext, session: Session) -> Response:
    form = await request.form()
    tenant = form.get("tenant")
    if (
        not isinstance(tenant, str)
        or ui.sessions.switch_tenant(request.cookies.get(security.COOKIE, ""), tenant) is None
    ):
        raise InvalidInput(
            "you may not view that tenant: pick one of the tenants your token lists", field="tenant"
        )
    return security.secure(RedirectResponse("/ui/", status_code=303))


def _from_launcher(request: Request, ui: UiContext) -> bool:
    sent = request.headers.get(LAUNCHER_HEADER, "")
    return bool(sent) and secrets.compare_digest(sent, ui.launcher_key)


LAUNCHER_ONLY = {"error": "forbidden", "message": "a launcher key is needed"}


async def issue_ticket(request: Request) -> Response:
    """A fresh one-time login link for ``memwarden ui`` reusing this server (it holds the
    launcher key, written 0600 in the user's state folder); nobody else can ask."""
    ui: UiContext = request.app.state.ui
    if not _from_launcher(request, ui):
        return JSONResponse(LAUNCHER_ONLY, status_code=403)
    return JSONResponse({"ticket": ui.sessions.issue_ticket()})


async def ticket_pending(request: Request) -> Response:
    """Whether the ticket of the form can still be redeemed: ``memwarden ui`` removes the login
    file holding it once the browser has used it (launcher key needed, as for a ticket)."""
    ui: UiContext = request.app.state.ui
    if not _from_launcher(request, ui):
        return JSONResponse(LAUNCHER_ONLY, status_code=403)
    ticket = (await request.form()).get("ticket")
    return JSONResponse({"pending": isinstance(ticket, str) and ui.sessions.ticket_pending(ticket)})


def build_ui_app(
    service: MemoryService,
    *,
    tokens: dict[str, Identity],
    operator_digests: frozenset[str],
    operator: Caller,
    clock: Callable[[], datetime] = utcnow,
    health_interval_s: float = 10.0,
    limits: ActorRateLimits | None = None,
) -> Starlette:
    """The dashboard as an ASGI app whose routes start with ``/ui``; a tenant's deep health check
    runs at most once per ``health_interval_s`` (MEMWARDEN_HTTP_HEALTH_INTERVAL_S)."""
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    # Every value reaches the page escaped: set here rather than left to Starlette's default
    # (autoescaping chosen by file extension), so a template of another name cannot lose it.
    templates.env.autoescape = True
    templates.env.filters["short_time"] = pages.short_time
    templates.env.filters["segment"] = security.path_segment
    templates.env.filters.update(display.FILTERS)
    templates.env.globals["thread_hops"] = THREAD_HOPS
    ui = UiContext(
        Dashboard(service), SessionStore(clock), templates, dict(tokens), operator_digests, operator
    )
    ui.health_interval_s = health_interval_s
    ui.limits = limits
    ui.failed_logins = FailedLogins(clock)
    routes = [
        Route("/ui/login", login_page, methods=["GET"]),
        Route("/ui/login", login_submit, methods=["POST"]),
        Route("/ui/logout", action(logout), methods=["POST"]),
        Route("/ui/tenant", action(switch_tenant), methods=["POST"]),
        Route("/ui/ticket", issue_ticket, methods=["POST"]),
        Route("/ui/ticket/pending", ticket_pending, methods=["POST"]),
        *[
            Route(path, page(handler), methods=["GET"])
            for path, handler in (*bulk_actions.PAGES, *live.PAGES, *memory_map.PAGES)
        ],
        *[Route(path, action(handler), methods=["POST"]) for path, handler in bulk_actions.ACTIONS],
        *[Route(path, page(handler), methods=["GET"]) for path, handler in pages.ROUTES],
        *[Route(path, action(handler), methods=["POST"]) for path, handler in actions.ROUTES],
        Mount("/ui/static", app=StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    # Without any token the one-time link is the only way in, and the server answers only its
    # own user: the same check as the API's, in front of every dashboard route.
    middleware = [Middleware(security.SecureHeaders)]
    if not tokens:
        middleware.append(Middleware(security.OwnUserOnly, sessions=ui.sessions))
    app = Starlette(routes=routes, middleware=middleware)
    app.state.ui = ui
    return app
