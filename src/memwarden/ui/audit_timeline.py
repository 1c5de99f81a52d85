"""The audit page's timeline: rows filtered by what ``AuditQuery`` cannot say (the route a call
came through, the memory it touched), and the dashboard's own reads folded into one line per
visit so they do not flood what agents did.

The log's own filters (actor, tenant, action, time) run in the database. The route is in each
row's detail (``"via": "ui"`` on the dashboard's reads), so that filter reads a bounded number of
rows below the cursor and says where it stopped; the memory filter reads the memory's writes by
their index (``AuditLog.memory_writes``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from memwarden.audit.base import AuditLog, AuditQuery, AuditRecord
from memwarden.models import parse_time

DASHBOARD_READS = frozenset({"list", "stats", "review"})
VISIT_GAP = timedelta(minutes=30)  # reads further apart than this are two visits
ROUTE_SCAN = 2_000  # rows the route filter reads per page before it says where it stopped
AUDIT_ROUTES = ("dashboard", "other")


def via(row: AuditRecord) -> str | None:
    """Where a row says the call came from (``detail.via``), None when it says nothing."""
    if not isinstance(row.detail, str) or '"via"' not in row.detail:
        return None
    try:
        detail = json.loads(row.detail)
    except ValueError:
        return None
    found = detail.get("via") if isinstance(detail, dict) else None
    return found if isinstance(found, str) else None


def is_dashboard_read(row: AuditRecord) -> bool:
    return row.action in DASHBOARD_READS and via(row) == "ui"


@dataclass
class Visit:
    """Consecutive dashboard reads of one actor in one tenant: one line of the timeline."""

    actor: str
    tenant: str
    rows: list[AuditRecord] = field(default_factory=list)

    @property
    def newest(self) -> Any:
        return self.rows[0].at

    @property
    def oldest(self) -> Any:
        return self.rows[-1].at

    @property
    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for row in self.rows:
            out[str(row.action)] = out.get(str(row.action), 0) + 1
        return out


def _close(a: Any, b: Any) -> bool:
    try:
        first, second = parse_time(str(a)), parse_time(str(b))
    except ValueError:
        return False
    return first is not None and second is not None and abs(first - second) <= VISIT_GAP


def fold_visits(rows: list[AuditRecord]) -> list[AuditRecord | Visit]:
    """``rows`` (newest first) with each run of dashboard reads by one actor and tenant, no more
    than ``VISIT_GAP`` apart, replaced by a ``Visit``; every other row stays as it is."""
    out: list[AuditRecord | Visit] = []
    for row in rows:
        last = out[-1] if out else None
        if is_dashboard_read(row):
            if (
                isinstance(last, Visit)
                and last.actor == row.actor
                and last.tenant == row.tenant
                and _close(last.rows[-1].at, row.at)
            ):
                last.rows.append(row)
            else:
                out.append(Visit(str(row.actor), str(row.tenant), [row]))
        else:
            out.append(row)
    return out


@dataclass(frozen=True)
class TimelinePage:
    rows: list[AuditRecord]
    next_before: int | None  # the cursor of the older rows' page, None at the end
    scanned: int  # rows read to fill the page (more than shown when the route filter applies)


def _matches(row: AuditRecord, query: AuditQuery) -> bool:
    at = parse_time(str(row.at)) if isinstance(row.at, str) else None
    return (
        (query.actor is None or row.actor == query.actor)
        and (query.action is None or row.action == query.action)
        and (query.since is None or (at is not None and at >= query.since))
        and (query.until is None or (at is not None and at < query.until))
    )


def read_timeline(
    log: AuditLog,
    query: AuditQuery,
    *,
    before: int | None,
    limit: int,
    route: str | None,
    memory: str | None,
    tenant: str,
) -> TimelinePage:
    """One page of the timeline under every filter."""
    if memory is not None:
        # The memory's writes, newest first, in the session's tenant; the other filters apply
        # to them here (a memory has few writes).
        writes = log.memory_writes(memory, tenant=tenant, limit=500)
        kept = [r for r in writes if _matches(r, query) and (before is None or int(r.seq) < before)]
        return TimelinePage(
            kept[:limit], int(kept[limit - 1].seq) if len(kept) > limit else None, len(writes)
        )
    if route is None:
        rows = log.page(query, before_seq=before, limit=limit)
        return TimelinePage(rows, int(rows[-1].seq) if len(rows) == limit else None, len(rows))
    kept, scanned, cursor = [], 0, before
    batch = max(limit, 200)
    while scanned < ROUTE_SCAN:
        rows = log.page(query, before_seq=cursor, limit=batch)
        for row in rows:
            scanned += 1
            cursor = int(row.seq)
            if (via(row) == "ui") == (route == "dashboard"):
                kept.append(row)
                if len(kept) == limit:
                    return TimelinePage(kept, cursor, scanned)
        if len(rows) < batch:
            return TimelinePage(kept, None, scanned)
    return TimelinePage(kept, cursor, scanned)
