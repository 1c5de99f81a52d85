"""How a memory row maps to Python and back, and the filters every read of memories applies;
shared by the SQLite store's modules."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memwarden.models import Memory, format_time, parse_time

COLUMNS = (
    "id, tenant, project, kind, title, tags, content, content_hash, pinned, created_at, updated_at, "
    "expires_at, deleted_at, version, hit_count, last_used_at, redactions, injection_flags, context, thread, occurred_at, "
    "source, actor"
)
NCOLUMNS = len(COLUMNS.split(","))
M_COLUMNS = ", ".join(f"m.{c.strip()}" for c in COLUMNS.split(","))


def json_list(text: str) -> tuple[str, ...]:
    # Most memories have no tags, redactions or flags: skip the JSON parser for "[]".
    return () if text == "[]" else tuple(json.loads(text))


def row_to_memory(row: Sequence[Any]) -> Memory:
    return Memory(
        id=row[0],
        tenant=row[1],
        project=row[2],
        kind=row[3],
        title=row[4],
        tags=json_list(row[5]),
        content=row[6],
        content_hash=row[7],
        pinned=bool(row[8]),
        created_at=parse_time(row[9]),  # type: ignore[arg-type]
        updated_at=parse_time(row[10]),  # type: ignore[arg-type]
        expires_at=parse_time(row[11]),
        deleted_at=parse_time(row[12]),
        version=row[13],
        hit_count=row[14],
        last_used_at=parse_time(row[15]),
        redactions=json_list(row[16]),
        injection_flags=json_list(row[17]),
        context=row[18],
        thread=row[19],
        occurred_at=parse_time(row[20]),
        source=row[21],
        actor=row[22],
    )


def memory_params(m: Memory) -> tuple[Any, ...]:
    return (
        m.id,
        m.tenant,
        m.project,
        m.kind,
        m.title,
        json.dumps(list(m.tags), ensure_ascii=False),
        m.content,
        m.content_hash,
        int(m.pinned),
        format_time(m.created_at),
        format_time(m.updated_at),
        format_time(m.expires_at),
        format_time(m.deleted_at),
        m.version,
        m.hit_count,
        format_time(m.last_used_at),
        json.dumps(list(m.redactions)),
        json.dumps(list(m.injection_flags)),
        m.context,
        m.thread,
        format_time(m.occurred_at),
        m.source,
        m.actor,
    )


def memory_filters(
    project: str | None, tags: Sequence[str], include_expired: bool, now: datetime
) -> tuple[str, list[Any]]:
    """The ``AND …`` terms (over ``memories m``) and their parameters for a project, tags that
    must all be present, and expiry as of ``now``."""
    sql, params = "", list[Any]()
    if project is not None:
        sql += " AND m.project = ?"
        params.append(project)
    if not include_expired:
        sql += " AND (m.expires_at IS NULL OR m.expires_at > ?)"
        params.append(format_time(now))
    for tag in tags:
        sql += " AND EXISTS (SELECT 1 FROM json_each(m.tags) WHERE json_each.value = ?)"
        params.append(tag)
    return sql, params
