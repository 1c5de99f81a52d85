"""What the dashboard's pages read and do, through the service like every other adapter.

Each method takes the ``Session`` (who is asking, in which tenant, operator or not) and
returns plain values for the templates. Writes go through the service's update/delete (so
they are validated, redacted, screened and audited like an MCP or CLI write); reads that the
service answers (search, get, review, health) go through it too, and the aggregates come
from the store's dashboard reads (``Store.browse`` / ``Store.overview``) and the audit log's
(``AuditLog.page`` / ``daily_counts``), recorded in the audit log as ``list`` / ``stats``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import IO, Any

from memwarden.audit.base import AuditLog, AuditQuery, AuditRecord
from memwarden.audit.chain import VerifyReport, verify_log
from memwarden.audit.export import write_rows
from memwarden.browsing import BrowseCursor, MemoryPage, MemoryQuery
from memwarden.errors import InvalidInput, NotFound
from memwarden.models import Memory, SearchResult, format_time
from memwarden.ops.backup import SIDECAR
from memwarden.ops.operations import review_summary
from memwarden.ops.review import review_memories
from memwarden.service import MemoryService
from memwarden.ui.audit_timeline import TimelinePage, read_timeline
from memwarden.ui.sessions import Session
from memwarden.validation import check_id

PAGE_SIZE = 50
REVIEW_NEWEST = 250  # the review page reviews the newest this many memories of its scope
REVIEW_COUNT_LIMIT = 10_000  # the count stops here, as the memories table's does
COUNT_LIMIT = 10_000
WEEKS = 12
DAYS = 30
TOP_RECALLED = 10
AUDIT_PAGE = 50
THREAD_HOPS = 3  # a memory's page shows up to this many thread neighbours on each side
VERSIONS_SHOWN = 20  # and up to this many audit rows that wrote it


@dataclass(frozen=True, slots=True)
class Write:
    """One audit row that wrote a memory, as its page lists it."""

    seq: int
    at: str
    actor: str
    action: str
    outcome: str
    version: int | None  # the version an update made (rows from before it was recorded: None)


@dataclass(frozen=True, slots=True)
class MemoryView:
    """A memory's page: the memory, its thread around it (in thread order, itself included;
    empty when it is in no thread) and the audit rows that wrote it, newest first."""

    memory: Memory
    thread: list[Memory]
    writes: list[Write]


@dataclass(frozen=True, slots=True)
class Overview:
    tenant: str
    totals: dict[str, int]  # live memories per project
    kinds: dict[str, int]
    counts: list[tuple[str, str, int]]
    weeks: list[str]
    added: dict[str, list[int]]  # project -> count per week of ``weeks``
    days: list[str]
    searches: list[int]
    degraded: list[int]
    degrade_reasons: dict[str, int]
    actions: dict[str, list[int]]  # action -> rows per day of ``days``
    most_recalled: list[Memory]
    redactions: dict[str, int]
    last_backup: dict[str, Any] | None


def _write(row: AuditRecord) -> Write:
    try:
        detail = json.loads(row.detail) if isinstance(row.detail, str) else {}
    except ValueError:
        detail = {}
    detail = detail if isinstance(detail, dict) else {}
    version = detail.get("version")
    if row.action == "add" and detail.get("duplicate") is False:
        version = 1  # an add that stored it (a duplicate add returns the one already there)
    return Write(
        int(row.seq),
        str(row.at),
        str(row.actor),
        str(row.action),
        str(row.outcome),
        version if isinstance(version, int) and not isinstance(version, bool) else None,
    )


def _readable_id(memory_id: str) -> bool:
    try:
        check_id(memory_id)
    except InvalidInput:
        return False
    return True


class Dashboard:
    """The dashboard's reads and writes for one service."""

    def __init__(self, service: MemoryService) -> None:
        self.service = service

    # -- helpers -----------------------------------------------------------------------------

    @property
    def audit_log(self) -> AuditLog | None:
        return None if self.service.auditor is None else self.service.auditor.log

    def _audit_tenant(self, session: Session, asked: str | None) -> str | None:
        """The tenant whose audit rows a session may see: any (or the one asked) for the
        operator, its current tenant for everyone else."""
        if session.operator:
            return asked
        return session.caller.tenant

    # -- overview ----------------------------------------------------------------------------

    def overview(self, session: Session) -> Overview:
        who = session.caller
        now = self.service.clock()
        monday = (now - timedelta(days=now.weekday())).replace(hour=0, minute=0, second=0, microsecond=0)
        first_week = monday - timedelta(weeks=WEEKS - 1)
        view = self.service.store.overview(who.tenant, now=now, weeks_since=first_week, top=TOP_RECALLED)
        weeks = [(first_week + timedelta(weeks=i)).date().isoformat() for i in range(WEEKS)]
        added: dict[str, list[int]] = defaultdict(lambda: [0] * WEEKS)
        for week, project, count in view.added_per_week:
            if week in weeks:
                added[project][weeks.index(week)] += count
        totals: dict[str, int] = defaultdict(int)
        kinds: dict[str, int] = defaultdict(int)
        for project, kind, count in view.counts:
            totals[project] += count
            kinds[kind] += count
        first_day = (now - timedelta(days=DAYS - 1)).date()
        days = [(first_day + timedelta(days=i)).isoformat() for i in range(DAYS)]
        searches, degraded = [0] * DAYS, [0] * DAYS
        reasons: dict[str, int] = defaultdict(int)
        actions: dict[str, list[int]] = defaultdict(lambda: [0] * DAYS)
        log = self.audit_log
        for row in [] if log is None else log.daily_counts(days[0], tenant=who.tenant):
            if row.day not in days:
                continue
            i = days.index(row.day)
            actions[row.action][i] += row.rows
            if row.action == "search":
                searches[i] += row.rows
                if row.degrade_reason:
                    degraded[i] += row.rows
                    reasons[row.degrade_reason] += row.rows
        self.service.operations.audit(
            "stats", caller=who, result_count=sum(totals.values()), detail={"via": "ui"}
        )
        backups = self.service.operations.backups
        return Overview(
            tenant=who.tenant,
            totals=dict(sorted(totals.items())),
            kinds=dict(sorted(kinds.items())),
            counts=view.counts,
            weeks=weeks,
            added=dict(sorted(added.items())),
            days=days,
            searches=searches,
            degraded=degraded,
            degrade_reasons=dict(reasons),
            actions=dict(sorted(actions.items())),
            most_recalled=view.most_recalled,
            redactions=view.redactions_per_rule,
            last_backup=backups.last() if backups is not None and session.operator else None,
        )

    def chain_status(self) -> dict[str, Any]:
        """The head of the chain (cheap); verification itself runs on demand (``verify``)."""
        log = self.audit_log
        if log is None:
            return {"enabled": False}
        head = log.head()
        return {"enabled": True, "head_seq": head.seq, "head_hash": head.hash}

    # -- memories ----------------------------------------------------------------------------

    def browse(
        self, session: Session, query: MemoryQuery, after: BrowseCursor | None, before: BrowseCursor | None
    ) -> MemoryPage:
        who = session.caller
        result = self.service.store.browse(
            who.tenant,
            query,
            now=self.service.clock(),
            limit=PAGE_SIZE,
            count_limit=COUNT_LIMIT,
            after=after,
            before=before,
        )
        self.service.operations.audit(
            "list",
            caller=who,
            project=query.project,
            memory_ids=[m.id for m in result.memories],
            result_count=len(result.memories),
            detail={"via": "ui", "after": after is not None, "before": before is not None},
        )
        return result

    def search(self, session: Session, text: str, query: MemoryQuery) -> SearchResult:
        tags = [query.tag] if query.tag else None
        return self.service.searcher.search(
            text, project=query.project, tags=tags, limit=PAGE_SIZE, caller=session.caller
        )

    def memory(self, session: Session, memory_id: str) -> Memory:
        found, _ = self.service.memories.get([memory_id], caller=session.caller)
        if not found or found[0].deleted_at is not None:
            raise NotFound(
                f"no memory {memory_id} in tenant {session.caller.tenant} (deleted, or never stored)",
                id=memory_id,
            )
        return found[0]

    def memory_view(self, session: Session, memory_id: str) -> MemoryView:
        """The memory, up to THREAD_HOPS neighbours on each side of it in its thread (found hop by
        hop through the thread index, then read in one audited ``get``), and what the audit log
        knows of its writes (``audit_memory_writes``)."""
        tenant = session.caller.tenant
        window, frontier = {memory_id}, [memory_id]
        for _ in range(THREAD_HOPS):
            found = self.service.store.thread_neighbours(tenant, frontier)
            frontier = [n for ids in found.values() for n in ids if n not in window]
            window.update(frontier)
            if not frontier:
                break
        # A neighbour under an id memwarden never writes (a foreign writer's row) cannot be read
        # by id, nor opened: left out, rather than the whole page refused.
        neighbours = sorted(n for n in window - {memory_id} if _readable_id(n))
        memories, _ = self.service.memories.get([memory_id, *neighbours], caller=session.caller)
        memory = next((m for m in memories if m.id == memory_id), None)
        if memory is None:
            raise NotFound(
                f"no memory {memory_id} in tenant {tenant} (deleted, or never stored)", id=memory_id
            )
        thread = sorted(
            (m for m in memories if memory.thread and m.thread == memory.thread),
            key=lambda m: (m.occurred, m.created_at, m.id),
        )
        log = self.audit_log
        rows = [] if log is None else log.memory_writes(memory_id, tenant=tenant, limit=VERSIONS_SHOWN)
        return MemoryView(memory, thread, [_write(row) for row in rows])

    def update(self, session: Session, memory_id: str, changes: dict[str, Any], if_version: int) -> Memory:
        return self.service.memories.update(
            memory_id, **changes, if_version=if_version, caller=session.caller
        )

    def delete(self, session: Session, memory_id: str) -> None:
        self.service.memories.delete(memory_id, caller=session.caller)

    def clear_flags(self, session: Session, memory_id: str) -> None:
        self.service.memories.clear_flags(memory_id, caller=session.caller)

    def projects(self, session: Session) -> list[str]:
        # Kept counts on SQLite, an index on PostgreSQL (stats would read every memory's content).
        return self.service.store.projects(session.caller.tenant)

    # -- review ------------------------------------------------------------------------------

    def review(self, session: Session, project: str | None) -> dict[str, Any]:
        # The newest REVIEW_NEWEST live memories of the scope (one indexed page), not all of
        # them: the page stays fast at any size; `memwarden review` reviews everything.
        operations = self.service.operations
        now = self.service.clock()
        newest = self.service.store.browse(
            session.caller.tenant,
            MemoryQuery(project=project),
            now=now,
            limit=REVIEW_NEWEST,
            count_limit=REVIEW_COUNT_LIMIT,
        )
        # Their analyzed terms as the keyword index holds them: no re-analysis per page view.
        indexed = self.service.store.indexed_memories(session.caller.tenant, [m.id for m in newest.memories])
        known = {
            c.memory.id: frozenset(c.indexed.body.split())  # similar.duplicate_terms, as review
            for c in indexed
            if c.indexed is not None
        }
        report = review_memories(
            newest.memories,
            operations.intake.analyzer,
            session.caller,
            project=project,
            stale_days=90,
            limit=50,
            now=now,
            purge_grace=operations.options.purge_grace,
            known_terms=known,
        )
        report["in_scope"] = newest.total
        report["in_scope_is_lower_bound"] = newest.total_is_lower_bound
        flagged = self.service.store.browse(
            session.caller.tenant,
            MemoryQuery(project=project, flagged=True),
            now=self.service.clock(),
            limit=PAGE_SIZE,
            count_limit=1000,
        )
        report["flagged"] = flagged.memories
        report["counts"]["flagged"] = flagged.total
        # One review row, as `memwarden review` writes (the memories the page shows); when it
        # cannot be written the page is refused, like every read.
        summary = review_summary({**report, "flagged": [{"id": m.id} for m in flagged.memories]})
        self.service.operations.audit(
            "review",
            caller=session.caller,
            project=project,
            memory_ids=summary["memory_ids"],
            result_count=summary["result_count"],
            detail={**summary["detail"], "via": "ui"},
        )
        return report

    def merge(self, session: Session, keep_id: str, drop_id: str) -> Memory:
        """Append what ``drop`` says to ``keep`` (one update, redacted and audited), then delete ``drop``."""
        if keep_id == drop_id:
            raise InvalidInput("a memory cannot be merged into itself", field="drop")
        keep, drop = self.memory(session, keep_id), self.memory(session, drop_id)
        merged = self.service.memories.update(
            keep.id,
            content=f"{keep.content}\n\n{drop.content}",
            if_version=keep.version,
            caller=session.caller,
        )
        self.service.memories.delete(drop.id, caller=session.caller)
        return merged

    # -- audit -------------------------------------------------------------------------------

    def audit_page(
        self,
        session: Session,
        query: AuditQuery,
        before: int | None,
        *,
        route: str | None = None,
        memory: str | None = None,
    ) -> TimelinePage:
        log = self.audit_log
        if log is None:
            return TimelinePage([], None, 0)
        scoped = AuditQuery(
            actor=query.actor,
            tenant=self._audit_tenant(session, query.tenant),
            action=query.action,
            since=query.since,
            until=query.until,
        )
        return read_timeline(
            log,
            scoped,
            before=before,
            limit=AUDIT_PAGE,
            route=route,
            memory=memory,
            tenant=session.caller.tenant,
        )

    def verify(self) -> VerifyReport | None:
        log = self.audit_log
        return None if log is None else verify_log(log)

    def export(self, session: Session, out: IO[str], fmt: str, query: AuditQuery) -> int:
        log = self.audit_log
        if log is None:
            raise InvalidInput("the audit log is off (MEMWARDEN_AUDIT=0): there is nothing to export")
        tenant = self._audit_tenant(session, query.tenant)
        filters = {
            "actor": query.actor,
            "tenant": tenant,
            "action": query.action,
            "since": format_time(query.since),
            "until": format_time(query.until),
        }
        count = write_rows(
            out,
            log,
            fmt,
            {k: v for k, v in filters.items() if v is not None},
            action=query.action,
            since=query.since,
            until=query.until,
            tenant=tenant,
            actor=query.actor,
        )
        self.service.operations.audit(
            "export",
            caller=session.caller,
            result_count=count,
            detail={"via": "ui", "what": "audit", "format": fmt},
        )
        return count

    # -- health and backups ------------------------------------------------------------------

    def health(self, session: Session) -> dict[str, Any]:
        return self.service.operations.health(repair=False, caller=session.caller)

    def backups(self) -> list[dict[str, Any]]:
        manager = self.service.operations.backups
        if manager is None:
            return []
        listed = []
        for path in reversed(manager.kept()):
            try:
                record = json.loads(path.with_name(path.name + SIDECAR).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                record = {}
            listed.append(
                {
                    "name": path.name,
                    "bytes": path.stat().st_size,
                    "taken_at": record.get("taken_at"),
                    "verified": record.get("verified"),
                    "problems": record.get("problems", []),
                    "reason": record.get("reason"),
                }
            )
        return listed

    def restore_plan(self, name: str) -> dict[str, Any]:
        manager = self.service.operations.backups
        if manager is None:
            raise InvalidInput("this database backend keeps no backups here")
        known = {p.name: p for p in manager.kept()}
        if name not in known:
            raise NotFound(f"no backup named {name!r} in {manager.directory}; pick one from the list")
        return manager.plan_restore(Path(known[name]))
