"""SQLiteAuditLog: the hash-chained audit log in the same SQLite file as the memories.

Appends run in ``BEGIN IMMEDIATE`` on connections of their own with ``synchronous=NORMAL``: in
WAL mode a commit then costs no fsync, so recording a read adds tens of microseconds instead of
milliseconds. The row survives a crash of the process at once; against power loss it becomes
durable with the next fsync of the WAL (any memory write at ``synchronous=FULL``, or a
checkpoint). The triggers of migration ``0002_audit_log`` keep the table append-only; each
append reads its row and the head back before it commits (``audit/guards.py``).
"""

from __future__ import annotations

# _thread (documented, low-level), not threading: the same lock and thread-local types without
# threading's module, which a cold search without the daemon would import only for this.
import _thread
import os
import sqlite3
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
from memwarden.store.sqlite.audit_guards import index_findings, schema_findings
from memwarden.store.sqlite.faults import SQLiteFault, describe_fault, fault_condition, with_clear_faults
from memwarden.store.sqlite.shm import close_all, watch_for
from memwarden.store.sqlite.wal_mode import enable_wal

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.audit.anchor import AnchorFile
    from memwarden.audit.keys import AuditKey

BUSY_TIMEOUT_MS = 60_000
_COLUMNS = (
    "seq, at, actor, tenant, project, action, outcome, memory_ids, result_count, degraded, "
    "redaction_count, query_sha256, query_len, query_plain, detail, prev_hash, hash"
)


@with_clear_faults()
class SQLiteAuditLog:
    """Append, read, prune and checkpoint the audit chain of one SQLite database file."""

    def __init__(
        self, path: str | os.PathLike[str], *, readonly: bool = False, key: AuditKey | None = None
    ) -> None:
        self.path = os.fspath(path)  # a string, as the store's (store/sqlite/store.py)
        self.readonly = readonly
        self.key = key
        # The anchor the service's auditor keeps for this log (set by audit.auditor.Auditor):
        # verify_log checks it when no other anchor is given.
        self.anchor_file: AnchorFile | None = None
        if not os.path.exists(self.path):
            raise StorageError(f"no database at {self.path}")
        self._local = _thread._local()
        self._all: list[sqlite3.Connection] = []
        self._lock = _thread.allocate_lock()
        self.shm = watch_for(self.path)
        self.shm.register(self)
        # A writable log checks its tables with its first connection, not here: a service's log
        # appends its rows on the store's connection (``append_in``), so a search or a prompt
        # hook never opens one of the log's own, nor pays its open, its pragmas and its close.
        # A read-only log is opened to be read at once (verify, a backup's head), and callers
        # tell a file without a log by this constructor's StorageError: it checks now.
        self._tables_checked = False
        if readonly:
            self.connection()

    def _check_tables(self, conn: sqlite3.Connection) -> None:
        """The log's tables are in the file (once per log); a damaged file said in words."""
        try:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.Error as exc:  # a damaged file: say so in words, not "malformed" alone
            raise self._fault("cannot read the audit log", exc) from exc
        if not {"audit_log", "audit_head", "audit_checkpoints"} <= tables:
            raise StorageError(f"{self.path} has no audit log (it predates schema migration 0002_audit_log)")
        self._tables_checked = True

    def _fault(self, what: str, exc: sqlite3.Error) -> SQLiteFault:
        """``exc`` as one line naming this file; its condition and bare cause as fields, so a
        caller that wraps it (a refused read) can say the cause once instead of nesting it."""
        cause = describe_fault(self.path, exc)
        return SQLiteFault(f"{what}: {cause}", condition=fault_condition(exc), cause=cause, path=self.path)

    def open_connections(self) -> int:
        return len(self._all)

    def close_connections(self) -> int:
        """Close every connection of this log (the ``-shm`` recovery, store/sqlite/shm.py)."""
        with self._lock:
            return close_all(self._all)

    def connection(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is not None and conn not in self._all:  # closed by close_connections
            conn = None
        if conn is None:
            self.shm.lock.acquire()  # not while the connections are being reopened
            try:
                if self.readonly:
                    from pathlib import Path

                    conn = sqlite3.connect(
                        f"{Path(self.path).resolve().as_uri()}?mode=ro",
                        uri=True,
                        isolation_level=None,
                        check_same_thread=False,
                    )
                else:
                    conn = sqlite3.connect(
                        self.path,
                        isolation_level=None,
                        check_same_thread=False,
                        timeout=BUSY_TIMEOUT_MS / 1000,
                    )
                    enable_wal(conn, BUSY_TIMEOUT_MS / 1000)
                    conn.execute("PRAGMA synchronous = NORMAL")
                conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                if not self._tables_checked:
                    self._check_tables(conn)
            except (sqlite3.Error, StorageError) as exc:
                self.shm.lock.release()
                if conn is not None:
                    conn.close()
                if isinstance(exc, StorageError):
                    raise
                raise self._fault("cannot open the audit log", exc) from exc
            self._local.conn = conn
            self.shm.opened()
            with self._lock:
                self._all.append(conn)
            self.shm.lock.release()
        elif not self.readonly and self.shm.check():  # every connection was just reopened
            return self.connection()
        return conn

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        conn = self.connection()
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self._fault("cannot write the audit log", exc) from exc
        try:
            yield conn
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            # SQLite may have rolled back already (a full disk does): a second ROLLBACK would
            # raise "no transaction is active" and hide the real cause.
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, SQLiteFault):  # already said (append_in): saying it again nests it
                raise
            raise self._fault("audit log write failed", exc) from exc
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        conn = self.connection()
        if conn.in_transaction:  # already inside one: it is the snapshot
            yield
            return
        try:
            conn.execute("BEGIN")
        except sqlite3.Error as exc:
            raise self._fault("cannot read the audit log", exc) from exc
        try:
            yield
        except BaseException:
            # The block failed (a damaged page, say): end the read quietly so its error, not a
            # second one from COMMIT, is what the caller sees.
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            raise
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise self._fault("cannot read the audit log", exc) from exc

    def append(self, event: AuditEvent, at: Stamp) -> AuditRecord:
        with self._write() as conn:
            return self.append_in(conn, event, at)

    def append_in(self, conn: sqlite3.Connection, event: AuditEvent, at: Stamp) -> AuditRecord:
        """Append on ``conn``, which holds a write transaction on this database (committed by the caller)."""
        seq, prev = conn.execute("SELECT seq, hash FROM audit_head WHERE id = 1").fetchone()
        values = event_values(seq + 1, stamp_time(at), event)
        digest = chain_hash(prev, values, self.key)
        row = (*values, prev, digest)
        try:
            conn.execute(f"INSERT INTO audit_log ({_COLUMNS}) VALUES ({', '.join('?' * 17)})", row)
            stored = conn.execute(f"SELECT {_COLUMNS} FROM audit_log WHERE seq = ?", (seq + 1,)).fetchone()
            head = conn.execute("SELECT seq, hash FROM audit_head WHERE id = 1").fetchone()
        except sqlite3.Error as exc:
            raise self._fault("cannot write the audit row", exc) from exc
        # A foreign trigger can skip the INSERT without an error: the row must be there, as
        # written, and the head must name it, or the write (and its transaction) fails.
        problem = landed_problem(row, stored, head)
        if problem is not None:
            raise StorageError(problem)
        return AuditRecord(*row)

    def records(
        self,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        tenant: str | None = None,
        actor: str | None = None,
    ) -> Iterator[AuditRecord]:
        sql, params = records_query(_COLUMNS, "?", since=since, until=until, tenant=tenant, actor=actor)
        # A generator is not wrapped by with_clear_faults: a damaged page met while iterating
        # is translated here.
        try:
            cursor = self.connection().execute(sql, params)
            for row in cursor:
                yield AuditRecord(*row)
        except sqlite3.Error as exc:
            raise self._fault("cannot read the audit log", exc) from exc

    def guard_problems(self) -> list[GuardFinding]:
        """Memwarden's audit triggers that are gone or changed, and every trigger or view it did
        not create, and an index of the log edited behind its back (``store/sqlite/audit_guards.py``)."""
        conn = self.connection()
        return schema_findings(conn) + index_findings(conn)

    def head(self) -> ChainHead:
        row = self.connection().execute("SELECT seq, hash FROM audit_head WHERE id = 1").fetchone()
        return ChainHead(seq=int(row[0]), hash=str(row[1])) if row else ChainHead(0, "")

    def page(self, query: AuditQuery, *, before_seq: int | None, limit: int) -> list[AuditRecord]:
        conn = self.connection()

        def run(sql: str, params: list[Any]) -> list[Any]:
            return conn.execute(sql, params).fetchall()

        with self.snapshot():
            return read_page(run, _COLUMNS, "?", query, before_seq=before_seq, limit=limit)

    def memory_writes(self, memory_id: str, *, tenant: str, limit: int) -> list[AuditRecord]:
        sql = MEMORY_WRITES_SQL.format(columns=_COLUMNS, p="?")
        return [AuditRecord(*row) for row in self.connection().execute(sql, (memory_id, limit, tenant))]

    def daily_counts(self, since: str, *, tenant: str | None) -> list[DailyCount]:
        sql = DAILY_COUNTS_SQL.format(p="?", tenant="" if tenant is None else "AND tenant = ?")
        rows = self.connection().execute(sql, [since] if tenant is None else [since, tenant]).fetchall()
        return [DailyCount(*row) for row in rows]

    def latest_stamp(self) -> str | None:
        row = self.connection().execute("SELECT MAX(at) FROM audit_log").fetchone()
        return None if row is None or row[0] is None else str(row[0])

    def checkpoints(self) -> list[Checkpoint]:
        rows = self.connection().execute(
            "SELECT upto_seq, upto_hash, pruned_rows, before, at FROM audit_checkpoints ORDER BY upto_seq"
        )
        return [Checkpoint(*row) for row in rows]

    def prune(
        self, before: datetime, at: datetime, *, actor: str = "memwarden", tenant: str = "-"
    ) -> Checkpoint | None:
        with self._write() as conn:
            plan = plan_prune(lambda sql, params: conn.execute(sql, params).fetchone(), "?", before, at)
            if plan is None:
                return None
            checkpoint, previous = plan
            conn.execute(
                "INSERT INTO audit_checkpoints(upto_seq, upto_hash, pruned_rows, before, at) VALUES (?, ?, ?, ?, ?)",
                (
                    checkpoint.upto_seq,
                    checkpoint.upto_hash,
                    checkpoint.pruned_rows,
                    checkpoint.before,
                    checkpoint.at,
                ),
            )
            conn.execute("DELETE FROM audit_log WHERE seq <= ?", (checkpoint.upto_seq,))
            self.append_in(conn, prune_event(checkpoint, previous, actor, tenant), at)
        return checkpoint

    def close(self) -> None:
        with self._lock:
            close_all(self._all)
        self._local = _thread._local()
        self.shm.released()
