"""Build the HTTP server: MCP at /mcp and the hooks' recall at /hooks/recall behind bearer auth,
/healthz open."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from memwarden.config import Settings
from memwarden.errors import ConfigError, InvalidInput, MemwardenError
from memwarden.govern.identity import Identity, load_tokens_file
from memwarden.hooks.recall import RECALL_PATH
from memwarden.http.auth import BearerAuth, is_loopback, parse_bind, token_digest
from memwarden.models import CALLER_SCOPE_KEY, Caller
from memwarden.service import MemoryService
from memwarden.ui.mount import DashboardDispatch, dashboard_app
from memwarden.version import __version__


def check_bind(settings: Settings, address: str) -> tuple[str, int]:
    """Refuse a non-loopback address unless a token is configured."""
    host, port = parse_bind(address)
    if not is_loopback(host) and settings.http_token is None and not settings.tokens_file:
        raise ConfigError(
            f"refusing to serve on {host}, which is not a loopback address, without a token: "
            "set MEMWARDEN_HTTP_TOKEN or MEMWARDEN_TOKENS_FILE (or bind to 127.0.0.1)"
        )
    load_tokens_file(settings.tokens_file)  # a broken tokens file stops start-up here
    return host, port


def build_http_app(service: MemoryService, settings: Settings) -> Any:
    from memwarden.mcp.server import streamable_http_app

    async def healthz(request: Request) -> JSONResponse:
        if request.query_params.get("deep", "") not in ("1", "true", "yes"):
            return JSONResponse({"status": "ok", "version": __version__})
        # The deep check writes and reads the whole database: behind the token, unlike the
        # liveness answer above (a container health check sends MEMWARDEN_HTTP_TOKEN).
        caller = auth.resolve(request.headers.get("authorization"))
        if caller is None:
            return JSONResponse({"error": "unauthorized", "message": "deep health needs Authorization: Bearer <token>"},
                                status_code=401, headers={"www-authenticate": 'Bearer realm="memwarden"'})
        import anyio.to_thread

        report = await anyio.to_thread.run_sync(lambda: service.operations.health(caller=caller))
        return JSONResponse(report, status_code=503 if report["status"] == "failing" else 200)

    async def hooks_recall(request: Request) -> JSONResponse:
        # The prompt hook's search (memwarden.hooks.recall), for the caller the token names.
        import anyio.to_thread

        from memwarden.search.recall import parse_recall_request, recall

        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "invalid_input", "message": "the body is not JSON"}, status_code=400)
        try:
            query, projects, limit = parse_recall_request(body)
            caller = request.scope.get(CALLER_SCOPE_KEY)
            hits = await anyio.to_thread.run_sync(
                lambda: recall(service, query, projects, limit, caller=caller)
            )
        except MemwardenError as exc:
            status = 400 if isinstance(exc, InvalidInput) else 500
            return JSONResponse(exc.to_dict(), status_code=status)
        return JSONResponse({"hits": hits})

    app = streamable_http_app(
        service,
        tools=settings.tools,
        routes=[Route("/healthz", healthz, methods=["GET"]), Route(RECALL_PATH, hooks_recall, methods=["POST"])],
    )
    default = Caller(actor=settings.actor, tenant=settings.tenant)
    tokens: dict[str, Identity | Caller] = dict(load_tokens_file(settings.tokens_file))
    if settings.http_token is not None:
        tokens[token_digest(settings.http_token.get_secret_value())] = default
    auth = BearerAuth(app, tokens=tokens, default=default)
    http_token = None if settings.http_token is None else settings.http_token.get_secret_value()
    dashboard = dashboard_app(service, tokens=tokens, http_token=http_token, operator=default)
    return DashboardDispatch(auth, dashboard)


def serve_http(service: MemoryService, settings: Settings, address: str) -> None:
    import uvicorn

    host, port = check_bind(settings, address)
    uvicorn.run(build_http_app(service, settings), host=host, port=port, log_level="warning",
                access_log=False, lifespan="on")
