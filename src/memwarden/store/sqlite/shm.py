"""Noticing a WAL shared-memory file (``-shm``) that was deleted or replaced under open connections.

SQLite connections in WAL mode map ``<database>-shm``, the index of the WAL. If that file is
deleted while memwarden holds the database open (a cleanup script, a user "fixing" a lock), a
process that opens the database afterwards creates a new one, and from then on the two disagree
about which pages are current: memwarden's connections read stale pages, fail with "file is not
a database", or (worst, measured here) commit over rows the other process wrote, and closing
them can check the WAL in with the stale index and delete the other process's writes. Reopening
does not help inside one process: SQLite shares one mapping among all connections of a process
to a file, and closing the last of them is that destructive checkpoint.

So memwarden refuses instead: each connection remembers the (device, inode) of the ``-shm`` it
opened with; before a connection is handed out the file is looked up again (one ``stat``, about a
microsecond), and when it is gone or another file, every read and write fails with one line
naming the real cause and the fix (restart memwarden), and health reports it, instead of a
misleading "file is not a database" or silently lost rows.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from memwarden.errors import StorageError


def shm_identity(database: Path) -> tuple[int, int] | None:
    """(device, inode) of the database's ``-shm`` file; None when there is none."""
    try:
        info = os.stat(f"{database}-shm")
    except FileNotFoundError:
        return None
    return info.st_dev, info.st_ino


class ShmWatch:
    """The ``-shm`` identity this process's connections were opened with."""

    def __init__(self, database: Path) -> None:
        self.database = Path(database)
        self._identity: tuple[int, int] | None = None
        self._lock = threading.Lock()

    def opened(self) -> None:
        """A connection was just opened: remember the ``-shm`` the process maps (first one wins)."""
        with self._lock:
            if self._identity is None:
                self._identity = shm_identity(self.database)

    def problem(self) -> str | None:
        """What happened to the ``-shm``, or None when it is the one the connections map."""
        now = shm_identity(self.database)
        if self._identity is None:  # no -shm when the first connection opened: the first one seen
            with self._lock:
                self._identity = self._identity or now
            return None
        if now == self._identity:
            return None
        return (
            f"the WAL shared-memory file {self.database}-shm was {'deleted' if now is None else 'replaced'} "
            "while memwarden had the database open (the database file itself is not damaged): restart "
            "every memwarden process using it; until then this process refuses reads and writes, so "
            "that nothing another process wrote is overwritten"
        )

    def check(self) -> None:
        problem = self.problem()
        if problem is not None:
            raise StorageError(problem)
