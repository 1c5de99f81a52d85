"""What an audit log stores and the ``AuditLog`` protocol every backend implements.

The log is hash-chained: row ``n`` holds ``prev_hash`` (the hash of row ``n-1``, or
``GENESIS`` for row 1) and ``hash = chain_hash(prev_hash, fields)``. Backends enforce in the
database that rows are only appended (no UPDATE, no DELETE except rows covered by a prune
checkpoint) and keep a head (newest seq and hash) that only moves forward. Verification
(``audit/chain.py``) needs nothing but this protocol, so it runs on any backend and on backups.
Imports no backend.
"""

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.audit.keys import AuditKey

from memwarden.digests import sha256
from memwarden.models import format_time

GENESIS = "0" * 64
ACTIONS = (
    "add",
    "search",
    "get",
    "list",
    "update",
    "delete",
    "stats",
    "export",
    "import",
    "prune",
    "restore",
    "purge",
    "review",
    "backup",
    "vault_sync",
    "health",
)


class AuditEvent(NamedTuple):
    """One operation to record. ``query`` is turned into SHA-256 + length by the Auditor."""

    actor: str
    tenant: str
    action: str
    project: str | None = None
    memory_ids: Sequence[str] = ()
    result_count: int = 0
    degraded: bool = False
    redaction_count: int = 0
    outcome: str = "ok"
    query_sha256: str | None = None
    query_len: int | None = None
    query_plain: str | None = None
    detail: Mapping[str, Any] = MappingProxyType({})


class AuditRecord(NamedTuple):
    """A stored row, exactly as read back (fields are not coerced, so tampering shows)."""

    seq: Any
    at: Any
    actor: Any
    tenant: Any
    project: Any
    action: Any
    outcome: Any
    memory_ids: Any
    result_count: Any
    degraded: Any
    redaction_count: Any
    query_sha256: Any
    query_len: Any
    query_plain: Any
    detail: Any
    prev_hash: Any
    hash: Any

    def hashed_fields(self) -> list[Any]:
        """The values the row's hash covers: everything but the hashes, in column order."""
        return [
            self.seq,
            self.at,
            self.actor,
            self.tenant,
            self.project,
            self.action,
            self.outcome,
            self.memory_ids,
            self.result_count,
            self.degraded,
            self.redaction_count,
            self.query_sha256,
            self.query_len,
            self.query_plain,
            self.detail,
        ]

    def to_dict(self) -> dict[str, Any]:
        """The export shape: JSON columns decoded when they are well-formed."""
        out: dict[str, Any] = {
            "seq": self.seq,
            "at": self.at,
            "actor": self.actor,
            "tenant": self.tenant,
            "project": self.project,
            "action": self.action,
            "outcome": self.outcome,
            "memory_ids": _json_or_raw(self.memory_ids),
            "result_count": self.result_count,
            "degraded": bool(self.degraded) if isinstance(self.degraded, int) else self.degraded,
            "redaction_count": self.redaction_count,
            "query_sha256": self.query_sha256,
            "query_len": self.query_len,
            "query_plain": self.query_plain,
            "detail": _json_or_raw(self.detail),
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }
        return out


def _json_or_raw(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def chain_hash(prev_hash: Any, fields: list[Any], key: "AuditKey | None" = None) -> str:
    """SHA-256 over the previous hash and the row's fields as compact, sorted JSON; with a
    ``key``, HMAC-SHA256 over the same bytes, written ``hmac:<key id>:<hex>`` (audit/keys.py)."""
    payload = json.dumps(fields, ensure_ascii=False, separators=(",", ":"), default=str)
    message = f"{prev_hash}\n{payload}".encode("utf-8", "surrogatepass")
    return sha256(message).hexdigest() if key is None else key.sign(message)


Stamp = datetime | Callable[[], datetime]


def stamp_time(at: Stamp) -> datetime:
    """The row's time: a clock is read only once the chain lock is held, so on one machine rows
    are stamped in chain order and a stamp out of order means the clock itself jumped."""
    return at() if callable(at) else at


def event_values(seq: int, at: datetime, event: AuditEvent) -> list[Any]:
    """The stored values of a row, in column order, before its hashes (same on every backend)."""
    from memwarden.models import format_time

    return [
        seq,
        format_time(at),
        event.actor,
        event.tenant,
        event.project,
        event.action,
        event.outcome,
        json.dumps(list(event.memory_ids)),
        int(event.result_count),
        int(bool(event.degraded)),
        int(event.redaction_count),
        event.query_sha256,
        event.query_len,
        event.query_plain,
        json.dumps(dict(event.detail), ensure_ascii=False, sort_keys=True, separators=(",", ":")),
    ]


def prune_event(checkpoint: "Checkpoint", previous_upto_seq: int, actor: str, tenant: str) -> AuditEvent:
    """The ``prune`` row written in the prune's own transaction: it vouches for the checkpoint
    (``audit verify`` refuses a checkpoint no prune row vouches for)."""
    return AuditEvent(
        actor=actor,
        tenant=tenant,
        action="prune",
        result_count=checkpoint.pruned_rows,
        detail={
            "before": checkpoint.before,
            "upto_seq": checkpoint.upto_seq,
            "upto_hash": checkpoint.upto_hash,
            "pruned_rows": checkpoint.pruned_rows,
            "previous_upto_seq": previous_upto_seq,
        },
    )


def prune_refusal(
    before: datetime, last_old: tuple[int, str], first_new: tuple[int, str], suggestion: str | None
) -> Exception:
    """Why a prune by date would not remove a prefix of the chain (the clock went back once)."""
    from memwarden.errors import Conflict
    from memwarden.models import format_time

    message = (
        f"refusing to prune: the rows stamped before {format_time(before)} are not the start of the chain. "
        f"Row seq {first_new[0]} is stamped {first_new[1]} (not before that date) but comes before row seq "
        f"{last_old[0]}, stamped {last_old[1]}: the clock went back while the log was written. A prune removes "
        "only a prefix of the chain, so it would remove rows stamped after the date"
    )
    if suggestion:
        message += f"; --before {suggestion} removes exactly the rows before seq {first_new[0]}"
    return Conflict(message, field="before", first_newer_seq=first_new[0], last_older_seq=last_old[0])


def plan_prune(
    fetch: Callable[[str, tuple[Any, ...]], Any], ph: str, before: datetime, at: datetime
) -> "tuple[Checkpoint, int] | None":
    """What a prune by date removes, read inside the prune's write transaction: the checkpoint
    to record and the previous checkpoint's ``upto_seq`` (0 for none); None when no row is older.

    ``fetch(sql, params)`` runs one query and returns its first row; ``ph`` is the backend's
    placeholder. Raises ``Conflict`` when the older rows are not a prefix of the chain."""
    from memwarden.models import format_time

    cut = format_time(before)
    last_old = fetch(f"SELECT seq, hash, at FROM audit_log WHERE at < {ph} ORDER BY seq DESC LIMIT 1", (cut,))
    if last_old is None:
        return None
    first_new = fetch(f"SELECT seq, at FROM audit_log WHERE at >= {ph} ORDER BY seq LIMIT 1", (cut,))
    if first_new is not None and int(first_new[0]) < int(last_old[0]):
        older = fetch(f"SELECT MAX(at) FROM audit_log WHERE seq < {ph}", (first_new[0],))
        newer = fetch(f"SELECT MIN(at) FROM audit_log WHERE seq >= {ph}", (first_new[0],))
        fits = older is not None and older[0] is not None and newer is not None and older[0] < newer[0]
        raise prune_refusal(
            before,
            (int(last_old[0]), str(last_old[2])),
            (int(first_new[0]), str(first_new[1])),
            str(newer[0]) if fits else None,
        )
    count = fetch(f"SELECT COUNT(*) FROM audit_log WHERE seq <= {ph}", (last_old[0],))
    previous = fetch("SELECT COALESCE(MAX(upto_seq), 0) FROM audit_checkpoints", ())
    checkpoint = Checkpoint(int(last_old[0]), str(last_old[1]), int(count[0]), str(cut), str(format_time(at)))
    return checkpoint, int(previous[0])


def records_query(
    columns: str,
    placeholder: str,
    *,
    since: datetime | None,
    until: datetime | None,
    tenant: str | None,
    actor: str | None,
) -> tuple[str, list[Any]]:
    """The SELECT of ``AuditLog.records`` for one backend's placeholder (``?`` or ``%s``)."""
    from memwarden.models import format_time

    where, params = list[str](), list[Any]()
    for clause, value in (
        (f"at >= {placeholder}", format_time(since)),
        (f"at < {placeholder}", format_time(until)),
        (f"tenant = {placeholder}", tenant),
        (f"actor = {placeholder}", actor),
    ):
        if value is not None:
            where.append(clause)
            params.append(value)
    sql = f"SELECT {columns} FROM audit_log"
    if where:
        sql += " WHERE " + " AND ".join(where)
    return sql + " ORDER BY seq", params


class AuditQuery(NamedTuple):
    """Filters of the audit timeline (None: any); ``until`` is exclusive."""

    actor: str | None = None
    tenant: str | None = None
    action: str | None = None
    since: datetime | None = None
    until: datetime | None = None


class DailyCount(NamedTuple):
    """How many audit rows one day holds for a tenant, action, outcome and degrade reason
    (``""`` unless a degraded search), from the ``audit_daily`` table its trigger keeps."""

    day: str
    tenant: str
    action: str
    outcome: str
    degrade_reason: str
    rows: int


def page_query(
    columns: str, placeholder: str, query: AuditQuery, *, lowest: int | None, below: int | None, limit: int
) -> tuple[str, list[Any]]:
    """The SELECT of ``AuditLog.page``: newest first, seq in [lowest, below), filtered.

    The seq range comes from the ``at`` index (see ``seq_bounds_sql``) so a time window is read
    by primary key; the ``at`` conditions stay, so the rows returned always match the filter.
    """
    where: list[str] = []
    params: list[Any] = []
    for clause, value in (
        (f"seq >= {placeholder}", lowest),
        (f"seq < {placeholder}", below),
        (f"at >= {placeholder}", format_time(query.since)),
        (f"at < {placeholder}", format_time(query.until)),
        (f"actor = {placeholder}", query.actor),
        (f"tenant = {placeholder}", query.tenant),
        (f"action = {placeholder}", query.action),
    ):
        if value is not None:
            where.append(clause)
            params.append(value)
    sql = f"SELECT {columns} FROM audit_log"
    if where:
        sql += " WHERE " + " AND ".join(where)
    return sql + f" ORDER BY seq DESC LIMIT {placeholder}", [*params, limit]


def seq_bounds_sql(placeholder: str) -> tuple[str, str]:
    """Two SELECTs over the ``at`` index: the first seq stamped at or after a time, and the last
    seq stamped before one. Exact while stamps rise with seq; after a clock jump (which
    ``audit verify`` reports) rows stamped out of order next to a bound can fall outside it."""
    return (
        f"SELECT seq FROM audit_log WHERE at >= {placeholder} ORDER BY at, seq LIMIT 1",
        f"SELECT seq FROM audit_log WHERE at < {placeholder} ORDER BY at DESC, seq DESC LIMIT 1",
    )


def read_page(
    run: Callable[[str, list[Any]], list[Sequence[Any]]],
    columns: str,
    placeholder: str,
    query: AuditQuery,
    *,
    before_seq: int | None,
    limit: int,
) -> list[AuditRecord]:
    """``AuditLog.page`` for a backend whose ``run(sql, params)`` returns rows (one snapshot)."""
    first_at_or_after, last_before = seq_bounds_sql(placeholder)
    lowest, below = None, before_seq
    if query.since is not None:
        found = run(first_at_or_after, [format_time(query.since)])
        if not found:
            return []
        lowest = int(found[0][0])
    if query.until is not None:
        found = run(last_before, [format_time(query.until)])
        if not found:
            return []
        below = int(found[0][0]) + 1 if below is None else min(below, int(found[0][0]) + 1)
    sql, params = page_query(columns, placeholder, query, lowest=lowest, below=below, limit=limit)
    return [AuditRecord(*row) for row in run(sql, params)]


# Actions whose audit rows are indexed by memory (``audit_memory_writes``): what changed a memory.
WRITE_ACTIONS = ("add", "update", "delete", "import", "restore", "purge")

# The newest audit rows that wrote one memory, through ``audit_memory_writes`` (kept by a trigger
# as rows are appended); rows a prune removed drop out of the join.
MEMORY_WRITES_SQL = (
    "SELECT {columns} FROM audit_log WHERE seq IN (SELECT seq FROM audit_memory_writes"
    " WHERE memory_id = {p} ORDER BY seq DESC LIMIT {p}) AND tenant = {p} ORDER BY seq DESC"
)

DAILY_COUNTS_SQL = (
    "SELECT day, tenant, action, outcome, degrade_reason, n FROM audit_daily WHERE day >= {p}"
    " {tenant} ORDER BY day, tenant, action, outcome, degrade_reason"
)


class ChainHead(NamedTuple):
    """The newest row the database has acknowledged (seq 0 and GENESIS when empty)."""

    seq: int
    hash: str


class Checkpoint(NamedTuple):
    """Left by a prune: rows up to ``upto_seq`` were removed; ``upto_hash`` was the last hash."""

    upto_seq: int
    upto_hash: str
    pruned_rows: int
    before: str
    at: str


@runtime_checkable
class AuditLog(Protocol):
    """An append-only, hash-chained audit log in some database."""

    def append(self, event: AuditEvent, at: Stamp) -> AuditRecord:
        """Chain and store one event atomically (concurrent writers queue, none forks the chain);
        ``at`` may be a clock, read once the chain lock is held."""
        ...

    def records(
        self,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        tenant: str | None = None,
        actor: str | None = None,
    ) -> Iterator[AuditRecord]:
        """Stored rows in chain order (by seq), optionally filtered; ``until`` is exclusive."""
        ...

    def head(self) -> ChainHead: ...

    def latest_stamp(self) -> str | None:
        """The newest ``at`` of any stored row (None when the log is empty)."""
        ...

    def page(self, query: AuditQuery, *, before_seq: int | None, limit: int) -> list[AuditRecord]:
        """Up to ``limit`` rows matching ``query`` with seq below ``before_seq``, newest first."""
        ...

    def daily_counts(self, since: str, *, tenant: str | None) -> list[DailyCount]:
        """Rows per day from ``since`` (``YYYY-MM-DD``) on, for one tenant or all (None)."""
        ...

    def memory_writes(self, memory_id: str, *, tenant: str, limit: int) -> list[AuditRecord]:
        """The newest ``limit`` rows of ``tenant`` that added, updated, deleted, imported,
        restored or purged this memory (``WRITE_ACTIONS``), newest first, read by an index."""
        ...

    def snapshot(self) -> AbstractContextManager[None]:
        """Within this block, head, checkpoints and records come from one consistent snapshot."""
        ...

    def checkpoints(self) -> list[Checkpoint]:
        """Prune checkpoints, oldest first."""
        ...

    def prune(
        self, before: datetime, at: datetime, *, actor: str = "memwarden", tenant: str = "-"
    ) -> Checkpoint | None:
        """Remove exactly the rows stamped before ``before``, leaving a checkpoint and a ``prune``
        row (same transaction); None when no row is older. Refused (``Conflict``) when those rows
        are not a prefix of the chain (the clock went back once)."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class CopyTargetLog(AuditLog, Protocol):
    """An audit log that takes rows copied verbatim from another log (``memwarden migrate``);
    the backend checks that each row continues the chain."""

    def append_records(self, records: list[AuditRecord]) -> None: ...
