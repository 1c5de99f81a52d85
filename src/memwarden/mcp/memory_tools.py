"""MCP tools over memories: add, search, update, delete (profile ``core``); get, list, stats, echo.

Each tool parses its arguments, calls the service off the event loop and returns a structured
result; the words a model reads about them live in ``tool_text`` (descriptions and parameters).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, ToolAnnotations

from memwarden.mcp import schemas as out
from memwarden.mcp.calls import call_service, caller_of, ids_of, project_of, service_of, tags_of
from memwarden.mcp.data_results import data_result
from memwarden.mcp.tool_text import described

TagList = list[str] | str | None


async def memory_add(
    content: Annotated[str, described("memory_add", "content")],
    ctx: Context,
    project: Annotated[str | None, described("memory_add", "project")] = None,
    scope: Annotated[str | None, described("memory_add", "scope")] = None,
    kind: Annotated[str, described("memory_add", "kind")] = "fact",
    title: Annotated[str, described("memory_add", "title")] = "",
    tags: Annotated[TagList, described("memory_add", "tags")] = None,
    pinned: Annotated[bool, described("memory_add", "pinned")] = False,
    ttl_hours: Annotated[float | None, described("memory_add", "ttl_hours")] = None,
    context: Annotated[str | None, described("memory_add", "context")] = None,
    thread: Annotated[str | None, described("memory_add", "thread")] = None,
    occurred_at: Annotated[str | None, described("memory_add", "occurred_at")] = None,
) -> Annotated[CallToolResult, out.AddOut]:
    result = await call_service(
        service_of(ctx).memories.add,
        content,
        project=project_of(project, scope),
        kind=kind,
        title=title,
        tags=tags_of(tags),
        pinned=pinned,
        ttl_hours=ttl_hours,
        context=context,
        thread=thread,
        occurred_at=occurred_at,
        caller=caller_of(ctx),
    )
    return data_result(out.AddOut.model_validate(result.to_dict()))


async def memory_search(
    ctx: Context,
    query: Annotated[str, described("memory_search", "query")] = "",
    project: Annotated[str | None, described("memory_search", "project")] = None,
    scope: Annotated[str | None, described("memory_search", "scope")] = None,
    tags: Annotated[TagList, described("memory_search", "tags")] = None,
    limit: Annotated[int, described("memory_search", "limit")] = 10,
    include_expired: Annotated[bool, described("memory_search", "include_expired")] = False,
    max_tokens: Annotated[int | None, described("memory_search", "max_tokens")] = None,
    include_context: Annotated[bool, described("memory_search", "include_context")] = False,
) -> Annotated[CallToolResult, out.SearchOut]:
    result = await call_service(
        service_of(ctx).searcher.search,
        query,
        project=project_of(project, scope),
        tags=tags_of(tags),
        limit=limit,
        include_expired=include_expired,
        max_tokens=max_tokens,
        include_context=include_context,
        caller=caller_of(ctx),
    )
    return data_result(out.SearchOut.model_validate(result.to_dict()))


async def memory_update(
    id: Annotated[str, described("memory_update", "id")],
    ctx: Context,
    content: Annotated[str | None, described("memory_update", "content")] = None,
    project: Annotated[str | None, described("memory_update", "project")] = None,
    scope: Annotated[str | None, described("memory_update", "scope")] = None,
    kind: Annotated[str | None, described("memory_update", "kind")] = None,
    title: Annotated[str | None, described("memory_update", "title")] = None,
    tags: Annotated[TagList, described("memory_update", "tags")] = None,
    pinned: Annotated[bool | None, described("memory_update", "pinned")] = None,
    ttl_hours: Annotated[float | None, described("memory_update", "ttl_hours")] = None,
    context: Annotated[str | None, described("memory_update", "context")] = None,
    thread: Annotated[str | None, described("memory_update", "thread")] = None,
    occurred_at: Annotated[str | None, described("memory_update", "occurred_at")] = None,
    if_version: Annotated[int | None, described("memory_update", "if_version")] = None,
) -> Annotated[CallToolResult, out.UpdateOut]:
    memory = await call_service(
        service_of(ctx).memories.update,
        id,
        content=content,
        project=project_of(project, scope),
        kind=kind,
        title=title,
        tags=tags_of(tags),
        pinned=pinned,
        ttl_hours=ttl_hours,
        context=context,
        thread=thread,
        occurred_at=occurred_at,
        if_version=if_version,
        caller=caller_of(ctx),
    )
    return data_result(out.UpdateOut(memory=out.MemoryOut.model_validate(memory.to_dict())))


async def memory_delete(id: Annotated[str, described("memory_delete", "id")], ctx: Context) -> out.DeleteOut:
    result = await call_service(service_of(ctx).memories.delete, id, caller=caller_of(ctx))
    return out.DeleteOut.model_validate(result.to_dict())


async def memory_get(
    ids: Annotated[list[str] | str, described("memory_get", "ids")],
    ctx: Context,
    include_context: Annotated[bool, described("memory_get", "include_context")] = False,
) -> Annotated[CallToolResult, out.GetOut]:
    found, missing = await call_service(service_of(ctx).memories.get, ids_of(ids), caller=caller_of(ctx))
    return data_result(
        out.GetOut(
            memories=[
                out.MemoryOut.model_validate(m.to_dict(include_context=include_context)) for m in found
            ],
            missing=missing,
        )
    )


async def memory_list(
    ctx: Context,
    project: Annotated[str | None, described("memory_list", "project")] = None,
    scope: Annotated[str | None, described("memory_list", "scope")] = None,
    tags: Annotated[TagList, described("memory_list", "tags")] = None,
    pinned: Annotated[bool, described("memory_list", "pinned")] = False,
    limit: Annotated[int, described("memory_list", "limit")] = 20,
    include_expired: Annotated[bool, described("memory_list", "include_expired")] = False,
) -> Annotated[CallToolResult, out.ListOut]:
    memories = await call_service(
        service_of(ctx).memories.list,
        project=project_of(project, scope),
        tags=tags_of(tags),
        pinned=pinned,
        limit=limit,
        include_expired=include_expired,
        caller=caller_of(ctx),
    )
    return data_result(
        out.ListOut(
            memories=[out.MemoryOut.model_validate(m.to_dict()) for m in memories], count=len(memories)
        )
    )


async def memory_stats(
    ctx: Context,
    project: Annotated[str | None, described("memory_stats", "project")] = None,
    scope: Annotated[str | None, described("memory_stats", "scope")] = None,
) -> out.StatsOut:
    stats = await call_service(
        service_of(ctx).memories.stats, project=project_of(project, scope), caller=caller_of(ctx)
    )
    known = set(out.StatsOut.model_fields)
    return out.StatsOut(
        **{k: v for k, v in stats.items() if k in known},
        extra={k: v for k, v in stats.items() if k not in known},
    )


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
