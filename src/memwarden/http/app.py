"""Build the HTTP server: MCP at /mcp, the prompt hook's /hooks/recall and /hooks/prompt, /healthz and the
dashboard at /ui, all behind the security layer of ``http.guard`` (Host, Origin, bearer token or
the dashboard's own login, body checks)."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from memwarden.config import Settings
from memwarden.errors import ConfigError, InvalidInput, MemwardenError
from memwarden.govern.identity import Identity, load_tokens_file
from memwarden.hooks.loopback import PROMPT_PATH
from memwarden.hooks.recall import RECALL_PATH
from memwarden.http.auth import BearerAuth, is_loopback, parse_bind, token_digest
from memwarden.http.guard import FORM, GuardPolicy, HttpGuard, guard_routes
from memwarden.http.health_route import DeepHealth
from memwarden.http.session_binding import SessionBinding
from memwarden.models import CALLER_SCOPE_KEY, Caller
from memwarden.service import MemoryService
from memwarden.ui.mount import DashboardDispatch, dashboard_app

logger = logging.getLogger(__name__)

HEAD_TIMEOUT_S = 5.0
"""A connection that has not sent a whole request head this long after it opened (or after
the first byte of its next request) is closed: idle and slow-header connections cannot pile
up until the process runs out of file descriptors."""
KEEP_ALIVE_S = 5
"""An idle keep-alive connection between requests is closed after this long."""
MAX_CONNECTIONS = 1000
"""Most connections served at once; past it (or past what the open-file limit leaves room
for, see ``connection_limit``) a new connection gets a 503 and is closed."""
OPEN_FILES_CEILING = 65536
"""The soft open-file limit is raised to the hard limit at server start, but no higher than this."""


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

    async def hook_route(request: Request, answer: Callable[[object, Caller | None], object]) -> JSONResponse:
        # A hook's JSON body answered in a worker thread for the caller the token names. The
        # guard has checked the body already (JSON, bounded in size and depth, UTF-8); bad input
        # is a 400 naming the field, a storage failure a 500.
        import anyio.to_thread

        try:
            body = await request.json()
        except ValueError:
            return JSONResponse(
                {"error": "invalid_input", "message": "the body is not JSON"}, status_code=400
            )
        caller = request.scope.get(CALLER_SCOPE_KEY)
        try:
            return JSONResponse(await anyio.to_thread.run_sync(lambda: answer(body, caller)))
        except MemwardenError as exc:
            status = 400 if isinstance(exc, InvalidInput) else 500
            return JSONResponse(exc.to_dict(), status_code=status)

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
    )
    policy = GuardPolicy.from_settings(settings, bind_host, tokens=bool(tokens))
    http_token = None if settings.http_token is None else settings.http_token.get_secret_value()
    dashboard = dashboard_app(
        service,
        tokens=tokens,
        http_token=http_token,
        operator=default,
        health_interval_s=settings.http_health_interval_s,
    )
    # One outer layer (Host, Origin) for everything; the API behind the bearer check and JSON
    # bodies, the dashboard behind its own login with HTML form bodies.
    return HttpGuard(
        DashboardDispatch(
            guard_routes(SessionBinding(app), policy, auth), guard_routes(dashboard, policy, media=FORM)
        ),
        policy,
    )


def raise_open_file_limit(ceiling: int = OPEN_FILES_CEILING) -> int | None:
    """Raise the soft RLIMIT_NOFILE to the hard limit (at most ``ceiling``); the soft limit in
    force afterwards, or None where there is no such limit (Windows).

    Many systems start processes with a soft limit of 1024 and a far higher hard one; every
    connection takes a descriptor, so the server asks for what it is allowed."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = ceiling if hard == resource.RLIM_INFINITY else min(hard, ceiling)
    if soft == resource.RLIM_INFINITY or soft >= target:
        return ceiling if soft == resource.RLIM_INFINITY else soft
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (ValueError, OSError):
        # macOS refuses more than kern.maxfilesperproc even under a higher hard limit: the
        # server keeps its soft limit and sizes its connection limit to it.
        return soft
    return target


def connection_limit(open_files: int | None) -> int:
    """Connections served at once: ``MAX_CONNECTIONS``, fewer when the open-file limit would
    not leave a quarter of it (at least 32 descriptors) for the database, the log and backups."""
    if open_files is None:
        return MAX_CONNECTIONS
    return max(1, min(MAX_CONNECTIONS, open_files - max(32, open_files // 4)))


def guarded_protocol(max_connections: int) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with a deadline for each request head and a connection limit.

    uvicorn gives a connection that never sends a request, or sends its head a byte at a time,
    no deadline at all; ``HEAD_TIMEOUT_S`` closes it (with a 408 when part of a head came). A
    connection past ``max_connections`` gets a 503 and is closed before it costs more."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    warned = [0.0]

    def answer(status: str, error: str, message: str) -> bytes:
        body = json.dumps({"error": error, "message": message}).encode()
        return (
            f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\nconnection: close\r\n"
            f"content-length: {len(body)}\r\n\r\n"
        ).encode() + body

    class GuardedH11Protocol(H11Protocol):
        head_deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                if time.monotonic() - warned[0] > 60:  # once a minute, not once per connection
                    warned[0] = time.monotonic()
                    logger.warning(
                        "refusing HTTP connections: %d are open, the limit is %d",
                        len(self.connections) - 1,
                        max_connections,
                    )
                self.transport.write(
                    answer(
                        "503 Service Unavailable",
                        "too_many_connections",
                        f"the server has {max_connections} connections open; try again shortly",
                    )
                )
                self.transport.close()
                return
            self._arm_head_deadline()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is h11.IDLE:
                self._arm_head_deadline()  # part of a head: the deadline runs from its first byte
            else:
                self._cancel_head_deadline()

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_head_deadline()
            super().connection_lost(exc)

        def _arm_head_deadline(self) -> None:
            if self.head_deadline is None and not self.transport.is_closing():
                self.head_deadline = self.loop.call_later(HEAD_TIMEOUT_S, self._head_too_late)

        def _cancel_head_deadline(self) -> None:
            if self.head_deadline is not None:
                self.head_deadline.cancel()
                self.head_deadline = None

        def _head_too_late(self) -> None:
            self.head_deadline = None
            if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
                return
            if self.conn.trailing_data[0]:
                self.transport.write(
                    answer(
                        "408 Request Timeout",
                        "request_timeout",
                        f"the request head did not arrive within {HEAD_TIMEOUT_S:g} s",
                    )
                )
            self.transport.close()

    return GuardedH11Protocol


def serve_http(service: MemoryService, settings: Settings, address: str) -> None:
    import uvicorn

    from memwarden.ui.launcher import published

    host, port = check_bind(settings, address)
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
    server = _quiet_server_class()(config)
    with published(settings.database_url(), host, port, key=ui.launcher_key, ticket=ticket):
        try:
            server.run()
        except KeyboardInterrupt:
            pass
    if not server.started:
        raise SystemExit(3)  # what uvicorn.run does when the server could not start


def _quiet_server_class() -> type[Any]:
    """uvicorn's Server, its event loop logging accept failures at most once a minute.

    Out of descriptors, Python 3.11's accept loop fails once per backlog slot (2048 times) on
    every retry, each logged with a traceback: a flood of idle connections would fill the log
    and the CPU. One warning a minute says it; the server accepts again once connections close."""
    import uvicorn

    warned = [0.0]

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") != "socket.accept() out of system resource":
            loop.default_exception_handler(context)
        elif time.monotonic() - warned[0] > 60:
            warned[0] = time.monotonic()
            logger.warning(
                "the HTTP server cannot accept connections: %s (too many connections open; "
                "it accepts again as they close)",
                context.get("exception"),
            )

    class QuietServer(uvicorn.Server):
        async def serve(self, sockets: Any = None) -> None:
            asyncio.get_running_loop().set_exception_handler(handle)
            await super().serve(sockets)

    return QuietServer
