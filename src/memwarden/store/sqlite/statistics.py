"""Planner statistics for the indexes ``ANALYZE`` leaves out.

``ANALYZE`` writes no ``sqlite_stat1`` row for an empty index, and a new database's partial
indexes are empty until something needs them (pinned, redacted, flagged memories, failed
embeddings, threads). SQLite's ``PRAGMA optimize`` analyzes again any table one of whose
indexes lacks statistics, once its queries used them; so every connection that closed after a
search (which asks the thread index) re-ran ``ANALYZE memories``: a write, and a measurable share
of each cold ``memwarden search`` and prompt hook (docs/performance.md#storage).

``settle`` gives each such index the row of a one-entry index (the smallest count the planner
reads, and what a partial index filtered to nothing is): its queries (``pinned = 1``, a thread's
neighbours) keep choosing it, as they would on real counts. The next ``ANALYZE`` (``PRAGMA
optimize`` runs one when a table has grown 25 times) replaces the table's rows with real counts
and the empty indexes are settled again.
"""

from __future__ import annotations

import sqlite3

# Indexes of the tables ANALYZE covered that have no row of their own.
UNSETTLED = (
    "SELECT i.tbl_name, i.name FROM sqlite_master i"
    " WHERE i.type = 'index' AND i.tbl_name IN (SELECT tbl FROM sqlite_stat1)"
    " AND i.name NOT IN (SELECT idx FROM sqlite_stat1 WHERE idx IS NOT NULL)"
)


def settle(conn: sqlite3.Connection) -> int:
    """Write the missing rows (outside a transaction: each is its own); how many were missing."""
    try:
        missing = conn.execute(UNSETTLED).fetchall()
    except sqlite3.OperationalError:  # no sqlite_stat1 yet: nothing was ever analyzed
        return 0
    for table, index in missing:
        columns = len(conn.execute("SELECT name FROM pragma_index_info(?)", (index,)).fetchall())
        conn.execute(
            "INSERT INTO sqlite_stat1(tbl, idx, stat) VALUES (?, ?, ?)",
            (table, index, " ".join(["1"] * (columns + 1))),
        )
    return len(missing)
