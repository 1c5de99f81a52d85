"""Auditor: the service's collaborator that turns each operation into one audit row.

The service records a read with ``record`` once it returns; a write gets ``for_write``, the
value its store call appends inside the write's transaction (``audit/write_audit.py``).
Adapters built on the service (export, import, backups) call ``MemoryService.audit``, which
lands here. Queries are stored as SHA-256 and length; with ``MEMWARDEN_AUDIT_QUERY_PLAIN=1``
the query text is stored too, after redaction, so a secret typed into a search never reaches
the audit table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memwarden.audit.base import AuditEvent, AuditLog, AuditRecord
from memwarden.digests import sha256
from memwarden.errors import InvalidInput
from memwarden.models import Caller, utcnow

if TYPE_CHECKING:  # pragma: no cover - imported only with an anchor file (app.build_auditor)
    from memwarden.audit.anchor import AnchorFile
    from memwarden.audit.write_audit import WriteAudit


class Auditor:
    """Records events in an ``AuditLog``; ``redact`` cleans plain-text queries when kept."""

    def __init__(
        self,
        log: AuditLog,
        *,
        query_plain: bool = False,
        redact: Callable[[str], str] | None = None,
        clock: Callable[[], datetime] = utcnow,
        anchor: AnchorFile | None = None,
        reads_fail_open: bool = False,
    ) -> None:
        self.log = log
        self.reads_fail_open = reads_fail_open
        self.query_plain = query_plain
        self.redact = redact
        self.clock = clock
        self.anchor = anchor
        if anchor is not None and hasattr(log, "anchor_file"):
            # verify_log(log) then checks this anchor too: the dashboard's verify button runs
            # just that, and must tell what `memwarden audit verify` tells.
            log.anchor_file = anchor
        # Set when the chain lost rows the anchor file recorded: the anchor is then kept, not advanced.
        self.anchor_problem: dict[str, Any] | None = None
        self._anchor_checked = False

    def event(
        self,
        action: str,
        caller: Caller,
        *,
        project: str | None = None,
        memory_ids: Sequence[str] = (),
        result_count: int = 0,
        degraded: bool = False,
        redaction_count: int = 0,
        outcome: str = "ok",
        query: str | None = None,
        detail: dict[str, Any] | None = None,
    ) -> AuditEvent:
        """The event to record (the query turned into SHA-256 + length, plain text if kept)."""
        digest, length, plain = None, None, None
        if query:
            digest = sha256(query.encode("utf-8", "surrogatepass")).hexdigest()
            length = len(query)
            if self.query_plain:
                plain = self.redact(query) if self.redact is not None else query
        return AuditEvent(
            actor=caller.actor,
            tenant=caller.tenant,
            action=action,
            project=project,
            memory_ids=tuple(memory_ids),
            result_count=result_count,
            degraded=degraded,
            redaction_count=redaction_count,
            outcome=outcome,
            query_sha256=digest,
            query_len=length,
            query_plain=plain,
            detail=detail or {},
        )

    def record(self, action: str, caller: Caller, **fields: Any) -> AuditRecord:
        """Append one row in its own transaction (reads, and operations that write no memory)."""
        record = self.log.append(
            self.event(action, caller, **fields), self.clock
        )  # stamped under the chain lock
        self.committed(record)
        return record

    def for_write(self, action: str, caller: Caller, **fields: Any) -> WriteAudit:
        """The row a store write appends in its own transaction (``audit/write_audit.py``):
        ``fields`` as for ``event``; the store adds the ids it wrote."""
        from memwarden.audit.write_audit import WriteAudit

        return WriteAudit(self.event(action, caller, **fields), self)

    def append_in(self, conn: object, event: AuditEvent) -> AuditRecord:
        """Append ``event`` on ``conn``, inside the store's open write transaction (stamped
        under the chain lock); the store commits it, then calls ``committed``."""
        append_in = getattr(self.log, "append_in", None)
        if append_in is None:  # pragma: no cover - every backend has one
            raise TypeError(f"{type(self.log).__name__} cannot append inside another transaction")
        record: AuditRecord = append_in(conn, event, self.clock)
        return record

    def committed(self, record: AuditRecord) -> None:
        """A row of this chain was committed: advance the external anchor (if any) to it.

        The first time in this process the anchor is checked against the chain; when the chain
        lost its newest rows (``anchor_problem``) the anchor file is left as it is, so the loss
        stays visible to ``audit verify --anchor-file`` and health instead of being written over."""
        if self.anchor is None:
            return
        if self._anchor_checked is False:
            self._anchor_checked = True
            self.anchor_problem = self.check_anchor()
        if self.anchor_problem is None:
            self.anchor.noted(int(record.seq), str(record.hash), str(record.at))

    def check_anchor(self) -> dict[str, Any] | None:
        """The chain against the anchor file now (``anchor.anchor_problem``); None without one."""
        if self.anchor is None:
            return None
        try:
            anchored = self.anchor.read()
        except InvalidInput as exc:
            return {"kind": "unreadable", "message": exc.message}
        from memwarden.audit.anchor import anchor_problem

        problem = anchor_problem(self.log, anchored)
        if problem is not None:
            self.anchor_problem = problem
        return problem

    def close(self) -> None:
        if self.anchor is not None:
            self.anchor.flush()
        self.log.close()
