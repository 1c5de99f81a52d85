"""The plumbing every MCP handler shares: who is calling, which service, and one error mapping.

Tools, prompts and resources read the service from the server's lifespan context and the
caller from the HTTP request scope (set by the HTTP layer's authentication), or from the
daemon connection the session runs on (``CONNECTION_CALLER``, set by mcp/stream.py); over
plain stdio there is neither, and the service's default caller (``MEMWARDEN_TENANT``) applies. Service calls
run in a worker thread, and memwarden errors become tool errors whose text the model reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextvars import ContextVar
from functools import partial
from typing import Any, TypeVar, cast

import anyio.to_thread
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS

from memwarden.errors import InvalidInput, MemwardenError, NotFound, about_an_id
from memwarden.models import CALLER_SCOPE_KEY, Caller
from memwarden.requests import Request
from memwarden.service import MemoryService

T = TypeVar("T")


def service_of(ctx: Context) -> MemoryService:
    """The service the server's lifespan opened."""
    # The SDK types the lifespan result as a dict; memwarden's lifespan yields the service.
    return cast(MemoryService, ctx.request_context.lifespan_context)


# The caller of the daemon connection an MCP session runs on (mcp/stream.py); None elsewhere.
CONNECTION_CALLER: ContextVar[Caller | None] = ContextVar("memwarden_connection_caller", default=None)


def caller_of(ctx: Context) -> Caller:
    """The HTTP layer's authenticated caller for this request, or the daemon connection's, or
    the service's default caller (plain stdio); marked as coming through MCP, the route its
    writes record (``Memory.source``)."""
    request = ctx.request_context.request
    scope = getattr(request, "scope", None)
    if isinstance(scope, dict):
        caller = scope.get(CALLER_SCOPE_KEY)
        if isinstance(caller, Caller):
            return caller.via("mcp")
    connection = CONNECTION_CALLER.get()
    return (connection or service_of(ctx).default_caller).via("mcp")


def project_of(project: str | None, scope: str | None) -> str | None:
    """``project``, or its alias ``scope``; sending both with different values is an error."""
    if project is not None and scope is not None and project != scope:
        raise ToolError(f"project={project!r} and scope={scope!r} disagree; scope is an alias, send one")
    return project if project is not None else scope


def tags_of(value: list[str] | str | None) -> list[str] | None:
    """Models often send a JSON string (or a comma list) where a list is expected; accept both."""
    if value is None or isinstance(value, list):
        return value
    text = value.strip()
    if text.startswith("["):
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            raise ToolError('tags: not a valid JSON array; send a list such as ["infra", "db"]') from None
        if isinstance(parsed, list):
            return parsed
    return [part.strip() for part in text.split(",") if part.strip()]


def ids_of(value: list[str] | str) -> list[str] | str:
    """A list of ids, from a list, one id, or a JSON array string."""
    if isinstance(value, str) and value.strip().startswith("["):
        try:
            parsed: list[str] = json.loads(value)
        except json.JSONDecodeError:
            raise ToolError("ids: not a valid JSON array of ids") from None
        return parsed
    return value


R = TypeVar("R", bound="Request")


def _tool_error(exc: MemwardenError) -> ToolError:
    hint = "; find ids with memory_search" if about_an_id(exc) else ""
    return ToolError(f"{exc.code}: {exc.message}{hint}")


def request_of(model: type[R], arguments: dict[str, Any]) -> R:
    """``model`` of a tool's arguments; bad input is a tool error in memwarden's words."""
    try:
        return model.model_validate(arguments)
    except MemwardenError as exc:
        raise _tool_error(exc) from None


async def call_service(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """Run a service call off the event loop; turn memwarden errors into tool errors."""
    try:
        return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs))
    except MemwardenError as exc:
        raise _tool_error(exc) from None


async def fetch_for_request(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``call_service`` for prompts and resources, whose errors are protocol errors, not tool results.

    Bad input (an invalid project, say) is ``invalid params`` with memwarden's message, so the
    client shows what to send instead; any other memwarden error is an internal error.
    """
    try:
        return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs))
    except MemwardenError as exc:
        code = INVALID_PARAMS if isinstance(exc, (InvalidInput, NotFound)) else INTERNAL_ERROR
        raise MCPError(code, f"{exc.code}: {exc.message}") from None


def invalid_params(message: str) -> MCPError:
    """The protocol error for bad prompt or resource arguments."""
    return MCPError(INVALID_PARAMS, f"invalid_input: {message}")
