"""MCP tools over memories: add, search, update, delete (profile ``core``); get, list, stats, echo.

Each memory tool is built from its request model (``memwarden.requests``): the parameters a
client lists (names, types, defaults, descriptions) are the model's fields, so a field added to
the model is offered here without an edit. Where the MCP wire differs from the request (see
``WIRE_TYPES`` and ``scope``) the difference is spelled out once below. A tool turns the
arguments into the request, calls the service off the event loop and returns a structured
result; the words a model reads live in ``tool_text`` (descriptions and parameters).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import BaseModel

from memwarden.mcp import schemas as out
from memwarden.mcp.calls import call_service, caller_of, ids_of, project_of, request_of, service_of, tags_of
from memwarden.mcp.data_results import data_result
from memwarden.requests import (
    AddRequest,
    DeleteRequest,
    GetRequest,
    ListRequest,
    Request,
    SearchRequest,
    StatsRequest,
    UpdateRequest,
)
from memwarden.tool_text import described

TagList = list[str] | str | None
# What a client may send where the request is stricter: models often send a JSON array string
# (or one id) where a list is expected, and a date travels as ISO 8601 text.
WIRE_TYPES: dict[str, Any] = {"tags": TagList, "ids": list[str] | str, "occurred_at": str | None}
# Request fields a model is not offered: the server decides them.
UNOFFERED = frozenset({"vector"})

Run = Callable[[Context, Any], Awaitable[Any]]
# ``Annotated`` with a type known only at run time (a field's), which type checkers cannot read.
_ANNOTATED: Any = Annotated


def _parameters(model: type[Request], tool: str) -> list[inspect.Parameter]:
    """The tool's parameters: each offered field of ``model``, ``scope`` after ``project``."""
    params: list[inspect.Parameter] = []
    for name, field in model.model_fields.items():
        if name in UNOFFERED:
            continue
        annotation = _ANNOTATED[WIRE_TYPES.get(name, field.annotation), described(tool, name)]
        default = inspect.Parameter.empty if field.is_required() else field.default
        params.append(
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
        )
        if name == "project":
            scope = Annotated[str | None, described(tool, "scope")]
            params.append(
                inspect.Parameter("scope", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=scope)
            )
    return params


def _request(model: type[Request], arguments: dict[str, Any]) -> Request:
    """The request of a tool call's arguments (wire forms turned into the request's)."""
    if "scope" in arguments:
        arguments["project"] = project_of(arguments.get("project"), arguments.pop("scope"))
    if "tags" in arguments:
        arguments["tags"] = tags_of(arguments["tags"])
    if "ids" in arguments:
        ids = ids_of(arguments["ids"])
        arguments["ids"] = [ids] if isinstance(ids, str) else ids
    return request_of(model, arguments)


def request_tool(model: type[Request], run: Run, returns: Any) -> Callable[..., Awaitable[Any]]:
    """A tool function whose signature is ``model``'s fields; it calls ``run(ctx, request)``."""
    tool = model.tool
    assert tool is not None, model

    async def call(ctx: Context, **arguments: Any) -> Any:
        return await run(ctx, _request(model, arguments))

    params = _parameters(model, tool)
    ctx = inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Context)
    call.__signature__ = inspect.Signature([ctx, *params], return_annotation=returns)  # type: ignore[attr-defined]
    call.__annotations__ = {"ctx": Context, **{p.name: p.annotation for p in params}, "return": returns}
    call.__name__ = call.__qualname__ = tool
    return call


def _memories(found: list[Any], *, include_context: bool = False) -> list[out.MemoryOut]:
    return [out.MemoryOut.model_validate(m.to_dict(include_context=include_context)) for m in found]


async def _add(ctx: Context, request: AddRequest) -> CallToolResult:
    result = await call_service(service_of(ctx).memories.add, request, caller=caller_of(ctx))
    return data_result(out.AddOut.model_validate(result.to_dict()))


async def _search(ctx: Context, request: SearchRequest) -> CallToolResult:
    result = await call_service(service_of(ctx).search, request, caller=caller_of(ctx))
    return data_result(out.SearchOut.model_validate(result.to_dict()))


async def _update(ctx: Context, request: UpdateRequest) -> CallToolResult:
    memory = await call_service(service_of(ctx).memories.update, request, caller=caller_of(ctx))
    return data_result(out.UpdateOut(memory=out.MemoryOut.model_validate(memory.to_dict())))


async def _delete(ctx: Context, request: DeleteRequest) -> BaseModel:
    result = await call_service(service_of(ctx).memories.delete, request, caller=caller_of(ctx))
    return out.DeleteOut.model_validate(result.to_dict())


async def _get(ctx: Context, request: GetRequest) -> CallToolResult:
    found, missing = await call_service(service_of(ctx).memories.get, request, caller=caller_of(ctx))
    return data_result(
        out.GetOut(memories=_memories(found, include_context=request.include_context), missing=missing)
    )


async def _list(ctx: Context, request: ListRequest) -> CallToolResult:
    memories = await call_service(service_of(ctx).memories.list, request, caller=caller_of(ctx))
    return data_result(out.ListOut(memories=_memories(memories), count=len(memories)))


async def _stats(ctx: Context, request: StatsRequest) -> BaseModel:
    stats = await call_service(service_of(ctx).memories.stats, request, caller=caller_of(ctx))
    known = set(out.StatsOut.model_fields)
    return out.StatsOut(
        **{k: v for k, v in stats.items() if k in known},
        extra={k: v for k, v in stats.items() if k not in known},
    )


memory_add = request_tool(AddRequest, _add, Annotated[CallToolResult, out.AddOut])
memory_search = request_tool(SearchRequest, _search, Annotated[CallToolResult, out.SearchOut])
memory_update = request_tool(UpdateRequest, _update, Annotated[CallToolResult, out.UpdateOut])
memory_delete = request_tool(DeleteRequest, _delete, out.DeleteOut)
memory_get = request_tool(GetRequest, _get, Annotated[CallToolResult, out.GetOut])
memory_list = request_tool(ListRequest, _list, Annotated[CallToolResult, out.ListOut])
memory_stats = request_tool(StatsRequest, _stats, out.StatsOut)


async def echo(message: Annotated[str, described("echo", "message")]) -> out.EchoOut:
    return out.EchoOut(message=message)


def _hints(*, read_only: bool, destructive: bool = False, idempotent: bool = True) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


# Name, function, behaviour hints; the profile ``core`` is the first four.
MEMORY_TOOLS: list[tuple[str, Callable[..., Any], ToolAnnotations]] = [
    ("memory_add", memory_add, _hints(read_only=False)),
    ("memory_search", memory_search, _hints(read_only=True)),
    ("memory_update", memory_update, _hints(read_only=False, destructive=True, idempotent=False)),
    ("memory_delete", memory_delete, _hints(read_only=False, destructive=True)),
    ("memory_get", memory_get, _hints(read_only=True)),
    ("memory_list", memory_list, _hints(read_only=True)),
    ("memory_stats", memory_stats, _hints(read_only=True)),
]
ECHO_TOOL: tuple[str, Callable[..., Any], ToolAnnotations] = ("echo", echo, _hints(read_only=True))
