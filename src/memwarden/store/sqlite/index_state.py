"""Small named values the store keeps about itself (the ``index_state`` table): the analyzer
that built the keyword index, and the markers of operations that have not finished
(``store/unfinished.py``), which every process using the file must see. Each write is its own
durable commit (the ``StateStore`` protocol)."""

from __future__ import annotations

import sqlite3

from memwarden.store.sqlite.database import SQLiteDatabase


def put_state(db: SQLiteDatabase, key: str, value: str) -> None:
    """Set one row, committed durably."""
    with db.write() as conn:
        conn.execute(
            "INSERT INTO index_state (key, value) VALUES (?, ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


def delete_state(db: SQLiteDatabase, key: str) -> None:
    with db.write() as conn:
        conn.execute("DELETE FROM index_state WHERE key = ?", (key,))


def states(conn: sqlite3.Connection, prefix: str) -> dict[str, str]:
    """The rows whose key starts with ``prefix``, by key."""
    rows = conn.execute(
        "SELECT key, value FROM index_state WHERE substr(key, 1, ?) = ? ORDER BY key",
        (len(prefix), prefix),
    ).fetchall()
    return {str(k): str(v) for k, v in rows}
