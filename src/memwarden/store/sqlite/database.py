"""One SQLite file as the store uses it: a connection per thread and write transactions.

``SQLiteDatabase`` is the small state every SQL function of the store's concern modules is
given when it needs more than one connection: the file's path (for fault messages), this
thread's connection, and ``write()``, the one way a write transaction is opened. Connections
are per thread (reads never wait for each other); every write runs in ``BEGIN IMMEDIATE`` so
concurrent writers, in this process or others, queue on SQLite's own lock (``busy_timeout``)
instead of failing with "database is locked" half-way through a transaction.
"""

from __future__ import annotations

# _thread (documented, low-level), not threading: the same lock and thread-local types without
# threading's module, which a cold search without the daemon would import only for this.
import _thread
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from memwarden.store.sqlite.faults import SQLiteFault, describe_fault
from memwarden.store.sqlite.schema_version import SCHEMA_VERSION
from memwarden.store.sqlite.shm import close_all, watch_for
from memwarden.store.sqlite.statistics import settle as settle_statistics
from memwarden.store.sqlite.wal_mode import enable_wal

BUSY_TIMEOUT_MS = 60_000


class SQLiteDatabase:
    """The file, this process's connections to it (one per thread) and its write transactions.

    Registered with the file's ``-shm`` watch (``shm.py``) as an owner of connections, so a
    deleted or replaced ``-shm`` closes them all and each thread opens a new one on next use.
    """

    def __init__(self, path: str, synchronous: str) -> None:
        self.path = path
        self.synchronous = synchronous
        # The file holds every tenant's memories: its folder is created 0700 and the file 0600
        # whatever the umask of the process (a daemon or bundle started outside the CLI, which
        # sets 077); SQLite gives the -wal and -shm files the database's own mode.
        os.makedirs(os.path.dirname(self.path) or ".", mode=0o700, exist_ok=True)
        if not os.path.exists(self.path):
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
        self._local = _thread._local()
        # Every open connection of every thread, guarded by ``lock`` (which the store also
        # holds while it creates a vector index).
        self.connections: list[sqlite3.Connection] = []
        self.lock = _thread.allocate_lock()
        self.shm = watch_for(self.path)
        self.shm.register(self)

    def connection(self) -> sqlite3.Connection:
        """This thread's connection, opened on first use (and again after ``close_connections``)."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        # A deleted or replaced -shm closes every connection of the process first (shm.py).
        if conn is not None and not self.shm.check() and conn in self.connections:
            return conn
        with self.shm.lock:  # not while the connections are being reopened
            conn = self._open()
            self._local.conn = conn
            self.shm.opened()
            with self.lock:
                self.connections.append(conn)
        return conn

    def open_connections(self) -> int:
        return len(self.connections)

    def close_connections(self) -> int:
        """Close every connection without a checkpoint or ``PRAGMA optimize`` (the ``-shm``
        recovery); each thread opens a new one on its next use. How many."""
        with self.lock:
            return close_all(self.connections)

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
        with self.lock:
            for conn in self.connections:
                try:
                    if not conn.in_transaction:
                        conn.execute("PRAGMA optimize")  # what SQLite advises before closing
                        settle_statistics(conn)  # else the next close analyzes again (statistics.py)
                    conn.close()
                except sqlite3.Error:  # pragma: no cover - closing is best effort
                    pass
            self.connections.clear()
        self._local = _thread._local()
        self.shm.released()

    def file_bytes(self) -> int:
        """The size of the database and its WAL on disk."""
        return sum(os.path.getsize(p) for p in (self.path, f"{self.path}-wal") if os.path.exists(p))


def migrate_if_behind(conn: sqlite3.Connection) -> list[str]:
    """Apply pending schema migrations, the names of those applied; the migrations module (all
    the SQL) is imported only when the file's ``user_version`` is behind this code's."""
    if int(conn.execute("PRAGMA user_version").fetchone()[0]) >= SCHEMA_VERSION:
        return []
    from memwarden.store.sqlite import migrations

    return migrations.migrate(conn)
