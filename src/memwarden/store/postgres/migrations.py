"""Versioned schema migrations for the PostgreSQL backend.

Each step is a named, ordered SQL script recorded in ``schema_migrations``. All pending steps
run in one transaction under a transaction-level advisory lock, so several replicas starting
against a fresh database at once apply each step exactly once (the others wait, then find the
schema current). PostgreSQL DDL is transactional: a failing step leaves nothing behind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import psycopg

# Any constant works; it only has to be the same in every replica ("memw" in ASCII).
MIGRATION_LOCK = 0x6D656D77

INITIAL = """
CREATE TABLE memories (
    id TEXT PRIMARY KEY,
    tenant TEXT NOT NULL,
    project TEXT NOT NULL,
    kind TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    tags TEXT[] NOT NULL DEFAULT '{}',
    content TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    pinned BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ,
    deleted_at TIMESTAMPTZ,
    version INTEGER NOT NULL DEFAULT 1,
    hit_count INTEGER NOT NULL DEFAULT 0,
    last_used_at TIMESTAMPTZ,
    redactions TEXT[] NOT NULL DEFAULT '{}',
    search TSVECTOR
);
-- Exact dedup: one live memory per tenant+project+content. Writers race through
-- INSERT ... ON CONFLICT on this index, so two replicas adding the same fact store it once.
CREATE UNIQUE INDEX memories_dedup ON memories (tenant, project, content_hash) WHERE deleted_at IS NULL;
CREATE INDEX memories_recent ON memories (tenant, updated_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX memories_project ON memories (tenant, project, updated_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX memories_search ON memories USING gin (search) WHERE deleted_at IS NULL;
"""

MIGRATIONS: list[tuple[str, str]] = [
    ("0001_initial", INITIAL),
]


def ensure_tables(conn: psycopg.Connection) -> None:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
    )


def current_version(conn: psycopg.Connection) -> int:
    row = conn.execute(
        "SELECT COALESCE(MAX(version), 0) FROM schema_migrations"
        if _has_table(conn)
        else "SELECT 0"
    ).fetchone()
    return int(row[0]) if row else 0


def _has_table(conn: psycopg.Connection) -> bool:
    row = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
    return bool(row and row[0])


def migrate(conn: psycopg.Connection, migrations: list[tuple[str, str]] | None = None) -> list[str]:
    """Apply pending steps on ``conn`` (an autocommit connection); returns the names applied."""
    steps = MIGRATIONS if migrations is None else migrations
    if current_version(conn) >= len(steps):
        return []
    applied: list[str] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        ensure_tables(conn)
        version = current_version(conn)
        for number, (name, script) in enumerate(steps, start=1):
            if number <= version:
                continue
            conn.execute(script)  # type: ignore[arg-type]
            conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (number, name))
            applied.append(name)
    return applied


def pending(conn: psycopg.Connection) -> list[str]:
    version = current_version(conn)
    return [name for number, (name, _) in enumerate(MIGRATIONS, start=1) if number > version]
