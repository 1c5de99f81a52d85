"""The dashboard's reads of the memories table (browse one page, overview) in the SQLite store.

Every query here is served by an index of migration ``0007_dashboard``, the tag and count
tables of ``0011_browse_tables`` or the indexes before them,
so a page costs about the same at 100k memories as at 1k; counts stop at a limit instead of
walking every match.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memwarden.models import format_time
from memwarden.store.sqlite.rows import M_COLUMNS, row_to_memory

if TYPE_CHECKING:  # pragma: no cover - the methods import them: a search builds none (browsing.py)
    from memwarden.browsing import BrowseCursor, MemoryPage, MemoryQuery, StoreOverview


def browse_filters(query: MemoryQuery, now: datetime, t: str = "m") -> tuple[str, list[Any]]:
    """The WHERE clause (after tenant, and the tag) of a browse over ``memories`` (``t="m"``)
    or ``memory_tags`` (``t="t"``, which holds the same filter columns); the flag and pin terms
    are spelled as in the partial indexes' WHERE clauses so SQLite can use them."""
    sql, params = f" AND ({t}.expires_at IS NULL OR {t}.expires_at > ?)", [format_time(now)]
    # Pinned and flagged memories are few: their partial indexes lead, not the project's.
    rare = t == "m" and (query.pinned or query.flagged)
    for clause, value in (
        (f"+{t}.project = ?" if rare else f"{t}.project = ?", query.project),
        (f"{t}.kind = ?", query.kind),
        (f"{t}.created_at >= ?", format_time(query.created_since)),
        (f"{t}.created_at < ?", format_time(query.created_until)),
    ):
        if value is not None:
            sql += f" AND {clause}"
            params.append(value)
    if query.pinned is not None:
        sql += f" AND {t}.pinned = 1" if query.pinned else f" AND {t}.pinned = 0"
    if query.flagged is not None:
        flagged = "m.injection_flags != '[]'" if t == "m" else "t.flagged = 1"
        unflagged = "m.injection_flags = '[]'" if t == "m" else "t.flagged = 0"
        sql += f" AND {flagged}" if query.flagged else f" AND {unflagged}"
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


def browse(
    conn: sqlite3.Connection,
    tenant: str,
    query: MemoryQuery,
    *,
    now: datetime,
    limit: int,
    count_limit: int,
    after: BrowseCursor | None = None,
    before: BrowseCursor | None = None,
) -> MemoryPage:
    """One page of live, unexpired memories matching ``query`` and its count, read in one
    snapshot (see ``Store.browse``)."""
    from memwarden.browsing import BrowseCursor, MemoryPage

    if query.tag is None:
        # the newest-first indexes (memories_recent, memories_project, the pin and flag ones)
        where, params = browse_filters(query, now)
        base = f"FROM memories m WHERE m.tenant = ? AND m.deleted_at IS NULL{where}"
        counted, key, params = base, "m.updated_at, m.id", [tenant, *params]
    else:
        # the tag's rows (live memories only), newest first, filtered on their own columns;
        # only the page's rows are read from memories (CROSS JOIN keeps that order)
        where, params = browse_filters(query, now, "t")
        match = f"t.tenant = ? AND t.tag = ?{where}"
        base = f"FROM memory_tags t CROSS JOIN memories m ON m.id = t.memory_id WHERE {match}"
        counted, key = f"FROM memory_tags t WHERE {match}", "t.updated_at, t.memory_id"
        params = [tenant, query.tag, *params]
    stamp, ident = key.split(", ")

    def page(cursor: BrowseCursor | None, older: bool, size: int) -> list[Any]:
        sql, values = f"SELECT {M_COLUMNS} {base}", list(params)
        if cursor is not None:  # a range on the indexed time, then the tie-break by id
            op = "<" if older else ">"
            sql += f" AND {stamp} {op}= ? AND ({stamp} {op} ? OR {ident} {op} ?)"
            at = format_time(cursor.updated_at)
            values += [at, at, cursor.id]
        order = "DESC" if older else "ASC"
        sql += f" ORDER BY {stamp} {order}, {ident} {order} LIMIT ?"
        return conn.execute(sql, (*values, size)).fetchall()

    with read_snapshot(conn):  # the page and its count agree
        if before is not None:
            rows = page(before, False, limit + 1)
            newer, memories = len(rows) > limit, [row_to_memory(r) for r in rows[:limit][::-1]]
            older = bool(page(BrowseCursor.of(memories[-1]) if memories else before, True, 1))
        else:
            rows = page(after, True, limit + 1)
            older, memories = len(rows) > limit, [row_to_memory(r) for r in rows[:limit]]
            edge = BrowseCursor.of(memories[0]) if memories else after
            newer = edge is not None and bool(page(edge, False, 1))
        total = conn.execute(
            f"SELECT COUNT(*) FROM (SELECT 1 {counted} LIMIT ?)", (*params, count_limit + 1)
        ).fetchone()[0]
    return MemoryPage(memories, min(total, count_limit), total > count_limit, newer=newer, older=older)


def projects(conn: sqlite3.Connection, tenant: str) -> list[str]:
    """The projects holding live memories of ``tenant``, sorted."""
    rows = conn.execute(
        "SELECT DISTINCT project FROM memory_counts WHERE tenant = ? AND n > 0 ORDER BY project",
        (tenant,),
    )
    return [str(row[0]) for row in rows]


def overview(
    conn: sqlite3.Connection, tenant: str, *, now: datetime, weeks_since: datetime, top: int
) -> StoreOverview:
    """Counts per project and kind, additions per week, the most recalled memories and
    redactions per rule, read in one snapshot (see ``Store.overview``)."""
    from memwarden.browsing import StoreOverview

    with read_snapshot(conn):
        # Counts kept by the triggers of migration 0011 (a few hundred rows, never a scan).
        counts = conn.execute(
            "SELECT project, kind, n FROM memory_counts WHERE tenant = ? AND n > 0 ORDER BY project, kind",
            (tenant,),
        ).fetchall()
        weeks = conn.execute(
            "SELECT week, project, n FROM memory_weeks WHERE tenant = ? AND week >= ? AND n > 0"
            " ORDER BY week, project",
            (tenant, format_time(weeks_since)[:10]),  # type: ignore[index]
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
