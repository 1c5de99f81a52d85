"""memwarden's MCP server: the tools, prompts and resources over the SDK's ``MCPServer``.

The tools live in ``memory_tools`` and ``ops_tools``, the prompts and resources in
``guidance``, every text a model reads in ``tool_text``, the shared plumbing in ``calls``.
The service is created by the composition root and handed to the server's lifespan; handlers
read it from the request context, never from a module global.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

from memwarden.mcp.arguments import explain_argument_errors
from memwarden.mcp.guidance import add_guidance
from memwarden.mcp.memory_tools import ECHO_TOOL, MEMORY_TOOLS
from memwarden.mcp.ops_tools import OPS_TOOLS
from memwarden.mcp.stdio import run_answering_stdio
from memwarden.mcp.tool_text import INSTRUCTIONS, TOOLS
from memwarden.service import MemoryService
from memwarden.version import __version__

__all__ = ["CORE_TOOLS", "INSTRUCTIONS", "TOOL_NAMES", "create_server", "run_stdio", "streamable_http_app"]

CORE_TOOLS = ("memory_add", "memory_search", "memory_update", "memory_delete")
_TOOLS: list[tuple[str, Callable[..., Any], ToolAnnotations]] = [*MEMORY_TOOLS, *OPS_TOOLS, ECHO_TOOL]
TOOL_NAMES = tuple(name for name, _, _ in _TOOLS)


def create_server(service: MemoryService, *, tools: str = "core") -> MCPServer:
    """An MCPServer exposing the ``core`` or ``all`` tool profile over ``service``."""

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
    return server


def streamable_http_app(service: MemoryService, *, tools: str, routes: list[Any] | None = None) -> Any:
    """The Starlette app serving MCP at ``/mcp``, plus extra Starlette routes (``/healthz``)."""
    from mcp.server.transport_security import TransportSecuritySettings

    server = create_server(service, tools=tools)
    # Host and Origin are checked for every route by memwarden.http.guard, with the configured
    # allowlists; the SDK's own loopback-only check would refuse those (421) behind it.
    app = server.streamable_http_app(
        streamable_http_path="/mcp",
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )
    for route in routes or []:
        app.router.routes.append(route)
    return app


def run_stdio(service: MemoryService, *, tools: str) -> None:
    """Serve MCP over stdin/stdout until the client closes the stream; every request is answered."""
    run_answering_stdio(create_server(service, tools=tools))
