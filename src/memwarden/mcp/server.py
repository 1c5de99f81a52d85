"""memwarden's MCP server: the tools, prompts and resources over the SDK's ``MCPServer``.

The tools live in ``memory_tools`` and ``ops_tools``, the prompts and resources in
``guidance``, every text a model reads in ``tool_text``, the shared plumbing in ``calls``.
The service is created by the composition root and handed to the server's lifespan; handlers
read it from the request context, never from a module global.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import ToolAnnotations

from memwarden.mcp.arguments import explain_argument_errors
from memwarden.mcp.calls import caller_of
from memwarden.mcp.guidance import PINNED_URI, add_guidance
from memwarden.mcp.http_triage import JsonRpcTriage
from memwarden.mcp.memory_tools import ECHO_TOOL, MEMORY_TOOLS
from memwarden.mcp.ops_tools import OPS_TOOLS
from memwarden.mcp.stdio import run_answering_stdio
from memwarden.rate_limits import SEARCH, WRITE, RateLimited
from memwarden.service import MemoryService
from memwarden.settings_table import BY_NAME
from memwarden.tool_text import INSTRUCTIONS, TOOLS
from memwarden.version import __version__

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.rate_limits import ActorRateLimits

__all__ = [
    "CORE_TOOLS",
    "INSTRUCTIONS",
    "TOOL_NAMES",
    "McpSessions",
    "create_server",
    "run_stdio",
    "streamable_http_app",
]

CORE_TOOLS = ("memory_add", "memory_search", "memory_update", "memory_delete")
_TOOLS: list[tuple[str, Callable[..., Any], ToolAnnotations]] = [*MEMORY_TOOLS, *OPS_TOOLS, ECHO_TOOL]
TOOL_NAMES = tuple(name for name, _, _ in _TOOLS)
#: The tools each actor's rate limits count (``memwarden.rate_limits``): every tool that reaches the
#: store. Reads other than searches count as searches: each writes an audit row, and some scan a
#: whole tenant (memory_review, memory_export, memory_health's integrity check), so uncounted they
#: let one actor keep the server busy for every other.
RATE_LIMITED_TOOLS = {
    "memory_add": WRITE,
    "memory_update": WRITE,
    "memory_delete": WRITE,
    "memory_import": WRITE,
    "memory_search": SEARCH,
    "memory_get": SEARCH,
    "memory_list": SEARCH,
    "memory_stats": SEARCH,
    "memory_review": SEARCH,
    "memory_export": SEARCH,
    "memory_health": SEARCH,
}
#: Tools that write many memories in one call: one write per record read, the first taken before
#: the call, the rest charged after it (only then is the count known).
PER_RECORD_TOOLS = frozenset({"memory_import"})
#: The prompt and the resource template that read stored memories, counted as searches: uncounted,
#: the recall prompt was a search past the limit.
RATE_LIMITED_PROMPTS = frozenset({"recall"})
RATE_LIMITED_RESOURCES = frozenset({PINNED_URI})
#: The JSON-RPC error code of a prompt or resource read past its limit (the server-error range).
RATE_LIMITED_CODE = -32000


def create_server(
    service: MemoryService, *, tools: str = "core", limits: ActorRateLimits | None = None
) -> MCPServer:
    """An MCPServer exposing the ``core`` or ``all`` tool profile over ``service``; with
    ``limits``, each actor's writes and searches are rate limited (a server of many clients)."""

    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[MemoryService]:
        # The embedding model loads in a background thread from here on, after the MCP SDK's
        # own imports, so it does not slow the first answer; until it is warm, searches say
        # degraded=warming_up.
        service.searcher.start_background()
        yield service

    server = MCPServer(
        name="memwarden",
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        log_level="WARNING",
    )
    offered = [entry for entry in _TOOLS if tools == "all" or entry[0] in CORE_TOOLS]
    for name, fn, hints in offered:
        text = TOOLS[name]
        server.add_tool(
            fn,
            name=name,
            title=text.title,
            description=text.description(),
            annotations=hints.model_copy(update={"title": text.title}),
            structured_output=True,
        )
    add_guidance(server, [name for name, _, _ in offered])
    explain_argument_errors(server)
    if limits is not None:
        limit_tool_rates(server, limits, default_actor=service.default_caller.actor)
    return server


def limit_tool_rates(server: MCPServer, limits: ActorRateLimits, *, default_actor: str) -> None:
    """Each rate-limited tool, prompt and resource takes one call of its kind from the caller's
    allowance first; past it, the call is a tool error (a protocol error for prompts and resources)
    naming the limit and when to retry, and nothing runs."""
    for name, tool in list(server._tool_manager._tools.items()):
        kind = RATE_LIMITED_TOOLS.get(name)
        if kind is None or tool.context_kwarg is None:
            continue
        limited = _rate_limited(
            tool.fn,
            kind,
            limits,
            tool.context_kwarg,
            default_actor,
            refuse=_tool_error,
            per_record=name in PER_RECORD_TOOLS,
        )
        server._tool_manager._tools[name] = tool.model_copy(update={"fn": limited})
    readers: list[tuple[dict[str, Any], frozenset[str]]] = [
        (server._prompt_manager._prompts, RATE_LIMITED_PROMPTS),
        (server._resource_manager._templates, RATE_LIMITED_RESOURCES),
    ]
    for registry, names in readers:
        for name, entry in list(registry.items()):
            if name in names and entry.context_kwarg is not None:
                limited = _rate_limited(
                    entry.fn, SEARCH, limits, entry.context_kwarg, default_actor, refuse=_protocol_error
                )
                registry[name] = entry.model_copy(update={"fn": limited})


def _tool_error(exc: RateLimited) -> Exception:
    return ToolError(f"{exc.code}: {exc.message}")


def _protocol_error(exc: RateLimited) -> Exception:
    return MCPError(RATE_LIMITED_CODE, f"{exc.code}: {exc.message}")


def _rate_limited(
    fn: Callable[..., Any],
    kind: str,
    limits: ActorRateLimits,
    context_kwarg: str,
    default_actor: str,
    *,
    refuse: Callable[[RateLimited], Exception],
    per_record: bool = False,
) -> Callable[..., Any]:
    @functools.wraps(fn)
    async def limited(**kwargs: Any) -> Any:
        caller = caller_of(kwargs[context_kwarg])
        actor = default_actor if caller is None else caller.actor
        tenant = "" if caller is None else caller.tenant
        try:
            limits.take(actor, kind, tenant=tenant)
        except RateLimited as exc:
            raise refuse(exc) from None
        result = await fn(**kwargs)
        if per_record:
            limits.charge(actor, kind, _records_of(result) - 1, tenant=tenant)
        return result

    return limited


def _records_of(result: Any) -> int:
    """How many records an import result carries: ``ImportOut.records``, or the same field of
    the structured content when the tool answered through ``data_result``."""
    structured = getattr(result, "structured_content", None)
    if isinstance(structured, dict):
        return int(structured.get("records", 1))
    return int(getattr(result, "records", 1))


def streamable_http_app(
    service: MemoryService,
    *,
    tools: str,
    routes: list[Any] | None = None,
    session_idle_s: float = BY_NAME["http_session_idle_s"].default,
    limits: ActorRateLimits | None = None,
) -> Any:
    """The Starlette app serving MCP at ``/mcp``, plus extra Starlette routes (``/healthz``).

    ``app.state.mcp_sessions`` (``McpSessions``) lets ``http.session_binding`` see and end the
    open sessions: it caps them per caller, so the SDK's own server-wide cap is off (at that cap
    it refused every caller's ``initialize``, whoever had opened the sessions)."""
    from mcp.server.transport_security import TransportSecuritySettings

    server = create_server(service, tools=tools, limits=limits)
    # Host and Origin are checked for every route by memwarden.http.guard, with the configured
    # allowlists; the SDK's own loopback-only check would refuse those (421) behind it.
    app = server.streamable_http_app(
        streamable_http_path="/mcp",
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        session_idle_timeout=session_idle_s,
        max_sessions=None,
    )
    for route in routes or []:
        app.router.routes.append(route)
    app.state.mcp_sessions = McpSessions(server.session_manager)
    return JsonRpcTriage(app)  # bad JSON-RPC answered as stdio answers it (mcp/http_triage.py)


class McpSessions:
    """The open Streamable HTTP sessions of the SDK's session manager: which are open, end one.

    Two internals of the SDK's ``StreamableHTTPSessionManager`` (``_server_instances`` and
    ``_discard_session``, what its own ``DELETE`` handling runs), which is why ``mcp`` is pinned
    below 3 (as for ``mcp/stdio.py``)."""

    def __init__(self, manager: Any) -> None:
        self.manager = manager

    def is_open(self, session_id: str) -> bool:
        return session_id in self.manager._server_instances

    async def end(self, session_id: str) -> None:
        transport = self.manager._server_instances.get(session_id)
        if transport is not None:
            await self.manager._discard_session(session_id, transport)


def run_stdio(service: MemoryService, *, tools: str, limits: ActorRateLimits | None = None) -> None:
    """Serve MCP over stdin/stdout until the client closes the stream; every request is answered."""
    run_answering_stdio(create_server(service, tools=tools, limits=limits))
