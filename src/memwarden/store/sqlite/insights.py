"""SQLiteInsights: the dashboard's reads of the memories table (browse one page, overview).

Every query here is served by an index of migration ``0007_dashboard`` or the ones before it,
so a page costs about the same at 100k memories as at 1k; counts stop at a limit instead of
walking every match.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from memwarden.models import MemoryPage, MemoryQuery, StoreOverview, format_time
from memwarden.store.sqlite.rows import M_COLUMNS, row_to_memory


def browse_filters(query: MemoryQuery, now: datetime) -> tuple[str, list[Any]]:
    """The WHERE clause (after tenant) of a browse; the flag and pin terms are spelled as in
    the partial indexes' WHERE clauses so SQLite can use them."""
    sql, params = " AND (m.expires_at IS NULL OR m.expires_at > ?)", [format_time(now)]
    for clause, value in (
        ("m.project = ?", query.project),
        ("m.kind = ?", query.kind),
        ("m.created_at >= ?", format_time(query.created_since)),
        ("m.created_at < ?", format_time(query.created_until)),
    ):
        if value is not None:
            sql += f" AND {clause}"
            params.append(value)
    if query.tag is not None:
        sql += " AND EXISTS (SELECT 1 FROM json_each(m.tags) WHERE json_each.value = ?)"
        params.append(query.tag)
    if query.pinned is not None:
        sql += " AND m.pinned = 1" if query.pinned else " AND m.pinned = 0"
    if query.flagged is not None:
        sql += " AND m.injection_flags != '[]'" if query.flagged else " AND m.injection_flags = '[]'"
    return sql, params


@contextmanager
def read_snapshot(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Several SELECTs that see one state of the database (a deferred read transaction)."""
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN")
    try:
        yield conn
    finally:
        conn.execute("COMMIT")


class SQLiteInsights:
    """Mixed into ``SQLiteStore``; uses its per-thread connections."""

    connection: Callable[[], sqlite3.Connection]

    def browse(
        self, tenant: str, query: MemoryQuery, *, now: datetime, limit: int, offset: int, count_limit: int
    ) -> MemoryPage:
        where, params = browse_filters(query, now)
        base = f"FROM memories m WHERE m.tenant = ? AND m.deleted_at IS NULL{where}"
        with read_snapshot(self.connection()) as conn:  # the page and its count agree
            rows = conn.execute(
                f"SELECT {M_COLUMNS} {base} ORDER BY m.updated_at DESC, m.id DESC LIMIT ? OFFSET ?",
                (tenant, *params, limit, offset),
            ).fetchall()
            total = conn.execute(
                f"SELECT COUNT(*) FROM (SELECT 1 {base} LIMIT ?)", (tenant, *params, count_limit + 1)
            ).fetchone()[0]
        return MemoryPage([row_to_memory(r) for r in rows], min(total, count_limit), total > count_limit)

    def overview(self, tenant: str, *, now: datetime, weeks_since: datetime, top: int) -> StoreOverview:
        with read_snapshot(self.connection()) as conn:
            counts = conn.execute(
                "SELECT project, kind, COUNT(*) FROM memories WHERE tenant = ? AND deleted_at IS NULL"
                " GROUP BY project, kind ORDER BY project, kind",
                (tenant,),
            ).fetchall()
            # The Monday of each memory's week: step back 6 days, then forward to a Monday.
            weeks = conn.execute(
                "SELECT date(substr(created_at, 1, 10), '-6 days', 'weekday 1') AS week, project, COUNT(*)"
                " FROM memories WHERE tenant = ? AND deleted_at IS NULL AND created_at >= ?"
                " GROUP BY week, project ORDER BY week, project",
                (tenant, format_time(weeks_since)),
            ).fetchall()
            recalled = conn.execute(
                f"SELECT {M_COLUMNS} FROM memories m WHERE m.tenant = ? AND m.deleted_at IS NULL"
                " AND m.hit_count > 0 ORDER BY m.hit_count DESC, m.id LIMIT ?",
                (tenant, top),
            ).fetchall()
            rules = conn.execute(
                "SELECT j.value, COUNT(*) FROM memories m, json_each(m.redactions) j WHERE m.tenant = ?"
                " AND m.deleted_at IS NULL AND m.redactions != '[]' GROUP BY j.value ORDER BY 2 DESC, 1",
                (tenant,),
            ).fetchall()
        return StoreOverview(
            counts=[(str(p), str(k), int(n)) for p, k, n in counts],
            added_per_week=[(str(w), str(p), int(n)) for w, p, n in weeks],
            most_recalled=[row_to_memory(r) for r in recalled],
            redactions_per_rule={str(rule): int(n) for rule, n in rules},
        )
