"""The audit row a store write carries: an explicit value, appended in the write's transaction.

The service builds a ``WriteAudit`` (the event: who, which action, the project, the redaction
count, the query's digest; and the log that appends it) and passes it to the store call that
writes (``store.add(memory, index, audit=...)``, ``update``, ``soft_delete``,
``import_memories``, ``purge_expired``, ``record_hits``). Inside its write transaction, before
COMMIT, the store calls ``append_row(audit, conn, ids, ...)``: the row is appended on that same
connection (``AuditLog.append_in``), so the change and its row commit together or not at all.
When the append fails it raises, the store's transaction rolls back and the write is refused:
nothing stored changes. After COMMIT the store calls ``note_committed(audit, row)``, which moves
the external anchor (if any) to the row; a row of a transaction that did not commit is never
noted, and a store that retries a transaction appends a fresh row in the retry.

``audit=None`` (auditing off, maintenance, the vector backfill) writes no row. The store fills
in what only it knows (the ids it wrote, how many, details such as ``duplicate``); everything
else comes from the service. Imports no backend and no service part.
"""

# No ``from __future__ import annotations``: typing.NamedTuple compiles every string annotation
# into a ForwardRef, a visible share of a cold search's imports (docs/performance.md#cold-start).

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple, Protocol

from memwarden.audit.base import AuditEvent, AuditRecord


class AppendsInTransaction(Protocol):
    """What a ``WriteAudit`` needs of the auditor: append on a store connection, then note the
    row once its transaction committed (``audit.auditor.Auditor`` implements it)."""

    def append_in(self, conn: object, event: AuditEvent) -> AuditRecord: ...

    def committed(self, record: AuditRecord) -> None: ...


class WriteAudit(NamedTuple):
    """The row a store write appends in its own transaction (see the module docstring)."""

    event: AuditEvent
    log: AppendsInTransaction

    def completed(
        self,
        memory_ids: Sequence[str],
        *,
        result_count: int | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> AuditEvent:
        """The event with what the store wrote: the ids, their count (by default how many ids)
        and the store's details added to the service's."""
        return self.event._replace(
            memory_ids=tuple(memory_ids),
            result_count=len(memory_ids) if result_count is None else result_count,
            detail={**self.event.detail, **(detail or {})},
        )

    def with_redactions(self, count: int) -> "WriteAudit":
        """The same row, counting ``count`` redaction matches (an import knows them once every
        record is built, after the value was made)."""
        return self._replace(event=self.event._replace(redaction_count=count))


def append_row(
    audit: WriteAudit | None,
    conn: object,
    memory_ids: Sequence[str],
    *,
    result_count: int | None = None,
    detail: Mapping[str, Any] | None = None,
) -> AuditRecord | None:
    """Append ``audit``'s row on ``conn`` (a store connection inside its write transaction);
    None without an ``audit``. Raises when the row cannot be written: the caller's transaction
    must then roll back."""
    if audit is None:
        return None
    return audit.log.append_in(conn, audit.completed(memory_ids, result_count=result_count, detail=detail))


def note_committed(audit: WriteAudit | None, *rows: AuditRecord | None) -> None:
    """The transaction that appended ``rows`` committed: advance the anchor to them."""
    if audit is None:
        return
    for row in rows:
        if row is not None:
            audit.log.committed(row)


#: How many ids a ``purge`` row lists (the lowest, i.e. the oldest memories); the count is always
#: whole: a purge of many expired memories makes one row of bounded size, not one that grows with
#: every id.
PURGE_IDS_LISTED = 1000


def append_purge_row(
    audit: WriteAudit | None, conn: object, purged: Sequence[str], expired_before: str | None
) -> AuditRecord | None:
    """A purge's row on ``conn``, inside the purge's transaction, when it removed anything: the
    count, the first ``PURGE_IDS_LISTED`` ids in id order, the cutoff (one shape for every store)."""
    if not purged:
        return None
    ids = sorted(purged)[:PURGE_IDS_LISTED]
    return append_row(
        audit,
        conn,
        ids,
        result_count=len(purged),
        detail={"purged": len(purged), "ids_listed": len(ids), "expired_before": expired_before},
    )
