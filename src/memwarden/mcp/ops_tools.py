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
from mcp.types import ToolAnnotations
from pydantic import Field

from memwarden.mcp import schemas as out
from memwarden.mcp.server import Project, Scope, _call, _caller, _project, _service

FileName = Annotated[
    str | None, Field(description="A plain file name (no folders) in the server's export folder, e.g. team.json")
]


async def memory_health(
    ctx: Context,
    repair: Annotated[bool, Field(description="Rebuild the keyword index if it fails its write test")] = True,
) -> out.HealthOut:
    """Check memwarden's health: database integrity, a real write to the keyword index (rebuilt from
    the memories table if it fails), the vector path, the last backup and its verification, vault errors."""
    report = await _call(_service(ctx).operations.health, repair=repair, caller=_caller(ctx))
    return out.HealthOut.model_validate(report)


async def memory_review(
    ctx: Context,
    project: Project = None,
    scope: Scope = None,
    stale_days: Annotated[int, Field(description="Unused for this many days counts as stale")] = 90,
    limit: Annotated[int, Field(description="At most this many proposals of each kind, 1-1000")] = 50,
) -> out.ReviewOut:
    """Propose clean-ups: likely duplicates, never-retrieved, stale and expired memories. It only
    proposes; nothing is changed. Act on proposals with memory_update or memory_delete."""
    report = await _call(_service(ctx).operations.review, project=_project(project, scope), stale_days=stale_days,
                         limit=limit, caller=_caller(ctx))
    return out.ReviewOut.model_validate(report)


async def memory_export(
    ctx: Context,
    project: Project = None,
    scope: Scope = None,
    include_deleted: Annotated[bool, Field(description="Also export deleted memories")] = False,
    name: FileName = None,
) -> out.ExportOut:
    """Export memories as memwarden export JSON (format version 1): inline (up to 1000 memories), or
    into a new file `name` in the server's export folder (never overwrites)."""
    service = _service(ctx)
    chosen = _project(project, scope)
    if name is None:
        document = await _call(service.operations.export, project=chosen, include_deleted=include_deleted,
                               caller=_caller(ctx))
        return out.ExportOut(count=document["count"], export=document)
    written = await _call(service.operations.export_file, name, project=chosen, include_deleted=include_deleted,
                          caller=_caller(ctx))
    return out.ExportOut(count=written["count"], file=written["file"])


async def memory_import(
    ctx: Context,
    data: Annotated[
        str | dict[str, Any] | list[Any] | None,
        Field(description="The file content inline: a memwarden export, mem0 JSON, memorry JSON or MCP memory JSONL"),
    ] = None,
    name: FileName = None,
    format: Annotated[str, Field(description="auto | memwarden | mcp-memory | mem0 | memorry")] = "auto",
    project: Annotated[str | None, Field(description="Put every imported memory in this project")] = None,
    scope: Scope = None,
) -> out.ImportOut:
    """Import memories (send `data` inline, or `name` of a file in the server's export folder).
    Duplicates are skipped (same id, or same content in the project), so importing twice is harmless;
    ids and times are kept; content is redacted like any new memory. A bad file changes nothing."""
    if (data is None) == (name is None):
        raise ToolError("invalid_input: send exactly one of data (the content) or name (a file in the export folder)")
    service = _service(ctx)
    chosen = _project(project, scope)
    if name is not None:
        report = await _call(service.operations.import_file, name, fmt=format, project=chosen, caller=_caller(ctx))
    else:
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        if len(text.encode("utf-8")) > service.operations.options.import_max_bytes:
            raise ToolError(f"invalid_input: data is over the import limit of {service.operations.options.import_max_bytes} bytes")
        report = await _call(service.operations.import_text, text, fmt=format, project=chosen, caller=_caller(ctx))
    return out.ImportOut.model_validate(report)


OPS_TOOLS: list[tuple[str, Callable[..., Any], ToolAnnotations]] = [
    ("memory_health", memory_health, ToolAnnotations(title="Check health", readOnlyHint=False,
                                                     destructiveHint=False, idempotentHint=True,
                                                     openWorldHint=False)),
    ("memory_review", memory_review, ToolAnnotations(title="Review memories", readOnlyHint=True,
                                                     destructiveHint=False, idempotentHint=True,
                                                     openWorldHint=False)),
    ("memory_export", memory_export, ToolAnnotations(title="Export memories", readOnlyHint=False,
                                                     destructiveHint=False, idempotentHint=False,
                                                     openWorldHint=False)),
    ("memory_import", memory_import, ToolAnnotations(title="Import memories", readOnlyHint=False,
                                                     destructiveHint=False, idempotentHint=True,
                                                     openWorldHint=False)),
]
