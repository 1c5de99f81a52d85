"""SQLiteStore: memories, their keyword index and later their vectors in one SQLite file.

Connections are per thread (reads never wait for each other); every write runs in
``BEGIN IMMEDIATE`` so concurrent writers, in this process or others, queue on SQLite's own lock
(``busy_timeout``) instead of failing with "database is locked" half-way through a transaction.
"""

from __future__ import annotations

# _thread (documented, low-level), not threading: the same lock and thread-local types without
# threading's module, which a cold search without the daemon would import only for this.
import _thread
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memwarden.audit.write_audit import WriteAudit, append_row, note_committed
from memwarden.errors import Conflict
from memwarden.models import (
    IndexText,
    Memory,
    VectorSpace,
    format_time,
)
from memwarden.store.sqlite.faults import SQLiteFault, describe_fault, with_clear_faults
from memwarden.store.sqlite.fts import scope_token
from memwarden.store.sqlite.insights import SQLiteInsights
from memwarden.store.sqlite.keyword_methods import SQLiteKeywords
from memwarden.store.sqlite.maintenance import SQLiteMaintenance
from memwarden.store.sqlite.rows import COLUMNS as _COLUMNS
from memwarden.store.sqlite.rows import M_COLUMNS as _M_COLUMNS
from memwarden.store.sqlite.rows import NCOLUMNS as _NCOLUMNS
from memwarden.store.sqlite.rows import memory_params as _memory_params
from memwarden.store.sqlite.rows import row_to_memory as _row_to_memory
from memwarden.store.sqlite.schema_version import SCHEMA_VERSION
from memwarden.store.sqlite.shm import close_all, watch_for
from memwarden.store.sqlite.statistics import settle as settle_statistics
from memwarden.store.sqlite.threads import SQLiteThreads
from memwarden.store.sqlite.vector_methods import SQLiteVectors
from memwarden.store.sqlite.wal_mode import enable_wal
from memwarden.store.unfinished import KEYWORD_REINDEX, marker_value

if TYPE_CHECKING:  # pragma: no cover - the vector index loads with the first vector search
    from memwarden.store.sqlite.vectors import VectorSpaceIndex

BUSY_TIMEOUT_MS = 60_000
REINDEX_BATCH = 500


@with_clear_faults()
class SQLiteStore(SQLiteKeywords, SQLiteVectors, SQLiteThreads, SQLiteMaintenance, SQLiteInsights):
    """The default backend. Safe to share between threads and with other processes.

    Whole-store operations (integrity, keyword-index probe and rebuild, bulk import, purge,
    vacuum) come from ``SQLiteMaintenance``; backups from ``store/sqlite/backup.py``.
    """

    backend = "sqlite"

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        synchronous: str = "FULL",
        vector_exact_max: int = 150_000,
        vector_snapshots: bool = True,
    ) -> None:
        # A string: a cold search does not import pathlib (settings_paths.py).
        self.path = os.fspath(path)
        self.synchronous = synchronous
        self.vector_exact_max = vector_exact_max
        self.vector_snapshots = vector_snapshots
        self._vector_indexes: dict[VectorSpace, VectorSpaceIndex] = {}
        # The file holds every tenant's memories: its folder is created 0700 and the file 0600
        # whatever the umask of the process (a daemon or bundle started outside the CLI, which
        # sets 077); SQLite gives the -wal and -shm files the database's own mode.
        os.makedirs(os.path.dirname(self.path) or ".", mode=0o700, exist_ok=True)
        if not os.path.exists(self.path):
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
        self._local = _thread._local()
        self._all: list[sqlite3.Connection] = []
        self._lock = _thread.allocate_lock()
        self.shm = watch_for(self.path)
        self.shm.register(self)
        try:
            self.applied_migrations = self._migrate()
        except SQLiteFault:
            raise
        except sqlite3.Error as exc:
            raise SQLiteFault(describe_fault(self.path, exc)) from exc

    def _migrate(self) -> list[str]:
        """Apply pending schema migrations; the migrations module (all the SQL) is imported only
        when the file's ``user_version`` is behind this code's."""
        conn = self.connection()
        if int(conn.execute("PRAGMA user_version").fetchone()[0]) >= SCHEMA_VERSION:
            return []
        from memwarden.store.sqlite import migrations

        return migrations.migrate(conn)

    # -- connections -------------------------------------------------------------------------

    def connection(self) -> sqlite3.Connection:
        """This thread's connection, opened on first use (and again after ``close_connections``)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        # A deleted or replaced -shm closes every connection of the process first (store/sqlite/shm.py).
        if conn is not None and not self.shm.check() and conn in self._all:
            return conn
        with self.shm.lock:  # not while the connections are being reopened
            conn = self._open()
            self._local.conn = conn
            self.shm.opened()
            with self._lock:
                self._all.append(conn)
        return conn

    def open_connections(self) -> int:
        return len(self._all)

    def close_connections(self) -> int:
        """Close every connection of this store without a checkpoint or ``PRAGMA optimize``
        (the ``-shm`` recovery); each thread opens a new one on its next use. How many."""
        with self._lock:
            return close_all(self._all)

    def _open(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_MS / 1000
            )
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            enable_wal(conn, BUSY_TIMEOUT_MS / 1000)
            conn.execute(f"PRAGMA synchronous = {self.synchronous}")
            conn.execute("PRAGMA foreign_keys = ON")
            # Statistics refreshed by ``PRAGMA optimize`` (at close, after bulk imports) read at
            # most this many rows per index, so keeping them current costs milliseconds at 1M.
            conn.execute("PRAGMA analysis_limit = 1000")
        except sqlite3.Error as exc:
            raise SQLiteFault(f"cannot open the database: {describe_fault(self.path, exc)}") from exc
        return conn

    @contextmanager
    def write(self, *, durable: bool = True) -> Iterator[sqlite3.Connection]:
        """One write transaction under SQLite's write lock (``BEGIN IMMEDIATE``).

        ``durable=False`` is for bookkeeping (usage counters): the commit skips the fsync
        (``synchronous=NORMAL`` in WAL), so it survives a process crash at once and power loss
        from the next durable commit on; a search then costs no disk flush.
        """
        conn = self.connection()
        if not durable and self.synchronous != "NORMAL":
            conn.execute("PRAGMA synchronous = NORMAL")
            try:
                with self.write() as inner:
                    yield inner
            finally:
                conn.execute(f"PRAGMA synchronous = {self.synchronous}")
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise SQLiteFault(f"cannot start a write: {describe_fault(self.path, exc)}") from exc
        try:
            yield conn
        except BaseException:
            if conn.in_transaction:  # SQLite may have rolled back already (e.g. on SQLITE_CORRUPT)
                conn.execute("ROLLBACK")
            raise
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise SQLiteFault(f"commit failed: {describe_fault(self.path, exc)}") from exc

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                try:
                    if not conn.in_transaction:
                        conn.execute("PRAGMA optimize")  # what SQLite advises before closing
                        settle_statistics(conn)  # else the next close analyzes again (statistics.py)
                    conn.close()
                except sqlite3.Error:  # pragma: no cover - closing is best effort
                    pass
            self._all.clear()
        self._local = _thread._local()
        self.shm.released()

    # -- writes ------------------------------------------------------------------------------

    def add(
        self, memory: Memory, index: IndexText, *, audit: WriteAudit | None = None
    ) -> tuple[Memory, bool]:
        with self.write() as conn:
            stored, duplicate = self._add_in(conn, memory, index)
            row = append_row(audit, conn, [stored.id], detail={"duplicate": duplicate})
        note_committed(audit, row)
        return stored, duplicate

    def _add_in(self, conn: sqlite3.Connection, memory: Memory, index: IndexText) -> tuple[Memory, bool]:
        row = conn.execute(
            f"SELECT {_COLUMNS} FROM memories WHERE tenant = ? AND project = ? AND content_hash = ?"
            " AND deleted_at IS NULL",
            (memory.tenant, memory.project, memory.content_hash),
        ).fetchone()
        if row is not None:
            existing = _row_to_memory(row)
            if not existing.is_expired(memory.created_at):
                return existing, True
            # An expired twin is retired so the same fact can be stored afresh.
            self._soft_delete_row(conn, existing, memory.created_at)
        cursor = conn.execute(
            f"INSERT INTO memories ({_COLUMNS}) VALUES ({', '.join('?' * _NCOLUMNS)})",
            _memory_params(memory),
        )
        self._index(conn, cursor.lastrowid, index, memory)
        return memory, False

    def index_fingerprint(self) -> str | None:
        row = self.connection().execute("SELECT value FROM index_state WHERE key = 'analyzer'").fetchone()
        return None if row is None else str(row[0])

    def ensure_index(
        self,
        fingerprint: str,
        index_for: Callable[[Memory], IndexText],
        progress: Callable[[int, int], None] | None = None,
    ) -> int:
        if self.index_fingerprint() == fingerprint:
            return 0
        # Marked first, in its own commit; the re-index below removes the mark in its transaction.
        self.put_state(KEYWORD_REINDEX, marker_value("reindex-keywords", analyzer=fingerprint))
        with self.write() as conn:
            # Re-read under the write lock: another process may have just done it.
            row = conn.execute("SELECT value FROM index_state WHERE key = 'analyzer'").fetchone()
            if row is not None and row[0] == fingerprint:
                conn.execute("DELETE FROM index_state WHERE key = ?", (KEYWORD_REINDEX,))
                return 0
            total = conn.execute("SELECT COUNT(*) FROM memories WHERE deleted_at IS NULL").fetchone()[0]
            conn.execute("DELETE FROM memories_fts")
            cursor = conn.execute(
                f"SELECT rowid, {_COLUMNS} FROM memories WHERE deleted_at IS NULL ORDER BY rowid"
            )
            done = 0
            while batch := cursor.fetchmany(REINDEX_BATCH):
                for row in batch:
                    memory = _row_to_memory(row[1:])
                    self._index(conn, row[0], index_for(memory), memory)
                done += len(batch)
                if progress is not None:
                    progress(done, total)
            conn.execute(
                "INSERT INTO index_state(key, value) VALUES ('analyzer', ?)"
                " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (fingerprint,),
            )
            conn.execute("DELETE FROM index_state WHERE key = ?", (KEYWORD_REINDEX,))
        return int(total)

    @staticmethod
    def _index(conn: sqlite3.Connection, rowid: int | None, index: IndexText, memory: Memory) -> None:
        """One row of the keyword index, as a plain single-row ``VALUES`` insert.

        FTS5 writes its pending terms out as a new segment whenever a statement opens a savepoint,
        and an ``INSERT … SELECT`` (or any statement that fires triggers) does: one segment per row,
        merged again and again, so indexing got slower as the index grew (orders of magnitude slower
        per row than ``VALUES`` in the same transaction: docs/performance.md#storage). Bulk writers
        therefore insert their memories first and index them after (``import_memories``).
        """
        conn.execute(
            "INSERT INTO memories_fts(rowid, title, tags, body, context, scope) VALUES (?, ?, ?, ?, ?, ?)",
            (
                rowid,
                index.title,
                index.tags,
                index.body,
                index.context,
                scope_token(memory.tenant, memory.project),
            ),
        )

    def update(
        self,
        memory: Memory,
        index: IndexText,
        *,
        expected_version: int,
        audit: WriteAudit | None = None,
    ) -> Memory:
        updated = memory._replace(version=expected_version + 1)
        with self.write() as conn:
            row = conn.execute(
                "SELECT rowid, version, deleted_at FROM memories WHERE tenant = ? AND id = ?",
                (memory.tenant, memory.id),
            ).fetchone()
            if row is None or row[2] is not None:
                raise Conflict(f"memory {memory.id} was deleted meanwhile", id=memory.id)
            if row[1] != expected_version:
                raise Conflict(
                    f"memory {memory.id} is at version {row[1]}, not {expected_version}: "
                    "get it again and retry the update",
                    id=memory.id,
                    current_version=row[1],
                )
            twin = conn.execute(
                "SELECT id FROM memories WHERE tenant = ? AND project = ? AND content_hash = ?"
                " AND deleted_at IS NULL AND id != ?",
                (memory.tenant, memory.project, memory.content_hash, memory.id),
            ).fetchone()
            if twin is not None:
                raise Conflict(
                    f"memory {twin[0]} in project {memory.project!r} already says exactly this; "
                    f"delete one of them instead",
                    id=memory.id,
                    duplicate_of=twin[0],
                )
            params = _memory_params(updated)
            conn.execute(
                "UPDATE memories SET project = ?, kind = ?, title = ?, tags = ?, content = ?, content_hash = ?,"
                " pinned = ?, updated_at = ?, expires_at = ?, version = ?, redactions = ?, injection_flags = ?,"
                " context = ?, thread = ?, occurred_at = ?, source = ?, actor = ? WHERE rowid = ?",
                (
                    *params[2:9],
                    params[10],
                    params[11],
                    params[13],
                    params[16],
                    params[17],
                    *params[18:23],
                    row[0],
                ),
            )
            conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (row[0],))
            self._index(conn, row[0], index, updated)
            written = append_row(audit, conn, [memory.id], detail={"version": updated.version})
        note_committed(audit, written)
        return updated

    def soft_delete(
        self, tenant: str, memory_id: str, now: datetime, *, audit: WriteAudit | None = None
    ) -> Memory | None:
        with self.write() as conn:
            row = conn.execute(
                f"SELECT {_COLUMNS} FROM memories WHERE tenant = ? AND id = ?", (tenant, memory_id)
            ).fetchone()
            if row is None:
                return None
            memory = _row_to_memory(row)
            if memory.deleted_at is not None:
                return memory
            deleted = self._soft_delete_row(conn, memory, now)
            written = append_row(audit, conn, [memory.id], detail={"already_deleted": False})
        note_committed(audit, written)
        return deleted

    def _soft_delete_row(self, conn: sqlite3.Connection, memory: Memory, now: datetime) -> Memory:
        rowid = conn.execute("SELECT rowid FROM memories WHERE id = ?", (memory.id,)).fetchone()[0]
        conn.execute("UPDATE memories SET deleted_at = ? WHERE rowid = ?", (format_time(now), rowid))
        conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (rowid,))
        return memory._replace(deleted_at=now)

    def record_hits(
        self, tenant: str, ids: Sequence[str], now: datetime, *, audit: WriteAudit | None = None
    ) -> None:
        if not ids:
            return
        # Usage counters are bookkeeping, and a search's audit row is written like every read's
        # (audit.py: synchronous=NORMAL): one commit without an fsync holds both.
        with self.write(durable=False) as conn:
            conn.executemany(
                "UPDATE memories SET hit_count = hit_count + 1, last_used_at = ? WHERE +tenant = ? AND id = ?",
                [(format_time(now), tenant, memory_id) for memory_id in ids],
            )
            row = append_row(audit, conn, ids)
        note_committed(audit, row)

    # -- reads -------------------------------------------------------------------------------

    def get_many(self, tenant: str, ids: Sequence[str]) -> list[Memory]:
        if not ids:
            return []
        marks = ", ".join("?" * len(ids))
        rows = self.connection().execute(
            f"SELECT {_COLUMNS} FROM memories WHERE +tenant = ? AND id IN ({marks})", (tenant, *ids)
        )
        found = {m.id: m for m in map(_row_to_memory, rows)}
        return [found[i] for i in dict.fromkeys(ids) if i in found]

    @staticmethod
    def _filters(
        project: str | None, tags: Sequence[str], include_expired: bool, now: datetime
    ) -> tuple[str, list[Any]]:
        sql, params = "", list[Any]()
        if project is not None:
            sql += " AND m.project = ?"
            params.append(project)
        if not include_expired:
            sql += " AND (m.expires_at IS NULL OR m.expires_at > ?)"
            params.append(format_time(now))
        for tag in tags:
            sql += " AND EXISTS (SELECT 1 FROM json_each(m.tags) WHERE json_each.value = ?)"
            params.append(tag)
        return sql, params

    def list_memories(
        self,
        tenant: str,
        *,
        project: str | None,
        tags: Sequence[str] = (),
        pinned_only: bool,
        include_expired: bool,
        now: datetime,
        limit: int,
        offset: int = 0,
    ) -> list[Memory]:
        where, params = self._filters(project, tags, include_expired, now)
        if pinned_only:
            where += " AND m.pinned = 1"
        rows = self.connection().execute(
            f"SELECT {_M_COLUMNS} FROM memories m WHERE m.tenant = ? AND m.deleted_at IS NULL{where}"
            " ORDER BY m.updated_at DESC, m.id DESC LIMIT ? OFFSET ?",
            (tenant, *params, limit, offset),
        )
        return [_row_to_memory(row) for row in rows]

    def stats(self, tenant: str, project: str | None, now: datetime) -> dict[str, Any]:
        conn = self.connection()
        scope, params = (
            ("tenant = ?", [tenant]) if project is None else ("tenant = ? AND project = ?", [tenant, project])
        )
        stamp = format_time(now)
        row = conn.execute(
            "SELECT"
            " SUM(deleted_at IS NULL AND (expires_at IS NULL OR expires_at > ?)),"
            " SUM(deleted_at IS NULL AND expires_at IS NOT NULL AND expires_at <= ?),"
            " SUM(deleted_at IS NOT NULL),"
            " SUM(deleted_at IS NULL AND pinned = 1),"
            " SUM(CASE WHEN deleted_at IS NULL THEN length(CAST(content AS BLOB)) ELSE 0 END),"
            " SUM(deleted_at IS NULL AND hit_count = 0)"
            f" FROM memories WHERE {scope}",
            (stamp, stamp, *params),
        ).fetchone()
        projects = dict(
            conn.execute(
                f"SELECT project, COUNT(*) FROM memories WHERE {scope} AND deleted_at IS NULL"
                " GROUP BY project ORDER BY project",
                params,
            ).fetchall()
        )
        kinds = dict(
            conn.execute(
                f"SELECT kind, COUNT(*) FROM memories WHERE {scope} AND deleted_at IS NULL GROUP BY kind ORDER BY kind",
                params,
            ).fetchall()
        )
        return {
            "memories": row[0] or 0,
            "expired": row[1] or 0,
            "deleted": row[2] or 0,
            "pinned": row[3] or 0,
            "content_bytes": row[4] or 0,
            "never_retrieved": row[5] or 0,
            "projects": projects,
            "kinds": kinds,
            "backend": self.backend,
            "database_bytes": self._file_size(),
        }

    def _file_size(self) -> int:
        return sum(os.path.getsize(p) for p in (self.path, f"{self.path}-wal") if os.path.exists(p))

    def index_agrees(self) -> bool:
        """True when the keyword index holds exactly the live memories (a consistency check)."""
        conn = self.connection()
        live = conn.execute("SELECT COUNT(*) FROM memories WHERE deleted_at IS NULL").fetchone()[0]
        indexed = conn.execute("SELECT COUNT(*) FROM memories_fts").fetchone()[0]
        orphans = conn.execute(
            "SELECT COUNT(*) FROM memories_fts f LEFT JOIN memories m ON m.rowid = f.rowid"
            " WHERE m.rowid IS NULL OR m.deleted_at IS NOT NULL"
        ).fetchone()[0]
        return bool(live == indexed and orphans == 0)
