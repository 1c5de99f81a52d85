"""What an audit log stores and the ``AuditLog`` protocol every backend implements.

The log is hash-chained: row ``n`` holds ``prev_hash`` (the hash of row ``n-1``, or
``GENESIS`` for row 1) and ``hash = chain_hash(prev_hash, fields)``. Backends enforce in the
database that rows are only appended (no UPDATE, no DELETE except rows covered by a prune
checkpoint) and keep a head (newest seq and hash) that only moves forward. Verification
(``audit/chain.py``) needs nothing but this protocol, so it runs on any backend and on backups.
Imports no backend.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

GENESIS = "0" * 64
ACTIONS = (
    "add", "search", "get", "list", "update", "delete", "stats", "export", "import", "prune",
)


@dataclass(frozen=True, slots=True)
class AuditEvent:
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
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AuditRecord:
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
            self.seq, self.at, self.actor, self.tenant, self.project, self.action, self.outcome,
            self.memory_ids, self.result_count, self.degraded, self.redaction_count,
            self.query_sha256, self.query_len, self.query_plain, self.detail,
        ]

    def to_dict(self) -> dict[str, Any]:
        """The export shape: JSON columns decoded when they are well-formed."""
        out: dict[str, Any] = {
            "seq": self.seq, "at": self.at, "actor": self.actor, "tenant": self.tenant,
            "project": self.project, "action": self.action, "outcome": self.outcome,
            "memory_ids": _json_or_raw(self.memory_ids), "result_count": self.result_count,
            "degraded": bool(self.degraded) if isinstance(self.degraded, int) else self.degraded,
            "redaction_count": self.redaction_count, "query_sha256": self.query_sha256,
            "query_len": self.query_len, "query_plain": self.query_plain,
            "detail": _json_or_raw(self.detail), "prev_hash": self.prev_hash, "hash": self.hash,
        }
        return out


def _json_or_raw(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def chain_hash(prev_hash: Any, fields: list[Any]) -> str:
    """SHA-256 over the previous hash and the row's fields as compact, sorted JSON."""
    payload = json.dumps(fields, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(f"{prev_hash}\n{payload}".encode("utf-8", "surrogatepass")).hexdigest()


def records_query(
    columns: str, placeholder: str, *, since: datetime | None, until: datetime | None,
    tenant: str | None, actor: str | None,
) -> tuple[str, list[Any]]:
    """The SELECT of ``AuditLog.records`` for one backend's placeholder (``?`` or ``%s``)."""
    from memwarden.models import format_time

    where, params = [], []  # type: ignore[var-annotated]
    for clause, value in ((f"at >= {placeholder}", format_time(since)), (f"at < {placeholder}", format_time(until)),
                          (f"tenant = {placeholder}", tenant), (f"actor = {placeholder}", actor)):
        if value is not None:
            where.append(clause)
            params.append(value)
    sql = f"SELECT {columns} FROM audit_log"
    if where:
        sql += " WHERE " + " AND ".join(where)
    return sql + " ORDER BY seq", params


@dataclass(frozen=True, slots=True)
class ChainHead:
    """The newest row the database has acknowledged (seq 0 and GENESIS when empty)."""

    seq: int
    hash: str


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """Left by a prune: rows up to ``upto_seq`` were removed; ``upto_hash`` was the last hash."""

    upto_seq: int
    upto_hash: str
    pruned_rows: int
    before: str
    at: str


@runtime_checkable
class AuditLog(Protocol):
    """An append-only, hash-chained audit log in some database."""

    def append(self, event: AuditEvent, at: datetime) -> AuditRecord:
        """Chain and store one event atomically (concurrent writers queue, none forks the chain)."""
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

    def snapshot(self) -> AbstractContextManager[None]:
        """Within this block, head, checkpoints and records come from one consistent snapshot."""
        ...

    def checkpoints(self) -> list[Checkpoint]:
        """Prune checkpoints, oldest first."""
        ...

    def prune(self, before: datetime, at: datetime) -> Checkpoint | None:
        """Remove rows older than ``before``, leaving a checkpoint; None when nothing is older."""
        ...

    def close(self) -> None: ...
