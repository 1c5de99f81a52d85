"""MCP tools for operations (profile ``all``): health, review, export, import.

Files: tools never take paths. ``memory_export`` and ``memory_import`` take a plain file name
inside MEMWARDEN_EXPORT_DIR (or carry the export inline), so a model cannot read or write
anywhere else.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations

from memwarden.hidden_paths import hide_paths
from memwarden.mcp import schemas as out
from memwarden.mcp.calls import call_service, caller_of, project_of, service_of
from memwarden.mcp.data_results import data_result
from memwarden.tool_text import described


async def memory_health(
    ctx: Context, repair: Annotated[bool, described("memory_health", "repair")] = True
) -> out.HealthOut:
    service, caller = service_of(ctx), caller_of(ctx)
    report = await call_service(service.operations.health, repair=repair, caller=caller)
    if not caller.same_party(service.default_caller):
        report = hide_paths(report)  # a confined caller: no absolute paths (as /healthz?deep=1)
    return out.HealthOut.model_validate(report)


async def memory_review(
    ctx: Context,
    project: Annotated[str | None, described("memory_review", "project")] = None,
    scope: Annotated[str | None, described("memory_review", "scope")] = None,
    stale_days: Annotated[int, described("memory_review", "stale_days")] = 90,
    limit: Annotated[int, described("memory_review", "limit")] = 50,
) -> Annotated[CallToolResult, out.ReviewOut]:
    report = await call_service(
        service_of(ctx).operations.review,
        project=project_of(project, scope),
        stale_days=stale_days,
        limit=limit,
        caller=caller_of(ctx),
    )
    return data_result(out.ReviewOut.model_validate(report))  # previews of stored text: escaped


async def memory_export(
    ctx: Context,
    project: Annotated[str | None, described("memory_export", "project")] = None,
    scope: Annotated[str | None, described("memory_export", "scope")] = None,
    include_deleted: Annotated[bool, described("memory_export", "include_deleted")] = False,
    name: Annotated[str | None, described("memory_export", "name")] = None,
) -> Annotated[CallToolResult, out.ExportOut]:
    service = service_of(ctx)
    chosen = project_of(project, scope)
    if name is None:
        document = await call_service(
            service.operations.export, project=chosen, include_deleted=include_deleted, caller=caller_of(ctx)
        )
        return data_result(out.ExportOut(count=document["count"], export=document))  # stored text: escaped
    written = await call_service(
        service.operations.export_file,
        name,
        project=chosen,
        include_deleted=include_deleted,
        caller=caller_of(ctx),
    )
    return data_result(out.ExportOut(count=written["count"], file=written["file"]))


async def memory_import(
    ctx: Context,
    data: Annotated[str | dict[str, Any] | list[Any] | None, described("memory_import", "data")] = None,
    name: Annotated[str | None, described("memory_import", "name")] = None,
    format: Annotated[str, described("memory_import", "format")] = "auto",
    project: Annotated[str | None, described("memory_import", "project")] = None,
    scope: Annotated[str | None, described("memory_import", "scope")] = None,
) -> Annotated[CallToolResult, out.ImportOut]:
    if (data is None) == (name is None):
        raise ToolError(
            "invalid_input: send exactly one of data (the content) or name (a file in the export folder)"
        )
    service = service_of(ctx)
    chosen = project_of(project, scope)
    if name is not None:
        report = await call_service(
            service.operations.import_file, name, fmt=format, project=chosen, caller=caller_of(ctx)
        )
    else:
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        if len(text.encode("utf-8")) > service.operations.options.import_max_bytes:
            raise ToolError(
                f"invalid_input: data is over the import limit of {service.operations.options.import_max_bytes} bytes"
            )
        report = await call_service(
            service.operations.import_text, text, fmt=format, project=chosen, caller=caller_of(ctx)
        )
    return data_result(out.ImportOut.model_validate(report))  # may quote titles of refused records


def _hints(*, read_only: bool, idempotent: bool = True) -> ToolAnnotations:
    return ToolAnnotations(
        read_only_hint=read_only, destructive_hint=False, idempotent_hint=idempotent, open_world_hint=False
    )


OPS_TOOLS: list[tuple[str, Callable[..., Any], ToolAnnotations]] = [
    ("memory_health", memory_health, _hints(read_only=False)),
    ("memory_review", memory_review, _hints(read_only=True)),
    ("memory_export", memory_export, _hints(read_only=False, idempotent=False)),
    ("memory_import", memory_import, _hints(read_only=False)),
]
