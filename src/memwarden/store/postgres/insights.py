"""PostgresInsights: the dashboard's reads of the memories table (browse one page, overview),
the PostgreSQL twin of ``store/sqlite/insights.py`` served by the indexes of migration ``0006_dashboard``."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memwarden.models import Memory, MemoryPage, MemoryQuery, StoreOverview

if TYPE_CHECKING:  # pragma: no cover
    import psycopg


def browse_filters(query: MemoryQuery, now: datetime) -> tuple[str, list[Any]]:
    """The WHERE clause (after tenant) of a browse, flag and pin terms spelled as in the indexes."""
    sql = " AND (m.expires_at IS NULL OR m.expires_at > %s)"
    params: list[Any] = [now]
    for clause, value in (
        ("m.project = %s", query.project),
        ("m.kind = %s", query.kind),
        ("m.created_at >= %s", query.created_since),
        ("m.created_at < %s", query.created_until),
    ):
        if value is not None:
            sql += f" AND {clause}"
            params.append(value)
    if query.tag is not None:
        sql += " AND m.tags @> %s"
        params.append([query.tag])
    if query.pinned is not None:
        sql += " AND m.pinned" if query.pinned else " AND NOT m.pinned"
    if query.flagged is not None:
        sql += (
            " AND cardinality(m.injection_flags) > 0"
            if query.flagged
            else " AND cardinality(m.injection_flags) = 0"
        )
    return sql, params


class PostgresInsights:
    """Mixed into ``PostgresStore``; uses its pooled connections."""

    connection: Callable[[], AbstractContextManager[psycopg.Connection]]
    _columns: str
    _to_memory: Callable[[Any], Memory]

    def browse(
        self, tenant: str, query: MemoryQuery, *, now: datetime, limit: int, offset: int, count_limit: int
    ) -> MemoryPage:
        where, params = browse_filters(query, now)
        base = f"FROM memories m WHERE m.tenant = %s AND m.deleted_at IS NULL{where}"
        with self.connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            rows = conn.execute(
                f"SELECT {self._columns} {base} ORDER BY m.updated_at DESC, m.id DESC LIMIT %s OFFSET %s",
                (tenant, *params, limit, offset),
            ).fetchall()
            row = conn.execute(
                f"SELECT COUNT(*) FROM (SELECT 1 {base} LIMIT %s) AS page",
                (tenant, *params, count_limit + 1),
            ).fetchone()
        total = int(row[0]) if row else 0
        return MemoryPage([self._to_memory(r) for r in rows], min(total, count_limit), total > count_limit)

    def overview(self, tenant: str, *, now: datetime, weeks_since: datetime, top: int) -> StoreOverview:
        live = "tenant = %s AND deleted_at IS NULL"
        with self.connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            counts = conn.execute(
                f"SELECT project, kind, COUNT(*) FROM memories WHERE {live} GROUP BY project, kind"
                " ORDER BY project, kind",
                (tenant,),
            ).fetchall()
            weeks = conn.execute(
                "SELECT to_char(date_trunc('week', created_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS week,"
                f" project, COUNT(*) FROM memories WHERE {live} AND created_at >= %s"
                " GROUP BY week, project ORDER BY week, project",
                (tenant, weeks_since),
            ).fetchall()
            recalled = conn.execute(
                f"SELECT {self._columns} FROM memories m WHERE m.tenant = %s AND m.deleted_at IS NULL"
                " AND m.hit_count > 0 ORDER BY m.hit_count DESC, m.id LIMIT %s",
                (tenant, top),
            ).fetchall()
            rules = conn.execute(
                "SELECT rule, COUNT(*) FROM memories m, unnest(m.redactions) AS rule WHERE m.tenant = %s"
                " AND m.deleted_at IS NULL AND cardinality(m.redactions) > 0 GROUP BY rule ORDER BY 2 DESC, 1",
                (tenant,),
            ).fetchall()
        return StoreOverview(
            counts=[(str(p), str(k), int(n)) for p, k, n in counts],
            added_per_week=[(str(w), str(p), int(n)) for w, p, n in weeks],
            most_recalled=[self._to_memory(r) for r in recalled],
            redactions_per_rule={str(rule): int(n) for rule, n in rules},
        )
