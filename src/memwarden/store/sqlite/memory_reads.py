"""Reads of memories by id, by recency, and their counts (``get_many``, ``list_memories``,
``stats``): plain SELECTs on this thread's connection, no transaction of their own."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from memwarden.models import Memory, format_time
from memwarden.store.sqlite.database import SQLiteDatabase
from memwarden.store.sqlite.rows import COLUMNS, M_COLUMNS, memory_filters, row_to_memory


def get_many(db: SQLiteDatabase, tenant: str, ids: Sequence[str]) -> list[Memory]:
    """Memories with these ids (deleted ones included), in the order asked."""
    if not ids:
        return []
    marks = ", ".join("?" * len(ids))
    rows = db.connection().execute(
        f"SELECT {COLUMNS} FROM memories WHERE +tenant = ? AND id IN ({marks})", (tenant, *ids)
    )
    found = {m.id: m for m in map(row_to_memory, rows)}
    return [found[i] for i in dict.fromkeys(ids) if i in found]


def list_memories(
    conn: sqlite3.Connection,
    tenant: str,
    *,
    project: str | None,
    tags: Sequence[str],
    pinned_only: bool,
    include_expired: bool,
    now: datetime,
    limit: int,
    offset: int,
) -> list[Memory]:
    """Live memories, most recently updated first (see ``Store.list_memories``)."""
    where, params = memory_filters(project, tags, include_expired, now)
    if pinned_only:
        where += " AND m.pinned = 1"
    rows = conn.execute(
        f"SELECT {M_COLUMNS} FROM memories m WHERE m.tenant = ? AND m.deleted_at IS NULL{where}"
        " ORDER BY m.updated_at DESC, m.id DESC LIMIT ? OFFSET ?",
        (tenant, *params, limit, offset),
    )
    return [row_to_memory(row) for row in rows]


def stats(db: SQLiteDatabase, tenant: str, project: str | None, now: datetime) -> dict[str, Any]:
    """Counts and sizes for one tenant (optionally one project), and the file's size."""
    conn = db.connection()
    scope, params = (
        ("tenant = ?", [tenant]) if project is None else ("tenant = ? AND project = ?", [tenant, project])
    )
    stamp = format_time(now)
    row = conn.execute(
        "SELECT"
        " SUM(deleted_at IS NULL AND (expires_at IS NULL OR expires_at > ?)),"
        " SUM(deleted_at IS NULL AND expires_at IS NOT NULL AND expires_at <= ?),"
        " SUM(deleted_at IS NOT NULL),"
        " SUM(deleted_at IS NULL AND pinned = 1),"
        " SUM(CASE WHEN deleted_at IS NULL THEN length(CAST(content AS BLOB)) ELSE 0 END),"
        " SUM(deleted_at IS NULL AND hit_count = 0)"
        f" FROM memories WHERE {scope}",
        (stamp, stamp, *params),
    ).fetchone()
    projects = dict(
        conn.execute(
            f"SELECT project, COUNT(*) FROM memories WHERE {scope} AND deleted_at IS NULL"
            " GROUP BY project ORDER BY project",
            params,
        ).fetchall()
    )
    kinds = dict(
        conn.execute(
            f"SELECT kind, COUNT(*) FROM memories WHERE {scope} AND deleted_at IS NULL GROUP BY kind ORDER BY kind",
            params,
        ).fetchall()
    )
    return {
        "memories": row[0] or 0,
        "expired": row[1] or 0,
        "deleted": row[2] or 0,
        "pinned": row[3] or 0,
        "content_bytes": row[4] or 0,
        "never_retrieved": row[5] or 0,
        "projects": projects,
        "kinds": kinds,
        "backend": "sqlite",
        "database_bytes": db.file_bytes(),
    }
