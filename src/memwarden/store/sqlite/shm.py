"""A WAL shared-memory file (``-shm``) deleted or replaced under open connections: noticed
before each use, and every connection of the process reopened once, safely.

SQLite connections in WAL mode map ``<database>-shm``, the index of the WAL. If that file is
deleted while memwarden holds the database open (a cleanup script, a user "fixing" a lock), a
process that opens the database afterwards creates a new one, and from then on the two disagree
about which pages are current: memwarden's connections read stale pages, fail with "file is not
a database", or commit over rows the other process wrote.

So each use of a connection first looks the ``-shm`` up again (one ``stat``, about a
microsecond). When it is gone or another file, nothing is read or written through the stale
view; instead, under one lock for the whole process (``ShmWatch.recover``):

1. a helper process opens the database and keeps it open (``_Guard``). It maps the current
   ``-shm`` (or makes one, rebuilt from the WAL, as any new process would) and holds SQLite's
   shared lock on the database file;
2. every connection this process has to the file is closed: those of every store and audit log
   (they register with the one ``ShmWatch`` of the file). Closing the last connection of a
   process normally checkpoints the WAL into the database using *its* index, the stale one,
   which would write wrong pages and delete the WAL; SQLite only does that when it can lock the
   database exclusively, and the helper's shared lock prevents it;
3. ``/proc/self/maps`` must then show no mapping of a ``-shm`` left (SQLite shares one
   mapping among all connections of a process to a file: a connection memwarden does not know
   of would keep the stale index alive, and new connections would join it). If one is left,
   reopening is unsafe: every use keeps failing with the cause and "restart";
4. the helper closes; connections are opened again on next use and see the current ``-shm``.

One reopen per incident: when the helper cannot read the database (the main file is damaged,
not the ``-shm``), or the stale mapping stays, the watch fails for good with one line naming the
cause, and health reports it. ``reopened`` lists what happened for health.
"""

from __future__ import annotations

# _thread (documented, low-level), not threading: the same lock and thread-local types without
# threading's module, which a cold search without the daemon would import only for this.
import _thread
import os
import sqlite3
import sys
import time
import weakref
from typing import Any, Protocol

from memwarden.errors import StorageError
from memwarden.logs import get_logger
from memwarden.models import format_time, utcnow

logger = get_logger(__name__)

# The helper: open the database, read it (SQLite then holds its shared lock and maps the -shm),
# say so, and keep it open until its stdin closes.
_GUARD = (
    "import sqlite3, sys\n"
    "try:\n"
    "    c = sqlite3.connect(sys.argv[1], timeout=30)\n"
    "    if not c.execute(\"SELECT count(*) FROM sqlite_master WHERE name = 'memories'\").fetchone()[0]:\n"
    "        print('error it holds no memwarden tables', flush=True); sys.exit(1)\n"
    "except sqlite3.Error as e:\n"
    "    print('error ' + str(e), flush=True); sys.exit(1)\n"
    "print('ready', flush=True)\n"
    "sys.stdin.read()\n"
)
GUARD_TIMEOUT_S = 60.0


class ConnectionOwner(Protocol):
    """A store or audit log holding connections to the database (``close_connections``
    closes them all; later uses open new ones)."""

    def close_connections(self) -> int: ...

    def open_connections(self) -> int: ...


def close_all(connections: list[sqlite3.Connection]) -> int:
    """Close every connection of an owner (best effort) and forget them; how many there were.
    The caller holds its lock. No checkpoint and no ``PRAGMA optimize``: after the ``-shm`` was
    replaced, those would write through the stale index."""
    closed = len(connections)
    for conn in connections:
        try:
            conn.close()
        except sqlite3.Error:  # pragma: no cover - closing is best effort
            pass
    connections.clear()
    return closed


def _hold(database: str) -> int | None:
    """An ``O_PATH`` descriptor of the ``-shm`` (None when there is none). Holding it keeps the
    file's inode number from being reused by a new ``-shm``, so a replacement is always seen; an
    ``O_PATH`` descriptor takes part in no locking, and closing it releases none of SQLite's."""
    try:
        return os.open(f"{database}-shm", os.O_PATH)
    except FileNotFoundError:
        return None


def shm_identity(database: str) -> tuple[int, int] | None:
    """(device, inode) of the database's ``-shm`` file; None when there is none."""
    try:
        info = os.stat(f"{database}-shm")
    except FileNotFoundError:
        return None
    return info.st_dev, info.st_ino


def shm_mappings(database: str) -> list[str]:
    """This process's mappings of ``<database>-shm`` (Linux ``/proc/self/maps``), each its path
    as the kernel shows it (``… (deleted)`` for a file deleted since it was mapped)."""
    name = f"{os.path.realpath(database)}-shm"
    found = []
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                parts = line.split(maxsplit=5)
                if len(parts) == 6 and parts[5].rstrip("\n").removesuffix(" (deleted)") == name:
                    found.append(parts[5].rstrip("\n"))
    except OSError:
        return []
    return found


class _Guard:
    """The helper process that holds the database open while this process closes its connections."""

    def __init__(self, database: str) -> None:
        import subprocess

        self.process = subprocess.Popen(
            [sys.executable, "-c", _GUARD, str(database)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def wait_ready(self) -> str | None:
        """None when the helper holds the database; else what it could not do."""
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()
        return None if line == "ready" else (line.removeprefix("error ") or "the helper process stopped")

    def close(self) -> None:
        import subprocess

        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=GUARD_TIMEOUT_S)
        except subprocess.TimeoutExpired:  # pragma: no cover - it only waits for its stdin
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


_WATCHES: dict[str, ShmWatch] = {}
_WATCHES_LOCK = _thread.allocate_lock()


def watch_for(database: str) -> ShmWatch:
    """The one watch of ``database`` in this process (stores and audit logs share it)."""
    key = os.path.realpath(database)
    with _WATCHES_LOCK:
        watch = _WATCHES.get(key)
        if watch is None:
            watch = _WATCHES[key] = ShmWatch(key)
        return watch


class ShmWatch:
    """The ``-shm`` identity this process's connections map, and the reopen when it changes."""

    def __init__(self, database: str) -> None:
        self.database = os.fspath(database)
        self._identity: tuple[int, int] | None = None
        # Held while connections are opened and while they are all reopened (see the docstring).
        self.lock = _thread.RLock()
        self._owners: weakref.WeakSet[Any] = weakref.WeakSet()
        self.failure: str | None = None
        self.reopened: list[dict[str, Any]] = []
        self._held: int | None = None

    def register(self, owner: ConnectionOwner) -> None:
        with self.lock:
            self._owners.add(owner)

    def opened(self) -> None:
        """A connection was just opened: remember the ``-shm`` the process maps (first one wins)."""
        with self.lock:
            if self._identity is None:
                self._remember()

    def _remember(self) -> None:
        self._forget()
        self._held = _hold(self.database)
        if self._held is not None:
            info = os.fstat(self._held)
            self._identity = (info.st_dev, info.st_ino)

    def _forget(self) -> None:
        if self._held is not None:
            os.close(self._held)
        self._held, self._identity = None, None

    def released(self) -> None:
        """A store or log closed its connections: when none is left open in this process, the
        next connection may find another ``-shm`` (SQLite removes it with the last close)."""
        with self.lock:
            if not any(owner.open_connections() for owner in list(self._owners)):
                self._forget()

    def _change(self) -> str | None:
        """``deleted`` or ``replaced`` when the -shm is not the one the connections map."""
        now = shm_identity(self.database)
        if self._identity is None:  # no -shm when the first connection opened: the first one seen
            with self.lock:
                if self._identity is None and now is not None:
                    self._remember()
            return None
        if now == self._identity:
            return None
        return "deleted" if now is None else "replaced"

    def problem(self) -> str | None:
        """Why this process's connections cannot be used (for health), or None."""
        if self.failure is not None:
            return self.failure
        change = self._change()
        if change is None:
            return None
        return (
            f"the WAL shared-memory file {self.database}-shm was {change} while memwarden had the database "
            "open (the database file itself is not damaged); the connections are reopened on next use"
        )

    def check(self) -> bool:
        """Before a connection is used: True when every connection was just reopened (the
        caller's connection is closed, open a new one); raises when they cannot be used."""
        if self.failure is not None:
            raise StorageError(self.failure)
        change = self._change()
        if change is None:
            return False
        self.recover(change)
        return True

    def recover(self, change: str) -> None:
        """Close every connection of this process to the database, safely (module docstring)."""
        with self.lock:
            if self.failure is not None:
                raise StorageError(self.failure)
            if self._change() is None:  # another thread reopened them meanwhile
                return
            started = time.perf_counter()
            guard = _Guard(self.database)
            try:
                unreadable = guard.wait_ready()
                if unreadable is not None:
                    self._fail(
                        f"the WAL shared-memory file {self.database}-shm was {change} while memwarden had the "
                        f"database open, and a fresh connection cannot read {self.database} either ({unreadable}): "
                        "the database file itself is damaged; restore a backup (`memwarden restore`)"
                    )
                closed = sum(owner.close_connections() for owner in list(self._owners))
                if shm_mappings(self.database):  # every managed connection is closed: none may be left
                    self._fail(
                        f"the WAL shared-memory file {self.database}-shm was {change} while memwarden had the "
                        "database open, and a connection memwarden does not manage still maps the old one, so "
                        "reopening is not safe (the database file itself is not damaged): restart every "
                        "memwarden process using it; until then this process refuses reads and writes"
                    )
                self._forget()  # the next connection opened records the current -shm
            finally:
                guard.close()
            event = {
                "at": format_time(utcnow()),
                "cause": f"shm_{change}",
                "connections_reopened": closed,
                "ms": round((time.perf_counter() - started) * 1000, 1),
            }
            self.reopened.append(event)
            logger.warning(
                "the WAL shared-memory file %s-shm was %s under this process: %d connections closed and "
                "reopened on next use (nothing read or written through the stale index)",
                self.database,
                change,
                closed,
            )

    def _fail(self, message: str) -> None:
        self.failure = message
        logger.error("%s", message)
        raise StorageError(message)

    def status(self) -> dict[str, Any] | None:
        """For health: None when nothing happened; else the state and what happened."""
        problem = self.problem()
        if problem is not None:
            state = "failed" if self.failure is not None else "shm_replaced"
            return {"ok": False, "state": state, "problem": problem, "reopened": self.reopened}
        if self.reopened:
            return {"ok": True, "state": "reopened", "reopened": self.reopened}
        return None
