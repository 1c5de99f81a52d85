"""The audit row of a memory write, committed in the write's own transaction.

The service's ``@audited`` wrapper opens ``expect_row(...)`` around an operation. A store that
changes memories calls ``write_row(conn, ids, …)`` inside its write transaction, before COMMIT:
the row is appended on that same connection (``AuditLog.append_in``), so the memory change and
its audit row commit together or not at all. When the append fails, ``write_row`` raises, the
store's transaction rolls back and the write is refused: no memory is stored without its row.
After the operation returns, the wrapper sees the row was written (``PendingRow.rows``) and does
not append another; an operation that wrote nothing (a read, a duplicate add on a backend that
wrote nothing) is recorded after it returns, as before.

Outside ``expect_row`` (auditing off, maintenance, the vector backfill) ``write_row`` does
nothing. Imports write one row per batch transaction (``once=False``); the wrapper then adds
the summary row of the whole import.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.audit.auditor import Auditor
    from memwarden.audit.base import AuditRecord
    from memwarden.models import Caller


def _no_redactions() -> int:
    return 0


class PendingRow:
    """The operation whose row a store write must carry, and the rows written for it (a plain
    class: a dataclass would cost every cold search the dataclasses import and its code generation:
    docs/performance.md#cold-start)."""

    __slots__ = ("action", "auditor", "caller", "project", "redactions", "rows")

    def __init__(
        self,
        auditor: Auditor,
        action: str,
        caller: Caller,
        project: str | None = None,
        redactions: Callable[[], int] = _no_redactions,
    ) -> None:
        self.auditor = auditor
        self.action = action
        self.caller = caller
        self.project = project
        self.redactions = redactions
        self.rows: list[AuditRecord] = []


_pending: ContextVar[PendingRow | None] = ContextVar("memwarden_pending_audit_row", default=None)


@contextmanager
def expect_row(
    auditor: Auditor,
    action: str,
    caller: Caller,
    *,
    project: str | None = None,
    redactions: Callable[[], int] = _no_redactions,
) -> Iterator[PendingRow]:
    """Within this block, store writes carry the audit row of ``action`` by ``caller``."""
    pending = PendingRow(auditor, action, caller, project, redactions)
    token = _pending.set(pending)
    try:
        yield pending
    finally:
        _pending.reset(token)


def write_row(
    conn: object,
    memory_ids: Sequence[str],
    *,
    result_count: int = 1,
    detail: dict[str, Any] | None = None,
    once: bool = True,
) -> None:
    """Append the pending operation's row on ``conn`` (a store connection inside its write
    transaction); a no-op outside ``expect_row`` and, with ``once``, after the first row."""
    pending = _pending.get()
    if pending is None or (once and pending.rows):
        return
    pending.rows.append(
        pending.auditor.record_in(
            conn,
            pending.action,
            pending.caller,
            project=pending.project,
            memory_ids=list(memory_ids),
            result_count=result_count,
            redaction_count=pending.redactions(),
            detail=detail,
        )
    )


def committed(pending: PendingRow) -> None:
    """The operation returned: its rows are committed; advance the external anchor to them."""
    for record in pending.rows:
        pending.auditor.committed(record)


@contextmanager
def transaction_rows() -> Iterator[None]:
    """Wrap one store write transaction: rows appended in it are forgotten if it does not
    commit (the store rolled back, or retries the write), so the retry writes its own row."""
    pending = _pending.get()
    mark = len(pending.rows) if pending is not None else 0
    try:
        yield
    except BaseException:
        if pending is not None:
            del pending.rows[mark:]
        raise


#: How many ids a ``purge`` row lists (the lowest, i.e. the oldest memories); the count is always
#: whole: a purge of many expired memories makes one row of bounded size, not one that grows with
#: every id.
PURGE_IDS_LISTED = 1000


def write_purge_row(conn: object, purged: Sequence[str], expired_before: str | None) -> None:
    """A purge's row on ``conn``, inside the purge's transaction, when it removed anything: the
    count, the first ``PURGE_IDS_LISTED`` ids in id order, the cutoff (one shape for every store)."""
    if not purged:
        return
    ids = sorted(purged)[:PURGE_IDS_LISTED]
    write_row(
        conn,
        ids,
        result_count=len(purged),
        detail={"purged": len(purged), "ids_listed": len(ids), "expired_before": expired_before},
    )
