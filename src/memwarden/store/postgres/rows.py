"""How a memory is laid out in PostgreSQL rows: the column list and the two conversions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memwarden.models import Memory

COLUMNS = (
    "id, tenant, project, kind, title, tags, content, content_hash, pinned, created_at, updated_at, "
    "expires_at, deleted_at, version, hit_count, last_used_at, redactions, injection_flags, context, thread, "
    "occurred_at, source, actor"
)
NCOLUMNS = len(COLUMNS.split(","))
M_COLUMNS = ", ".join(f"m.{c.strip()}" for c in COLUMNS.split(","))


def row_to_memory(row: Sequence[Any]) -> Memory:
    return Memory(
        id=row[0],
        tenant=row[1],
        project=row[2],
        kind=row[3],
        title=row[4],
        tags=tuple(row[5]),
        content=row[6],
        content_hash=row[7],
        pinned=bool(row[8]),
        created_at=row[9],
        updated_at=row[10],
        expires_at=row[11],
        deleted_at=row[12],
        version=row[13],
        hit_count=row[14],
        last_used_at=row[15],
        redactions=tuple(row[16]),
        injection_flags=tuple(row[17]),
        context=row[18],
        thread=row[19],
        occurred_at=row[20],
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
        list(m.tags),
        m.content,
        m.content_hash,
        m.pinned,
        m.created_at,
        m.updated_at,
        m.expires_at,
        m.deleted_at,
        m.version,
        m.hit_count,
        m.last_used_at,
        list(m.redactions),
        list(m.injection_flags),
        m.context,
        m.thread,
        m.occurred_at,
        m.source,
        m.actor,
    )
