"""PostgresAuditLog: the hash-chained audit log in the same PostgreSQL database as the memories.

Rows keep SQLite's column types (see migration ``0002_audit_log``), so a record reads back as
the same Python values on both backends and ``audit/chain.py`` verifies either. Appenders in
every replica serialize on the ``audit_head`` row lock, so the chain never forks. Appends commit
with ``synchronous_commit = off``, the counterpart of the SQLite log's ``synchronous=NORMAL``: a
crash of memwarden loses nothing, and the row reaches disk with the next synchronous commit
(any memory write) or within PostgreSQL's WAL writer delay (200 ms by default); a crash of the
database server itself in that window can lose the newest audit rows, never reorder or fork
them. The database's triggers keep the tables append-only; each append reads its row and the
head back before it commits (``audit/guards.py``).

``append_in(conn, …)`` appends on a connection the caller holds in a transaction: the store uses
it so the audit row of a memory write commits in the same (synchronous) transaction.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memwarden.audit.base import (
    DAILY_COUNTS_SQL,
    MEMORY_WRITES_SQL,
    AuditEvent,
    AuditQuery,
    AuditRecord,
    ChainHead,
    Checkpoint,
    DailyCount,
    Stamp,
    chain_hash,
    event_values,
    plan_prune,
    prune_event,
    read_page,
    records_query,
    stamp_time,
)
from memwarden.audit.guards import GuardFinding, landed_problem
from memwarden.errors import StorageError
from memwarden.store.postgres.audit_guards import index_findings, schema_findings
from memwarden.store.postgres.connect import open_pool, redact_url

if TYPE_CHECKING:  # pragma: no cover
    import psycopg

    from memwarden.audit.anchor import AnchorFile
    from memwarden.audit.keys import AuditKey

COLUMNS = (
    "seq, at, actor, tenant, project, action, outcome, memory_ids, result_count, degraded, "
    "redaction_count, query_sha256, query_len, query_plain, detail, prev_hash, hash"
)
RECORDS_BATCH = 2000
_LANDED = (
    "SELECT h.seq, h.hash, "
    + ", ".join(f"a.{c}" for c in COLUMNS.split(", "))
    + " FROM audit_head h LEFT JOIN audit_log a ON a.seq = %s WHERE h.id = 1"
)


def _audit_failure(exc: Exception) -> str:
    """A PostgreSQL error of the audit log as one line: what failed and what to do (no driver
    class name: a person cannot act on one)."""
    detail = (str(exc).strip().splitlines() or ["no detail"])[0]
    state = getattr(exc, "sqlstate", None)
    if state == "25006":  # read_only_sql_transaction: a standby, or default_transaction_read_only
        return (
            f"the audit log cannot be written: the PostgreSQL database is read-only ({detail}); "
            "point MEMWARDEN_DB at the primary"
        )
    if state == "42501":  # insufficient_privilege
        return (
            f"the audit log cannot be written: this PostgreSQL user lacks rights on the audit tables ({detail}); "
            "grant them, or connect as the user that ran the migrations"
        )
    return f"the audit log failed in PostgreSQL ({detail}); check that the server at MEMWARDEN_DB is up and reachable"


class PostgresAuditLog:
    """Append, read, prune and checkpoint the audit chain of one PostgreSQL database."""

    def __init__(
        self, url: str, *, readonly: bool = False, pool_size: int = 4, key: AuditKey | None = None
    ) -> None:
        self.url = url
        self.readonly = readonly
        self.key = key
        # The anchor the service's auditor keeps for this log (set by audit.auditor.Auditor):
        # verify_log checks it when no other anchor is given.
        self.anchor_file: AnchorFile | None = None
        self.pool = open_pool(url, pool_size=pool_size, read_only=readonly)
        self._local = threading.local()
        with self._connection() as conn:
            row = conn.execute(
                "SELECT to_regclass('audit_log') IS NOT NULL AND to_regclass('audit_head') IS NOT NULL"
                " AND to_regclass('audit_checkpoints') IS NOT NULL"
            ).fetchone()
        if not (row and row[0]):
            self.pool.close()
            raise StorageError(
                f"{redact_url(url)} has no audit log (it predates schema migration 0002_audit_log): "
                "start memwarden on it once to migrate"
            )

    @contextmanager
    def _connection(self) -> Iterator[psycopg.Connection]:
        import psycopg

        pinned: psycopg.Connection | None = getattr(self._local, "conn", None)
        if pinned is not None:
            yield pinned
            return
        try:
            with self.pool.connection() as conn:
                yield conn
        except psycopg.Error as exc:
            raise StorageError(_audit_failure(exc), sqlstate=getattr(exc, "sqlstate", None)) from exc

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        if getattr(self._local, "conn", None) is not None:  # already inside one: it is the snapshot
            yield
            return
        with self._connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            self._local.conn = conn
            try:
                yield
            finally:
                self._local.conn = None

    def append(self, event: AuditEvent, at: Stamp) -> AuditRecord:
        with self._connection() as conn, conn.transaction():
            conn.execute("SET LOCAL synchronous_commit = off")
            return self.append_in(conn, event, at)

    def append_in(self, conn: psycopg.Connection, event: AuditEvent, at: Stamp) -> AuditRecord:
        """Append on ``conn`` inside its open transaction (committed by the caller)."""
        head = conn.execute("SELECT seq, hash FROM audit_head WHERE id = 1 FOR UPDATE").fetchone()
        assert head is not None
        values = event_values(int(head[0]) + 1, stamp_time(at), event)
        digest = chain_hash(head[1], values, self.key)
        row = (*values, head[1], digest)
        conn.execute(f"INSERT INTO audit_log ({COLUMNS}) VALUES ({', '.join(['%s'] * 17)})", row)
        # A foreign trigger or rule can skip the INSERT without an error: the row must be there,
        # as written, and the head must name it, or the write (and its transaction) fails.
        # One round trip: the head, and the row beside it (NULLs when it is not there).
        both = conn.execute(_LANDED, (values[0],)).fetchone()
        assert both is not None
        stored = None if both[2] is None else tuple(both[2:])
        problem = landed_problem(row, stored, both[:2])
        if problem is not None:
            raise StorageError(problem)
        return AuditRecord(*row)

    def append_records(self, records: list[AuditRecord]) -> None:
        """Copy stored rows verbatim (``memwarden migrate``); the triggers check each continues the chain."""
        with self._connection() as conn, conn.transaction(), conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO audit_log ({COLUMNS}) VALUES ({', '.join(['%s'] * 17)})",
                [(*r.hashed_fields(), r.prev_hash, r.hash) for r in records],
            )
            if records:  # the last copied row must be stored and be the head (see append_in)
                last = records[-1]
                stored = cur.execute(
                    f"SELECT {COLUMNS} FROM audit_log WHERE seq = %s", (last.seq,)
                ).fetchone()
                moved = cur.execute("SELECT seq, hash FROM audit_head WHERE id = 1").fetchone()
                problem = landed_problem((*last.hashed_fields(), last.prev_hash, last.hash), stored, moved)
                if problem is not None:
                    raise StorageError(problem)

    def records(
        self,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        tenant: str | None = None,
        actor: str | None = None,
    ) -> Iterator[AuditRecord]:
        sql, params = records_query(COLUMNS, "%s", since=since, until=until, tenant=tenant, actor=actor)
        # A server-side cursor streams a long log instead of loading it whole; it needs a transaction.
        with self._connection() as conn:
            with conn.transaction() if not conn.info.transaction_status else _already():
                with conn.cursor(name="memwarden_audit_records") as cur:
                    cur.itersize = RECORDS_BATCH
                    cur.execute(sql, params)
                    for row in cur:
                        yield AuditRecord(*row)

    def head(self) -> ChainHead:
        with self._connection() as conn:
            row = conn.execute("SELECT seq, hash FROM audit_head WHERE id = 1").fetchone()
        return ChainHead(seq=int(row[0]), hash=str(row[1])) if row else ChainHead(0, "")

    def page(self, query: AuditQuery, *, before_seq: int | None, limit: int) -> list[AuditRecord]:
        with self.snapshot(), self._connection() as conn:

            def run(sql: str, params: list[Any]) -> list[Any]:
                return conn.execute(sql, params).fetchall()  # built from constants

            return read_page(run, COLUMNS, "%s", query, before_seq=before_seq, limit=limit)

    def memory_writes(self, memory_id: str, *, tenant: str, limit: int) -> list[AuditRecord]:
        sql = MEMORY_WRITES_SQL.format(columns=COLUMNS, p="%s")
        with self._connection() as conn:
            return [AuditRecord(*row) for row in conn.execute(sql, (memory_id, limit, tenant)).fetchall()]

    def daily_counts(self, since: str, *, tenant: str | None) -> list[DailyCount]:
        sql = DAILY_COUNTS_SQL.format(p="%s", tenant="" if tenant is None else "AND tenant = %s")
        with self._connection() as conn:
            rows = conn.execute(
                sql, [since] if tenant is None else [since, tenant]
            ).fetchall()  # built from constants
        return [DailyCount(str(r[0]), str(r[1]), str(r[2]), str(r[3]), str(r[4]), int(r[5])) for r in rows]

    def latest_stamp(self) -> str | None:
        with self._connection() as conn:
            row = conn.execute("SELECT MAX(at) FROM audit_log").fetchone()
        return None if row is None or row[0] is None else str(row[0])

    def checkpoints(self) -> list[Checkpoint]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT upto_seq, upto_hash, pruned_rows, before, at FROM audit_checkpoints ORDER BY upto_seq"
            ).fetchall()
        return [Checkpoint(int(r[0]), r[1], int(r[2]), r[3], r[4]) for r in rows]

    def prune(
        self, before: datetime, at: datetime, *, actor: str = "memwarden", tenant: str = "-"
    ) -> Checkpoint | None:
        with self._connection() as conn, conn.transaction():
            conn.execute("LOCK TABLE audit_checkpoints IN EXCLUSIVE MODE")
            conn.execute("SELECT 1 FROM audit_head WHERE id = 1 FOR UPDATE")  # no append while we decide
            plan = plan_prune(lambda sql, params: conn.execute(sql, params).fetchone(), "%s", before, at)
            if plan is None:
                return None
            checkpoint, previous = plan
            conn.execute(
                "INSERT INTO audit_checkpoints (upto_seq, upto_hash, pruned_rows, before, at)"
                " VALUES (%s, %s, %s, %s, %s)",
                (
                    checkpoint.upto_seq,
                    checkpoint.upto_hash,
                    checkpoint.pruned_rows,
                    checkpoint.before,
                    checkpoint.at,
                ),
            )
            conn.execute("DELETE FROM audit_log WHERE seq <= %s", (checkpoint.upto_seq,))
            self.append_in(conn, prune_event(checkpoint, previous, actor, tenant), at)
        return checkpoint

    def guard_problems(self) -> list[GuardFinding]:
        """Memwarden's triggers that are gone, disabled or changed, and every trigger, rule,
        policy and view it did not create (``store/postgres/audit_guards.py``)."""
        with self._connection() as conn:
            return schema_findings(conn) + index_findings(conn)

    def close(self) -> None:
        self.pool.close()


@contextmanager
def _already() -> Iterator[None]:
    """Inside a snapshot the transaction is already open."""
    yield
