"""Versioned schema migrations for the SQLite backend.

Each step is a named, ordered function run inside one ``BEGIN IMMEDIATE`` transaction and
recorded in ``schema_migrations``; ``PRAGMA user_version`` mirrors the newest step so a reader can
tell the schema version without a query. Several processes may open a fresh file at once: the
version is re-read inside the write lock, so each step runs exactly once.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime

Step = Callable[[sqlite3.Connection], None]


def run_script(conn: sqlite3.Connection, script: str) -> None:
    """Run SQL statements one by one inside the caller's transaction.

    ``executescript`` would COMMIT the open transaction first, breaking the step's atomicity.
    """
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            conn.execute(statement)
            statement = ""
    if statement.strip():
        conn.execute(statement)


def _initial(conn: sqlite3.Connection) -> None:
    run_script(
        conn,
        """
        CREATE TABLE memories (
            rowid INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            tenant TEXT NOT NULL,
            project TEXT NOT NULL,
            kind TEXT NOT NULL,
            title TEXT NOT NULL DEFAULT '',
            tags TEXT NOT NULL DEFAULT '[]',
            content TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            pinned INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            expires_at TEXT,
            deleted_at TEXT,
            version INTEGER NOT NULL DEFAULT 1,
            hit_count INTEGER NOT NULL DEFAULT 0,
            last_used_at TEXT,
            redactions TEXT NOT NULL DEFAULT '[]'
        );
        CREATE UNIQUE INDEX memories_dedup ON memories(tenant, project, content_hash)
            WHERE deleted_at IS NULL;
        CREATE INDEX memories_recent ON memories(tenant, updated_at) WHERE deleted_at IS NULL;
        CREATE INDEX memories_project ON memories(tenant, project, updated_at) WHERE deleted_at IS NULL;
        CREATE VIRTUAL TABLE memories_fts USING fts5(
            title, tags, body, tokenize = 'unicode61 remove_diacritics 0'
        );
        """
    )


MIGRATIONS: list[tuple[str, Step]] = [
    ("0001_initial", _initial),
]


def current_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate(conn: sqlite3.Connection, migrations: list[tuple[str, Step]] | None = None) -> list[str]:
    """Apply pending steps; returns the names applied (empty when up to date)."""
    steps = MIGRATIONS if migrations is None else migrations
    if current_version(conn) >= len(steps):
        return []
    applied: list[str] = []
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
        )
        version = current_version(conn)
        for number, (name, step) in enumerate(steps, start=1):
            if number <= version:
                continue
            step(conn)
            conn.execute(
                "INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)",
                (number, name, datetime.now(UTC).isoformat()),
            )
            conn.execute(f"PRAGMA user_version = {number}")
            applied.append(name)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return applied


def pending(conn: sqlite3.Connection) -> list[str]:
    version = current_version(conn)
    return [name for number, (name, _) in enumerate(MIGRATIONS, start=1) if number > version]
