"""Build the HTTP server: MCP at /mcp, the prompt hook's /hooks/recall and /hooks/prompt, /healthz and the
dashboard at /ui, all behind the security layer of ``http.guard`` (Host, Origin, bearer token or
the dashboard's own login, body checks)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from memwarden.config import Settings
from memwarden.errors import ConfigError, MemwardenError
from memwarden.govern.identity import Identity, load_tokens_file
from memwarden.hooks.paths import PROMPT_PATH, RECALL_PATH
from memwarden.http.auth import BearerAuth, token_digest
from memwarden.http.connections import (
    KEEP_ALIVE_S,
    connection_limit,
    guarded_protocol,
    quiet_server_class,
    raise_open_file_limit,
)
from memwarden.http.error_answers import error_response, refusal_log
from memwarden.http.guard import FORM, GuardPolicy, HttpGuard, guard_routes
from memwarden.http.health_route import DeepHealth
from memwarden.http.session_binding import SessionBinding
from memwarden.models import CALLER_SCOPE_KEY, Caller
from memwarden.net import is_loopback, parse_bind
from memwarden.rate_limits import SEARCH, ActorRateLimits, RateLimited
from memwarden.service import MemoryService
from memwarden.ui.mount import DashboardDispatch, dashboard_app

if TYPE_CHECKING:  # pragma: no cover
    import socket


def check_bind(settings: Settings, address: str) -> tuple[str, int]:
    """Refuse a non-loopback address unless a token is configured."""
    host, port = parse_bind(address)
    if not is_loopback(host) and settings.http_token is None and not settings.tokens_file:
        raise ConfigError(
            f"refusing to serve on {host}, which is not a loopback address, without a token: "
            "set MEMWARDEN_HTTP_TOKEN or MEMWARDEN_TOKENS_FILE (or bind to 127.0.0.1)"
        )
    load_tokens_file(settings.tokens_file)  # a broken tokens file stops start-up here
    if settings.http_max_body_bytes < 2 * settings.max_content_bytes:
        raise ConfigError(
            f"MEMWARDEN_HTTP_MAX_BODY_BYTES={settings.http_max_body_bytes} cannot carry a memory of "
            f"MEMWARDEN_MAX_CONTENT_BYTES={settings.max_content_bytes}: raise it to at least twice that"
        )
    return host, port


def build_http_app(service: MemoryService, settings: Settings, bind_host: str | None = None) -> HttpGuard:
    """The whole HTTP server behind ``http.guard``: every route gets the security layer."""
    from memwarden.mcp.server import streamable_http_app

    limits = ActorRateLimits.from_settings(settings)
    refusals = refusal_log()

    async def hook_route(request: Request, answer: Callable[[object, Caller | None], object]) -> JSONResponse:
        # A hook's JSON body answered in a worker thread for the caller the token names. The
        # guard has checked the body already (JSON, bounded in size and depth, UTF-8); every
        # error the core raises gets its status and JSON body in http.error_answers: bad input
        # a 400 naming the field, a caller past its search rate a 429 with Retry-After, a
        # database that cannot serve (a full disk refusing the search's audit row) a 503 whose
        # ``reason`` names the condition. The prompt hook falls back on any of them.
        import anyio.to_thread

        caller = request.scope.get(CALLER_SCOPE_KEY)
        try:
            who = caller or default
            limits.take(who.actor, SEARCH, tenant=who.tenant)
        except RateLimited as exc:
            return error_response(exc, route=request.url.path, refusals=refusals)
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse(
                {"error": "invalid_input", "message": "the body is not JSON"}, status_code=400
            )
        try:
            return JSONResponse(await anyio.to_thread.run_sync(lambda: answer(body, caller)))
        except MemwardenError as exc:
            return error_response(exc, route=request.url.path, refusals=refusals)

    def recall_hits(body: object, caller: Caller | None) -> object:
        # The prompt hook's search (memwarden.hooks.recall): the hits, rendered by the hook.
        from memwarden.search.recall import parse_recall_request, recall

        query, projects, limit = parse_recall_request(body)
        return {"hits": recall(service, query, projects, limit, caller=caller)}

    def prompt_text(body: object, caller: Caller | None) -> object:
        # A whole prompt hook (memwarden.hooks.quick): the hook JSON in, the line it prints out;
        # the same code as the daemon's hook_prompt call.
        from memwarden.hooks.prompt_request import answer_request, parse_prompt_request

        return answer_request(service, parse_prompt_request(body), caller)

    async def hooks_recall(request: Request) -> JSONResponse:
        return await hook_route(request, recall_hits)

    async def hooks_prompt(request: Request) -> JSONResponse:
        return await hook_route(request, prompt_text)

    default = Caller(actor=settings.actor, tenant=settings.tenant)
    tokens: dict[str, Identity | Caller] = dict(load_tokens_file(settings.tokens_file))
    if settings.http_token is not None:
        tokens[token_digest(settings.http_token.get_secret_value())] = default
    auth = BearerAuth(None, tokens=tokens, default=default)  # guard_routes puts it in front of the API
    health = DeepHealth(
        lambda caller: service.operations.health(caller=caller),
        auth,
        interval_s=settings.http_health_interval_s,
    )
    app = streamable_http_app(
        service,
        tools=settings.tools,
        routes=[
            Route("/healthz", health.respond, methods=["GET"]),
            Route(RECALL_PATH, hooks_recall, methods=["POST"]),
            Route(PROMPT_PATH, hooks_prompt, methods=["POST"]),
        ],
        session_idle_s=settings.http_session_idle_s,
        limits=limits,
    )
    policy = GuardPolicy.from_settings(settings, bind_host, tokens=bool(tokens))
    http_token = None if settings.http_token is None else settings.http_token.get_secret_value()
    dashboard = dashboard_app(
        service,
        tokens=tokens,
        http_token=http_token,
        operator=default,
        health_interval_s=settings.http_health_interval_s,
        limits=limits,
    )
    # One outer layer (Host, Origin) for everything; the API behind the bearer check and JSON
    # bodies, the dashboard behind its own login with HTML form bodies.
    return HttpGuard(
        DashboardDispatch(
            guard_routes(
                SessionBinding(
                    app,
                    sessions=app.state.mcp_sessions,
                    per_caller=settings.http_sessions_per_caller,
                    per_local_user=not tokens,
                ),
                policy,
                auth,
            ),
            guard_routes(dashboard, policy, media=FORM),
        ),
        policy,
    )


def serve_http(
    service: MemoryService, settings: Settings, address: str, *, listener: socket.socket | None = None
) -> None:
    """Serve until stopped on ``address``, or on ``listener``, a socket bound to it already
    (``cli.serve_start.bind_listener``: nothing can take the port between the check and the
    serving, and port 0 has become the port the kernel gave)."""
    import uvicorn

    from memwarden.ui.launcher import published

    host, port = check_bind(settings, address)
    if listener is not None:
        port = int(listener.getsockname()[1])
    app = build_http_app(service, settings, host)
    # The dashboard's launcher file (for `memwarden ui`) and, without a token, its one-time link.
    ui = app.dashboard.state.ui
    untokened = settings.http_token is None and not settings.tokens_file
    ticket = ui.sessions.issue_ticket() if untokened else None
    max_connections = connection_limit(raise_open_file_limit())
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        # No log_config: uvicorn's default applies dictConfig, which closes the handlers
        # configure_logging set up; the log file would then be reopened at the next record,
        # possibly just when no descriptor is left, and that OSError would end the server.
        log_config=None,
        log_level="warning",
        access_log=False,
        lifespan="on",
        http=guarded_protocol(max_connections),
        # The protocol refuses connections past max_connections; uvicorn's own check (a 503
        # for each request while connections or request tasks reach the limit, logged every
        # time) then only bounds tasks that outlive their connection.
        limit_concurrency=max_connections + 1,
        timeout_keep_alive=KEEP_ALIVE_S,
    )
    server = quiet_server_class()(config)
    with published(settings.database_url(), host, port, key=ui.launcher_key, ticket=ticket):
        try:
            server.run(sockets=[listener] if listener is not None else None)
        except KeyboardInterrupt:
            pass
    if not server.started:
        raise SystemExit(3)  # what uvicorn.run does when the server could not start
