"""PostgresInsights: the dashboard's reads of the memories table (browse one page, overview),
the PostgreSQL twin of ``store/sqlite/insights.py`` served by the indexes of migrations ``0006_dashboard``
and ``0008_browse_tags`` (the tag table)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memwarden.browsing import BrowseCursor, MemoryPage, MemoryQuery, StoreOverview
from memwarden.models import Memory

if TYPE_CHECKING:  # pragma: no cover
    import psycopg


def browse_filters(query: MemoryQuery, now: datetime, t: str = "m") -> tuple[str, list[Any]]:
    """The WHERE clause (after tenant, and the tag) of a browse over ``memories`` (``t="m"``) or
    ``memory_tags`` (``t="t"``, same filter columns); flag and pin terms spelled as in the indexes."""
    sql = f" AND ({t}.expires_at IS NULL OR {t}.expires_at > %s)"
    params: list[Any] = [now]
    for clause, value in (
        (f"{t}.project = %s", query.project),
        (f"{t}.kind = %s", query.kind),
        (f"{t}.created_at >= %s", query.created_since),
        (f"{t}.created_at < %s", query.created_until),
    ):
        if value is not None:
            sql += f" AND {clause}"
            params.append(value)
    if query.pinned is not None:
        sql += f" AND {t}.pinned" if query.pinned else f" AND NOT {t}.pinned"
    if query.flagged is not None:
        flagged = "cardinality(m.injection_flags) > 0" if t == "m" else "t.flagged"
        sql += f" AND {flagged}" if query.flagged else f" AND NOT ({flagged})"
    return sql, params


class PostgresInsights:
    """Mixed into ``PostgresStore``; uses its pooled connections."""

    connection: Callable[[], AbstractContextManager[psycopg.Connection]]
    _columns: str
    _to_memory: Callable[[Any], Memory]

    def browse(
        self,
        tenant: str,
        query: MemoryQuery,
        *,
        now: datetime,
        limit: int,
        count_limit: int,
        after: BrowseCursor | None = None,
        before: BrowseCursor | None = None,
    ) -> MemoryPage:
        if query.tag is None:  # the newest-first indexes (memories_recent, _project, _pinned, _flagged)
            where, params = browse_filters(query, now)
            base = f"FROM memories m WHERE m.tenant = %s AND m.deleted_at IS NULL{where}"
            counted, key, params = base, "m.updated_at, m.id", [tenant, *params]
        else:  # the tag's rows of memory_tags (live memories), newest first; memories read for the page only
            where, params = browse_filters(query, now, "t")
            match = f"t.tenant = %s AND t.tag = %s{where}"
            base = f"FROM memory_tags t JOIN memories m ON m.id = t.memory_id WHERE {match}"
            counted, key = f"FROM memory_tags t WHERE {match}", "t.updated_at, t.memory_id"
            params = [tenant, query.tag, *params]

        def page(conn: psycopg.Connection, cursor: BrowseCursor | None, older: bool, size: int) -> list[Any]:
            sql, values = f"SELECT {self._columns} {base}", list(params)
            if cursor is not None:
                sql += f" AND ({key}) {'<' if older else '>'} (%s, %s)"
                values += [cursor.updated_at, cursor.id]
            order = "DESC" if older else "ASC"
            stamp, ident = key.split(", ")
            sql += f" ORDER BY {stamp} {order}, {ident} {order} LIMIT %s"
            return conn.execute(sql, (*values, size)).fetchall()

        with self.connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            if before is not None:
                rows = page(conn, before, False, limit + 1)
                newer, memories = len(rows) > limit, [self._to_memory(r) for r in rows[:limit][::-1]]
                older = bool(page(conn, BrowseCursor.of(memories[-1]) if memories else before, True, 1))
            else:
                rows = page(conn, after, True, limit + 1)
                older, memories = len(rows) > limit, [self._to_memory(r) for r in rows[:limit]]
                edge = BrowseCursor.of(memories[0]) if memories else after
                newer = edge is not None and bool(page(conn, edge, False, 1))
            row = conn.execute(
                f"SELECT COUNT(*) FROM (SELECT 1 {counted} LIMIT %s) AS page", (*params, count_limit + 1)
            ).fetchone()
        total = int(row[0]) if row else 0
        return MemoryPage(memories, min(total, count_limit), total > count_limit, newer=newer, older=older)

    def projects(self, tenant: str) -> list[str]:
        with self.connection() as conn:
            rows = conn.execute(
                "SELECT DISTINCT project FROM memories WHERE tenant = %s AND deleted_at IS NULL ORDER BY project",
                (tenant,),
            ).fetchall()
        return [str(row[0]) for row in rows]

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
