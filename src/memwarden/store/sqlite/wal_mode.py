"""Switch a connection to WAL even while other processes open the same new file.

``PRAGMA journal_mode = WAL`` on a database still in rollback mode needs an exclusive lock, and
SQLite answers SQLITE_BUSY at once instead of calling the busy handler when another connection
holds a lock at that moment. Six processes opening one brand-new database together (six
``memwarden add`` in a fresh folder) then fail one of them with "database is locked" although
``busy_timeout`` is set. Once the file is in WAL mode the pragma takes no lock, so retrying the
switch for as long as the busy timeout would have waited is enough.
"""

from __future__ import annotations

import sqlite3
import time


def enable_wal(conn: sqlite3.Connection, timeout_s: float) -> None:
    """Put ``conn``'s database in WAL mode, waiting up to ``timeout_s`` for other openers."""
    deadline = time.monotonic() + timeout_s
    pause = 0.002
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            if ("locked" not in str(exc) and "busy" not in str(exc)) or time.monotonic() >= deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.05)
