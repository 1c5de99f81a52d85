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

from memwarden.store.sqlite import upgrade_steps

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
        """,
    )


def _audit_log(conn: sqlite3.Connection) -> None:
    """The hash-chained audit log (see ``memwarden.audit``), append-only by trigger.

    ``audit_head`` holds the newest (seq, hash) and may only move forward by one row; an
    INSERT into ``audit_log`` must continue the head; UPDATE is always refused and DELETE only
    for rows a prune checkpoint covers; ``audit_checkpoints`` is append-only and each one must
    name the hash of the row it ends at.
    """
    run_script(
        conn,
        f"""
        CREATE TABLE audit_log (
            seq INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            actor TEXT NOT NULL,
            tenant TEXT NOT NULL,
            project TEXT,
            action TEXT NOT NULL,
            outcome TEXT NOT NULL,
            memory_ids TEXT NOT NULL,
            result_count INTEGER NOT NULL,
            degraded INTEGER NOT NULL,
            redaction_count INTEGER NOT NULL,
            query_sha256 TEXT,
            query_len INTEGER,
            query_plain TEXT,
            detail TEXT NOT NULL,
            prev_hash TEXT NOT NULL,
            hash TEXT NOT NULL
        );
        CREATE INDEX audit_log_at ON audit_log(at);
        CREATE TABLE audit_head (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            seq INTEGER NOT NULL,
            hash TEXT NOT NULL
        );
        INSERT INTO audit_head(id, seq, hash) VALUES (1, 0, '{AUDIT_GENESIS}');
        CREATE TABLE audit_checkpoints (
            upto_seq INTEGER PRIMARY KEY,
            upto_hash TEXT NOT NULL,
            pruned_rows INTEGER NOT NULL,
            before TEXT NOT NULL,
            at TEXT NOT NULL
        );
        CREATE TRIGGER audit_log_chain BEFORE INSERT ON audit_log
        WHEN NEW.seq IS NOT (SELECT seq + 1 FROM audit_head WHERE id = 1)
          OR NEW.prev_hash IS NOT (SELECT hash FROM audit_head WHERE id = 1)
        BEGIN SELECT RAISE(ABORT, 'audit_log rows must continue the chain head'); END;
        CREATE TRIGGER audit_log_advance AFTER INSERT ON audit_log
        BEGIN UPDATE audit_head SET seq = NEW.seq, hash = NEW.hash WHERE id = 1; END;
        CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
        BEGIN SELECT RAISE(ABORT, 'audit_log is append-only: UPDATE refused'); END;
        CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
        WHEN OLD.seq > (SELECT COALESCE(MAX(upto_seq), 0) FROM audit_checkpoints)
        BEGIN SELECT RAISE(ABORT, 'audit_log is append-only: DELETE refused (use memwarden audit prune)'); END;
        CREATE TRIGGER audit_head_forward BEFORE UPDATE ON audit_head
        WHEN NEW.seq IS NOT OLD.seq + 1
          OR NEW.hash IS NOT (SELECT hash FROM audit_log WHERE seq = NEW.seq)
        BEGIN SELECT RAISE(ABORT, 'audit_head only moves forward with the chain'); END;
        CREATE TRIGGER audit_head_no_delete BEFORE DELETE ON audit_head
        BEGIN SELECT RAISE(ABORT, 'audit_head cannot be deleted'); END;
        CREATE TRIGGER audit_checkpoints_valid BEFORE INSERT ON audit_checkpoints
        WHEN NEW.upto_hash IS NOT (SELECT hash FROM audit_log WHERE seq = NEW.upto_seq)
          OR NEW.upto_seq <= (SELECT COALESCE(MAX(upto_seq), 0) FROM audit_checkpoints)
        BEGIN SELECT RAISE(ABORT, 'a prune checkpoint must name an existing row and its hash'); END;
        CREATE TRIGGER audit_checkpoints_no_update BEFORE UPDATE ON audit_checkpoints
        BEGIN SELECT RAISE(ABORT, 'audit_checkpoints is append-only: UPDATE refused'); END;
        CREATE TRIGGER audit_checkpoints_no_delete BEFORE DELETE ON audit_checkpoints
        BEGIN SELECT RAISE(ABORT, 'audit_checkpoints is append-only: DELETE refused'); END;
        """,
    )


def _analyzed_index(conn: sqlite3.Connection) -> None:
    """The keyword index holds analyzer output (space-separated terms) under a whitespace tokenizer.

    The new table starts empty and ``index_state`` has no analyzer fingerprint, so the store's
    ``ensure_index`` re-indexes every live memory with the configured analyzer on start-up
    (the analyzer depends on settings, which a migration step does not see).
    """
    from memwarden.store.sqlite.fts import FTS_TABLE_SQL

    run_script(
        conn,
        f"""
        DROP TABLE IF EXISTS memories_fts;
        {FTS_TABLE_SQL};
        CREATE TABLE index_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """,
    )


def _vectors(conn: sqlite3.Connection) -> None:
    """Vectors beside memories, each with its space (model id + dimension).

    ``seq`` grows with every write (AUTOINCREMENT never reuses a number), so an in-process
    index catches up with rows other processes wrote by reading ``seq > last seen``; removals
    bump ``vector_clock`` (a trigger), which tells the index to reload. A vector is dropped
    when its memory is deleted or its text, title or project changes: a stale vector would
    rank the old text; the backfill embeds the new one.
    """
    run_script(
        conn,
        """
        CREATE TABLE memory_vectors (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            memory_rowid INTEGER NOT NULL REFERENCES memories(rowid) ON DELETE CASCADE,
            model TEXT NOT NULL,
            dim INTEGER NOT NULL,
            vector BLOB NOT NULL,
            UNIQUE (memory_rowid, model, dim)
        );
        CREATE INDEX memory_vectors_space ON memory_vectors(model, dim, seq);
        CREATE TABLE vector_clock (id INTEGER PRIMARY KEY CHECK (id = 1), removals INTEGER NOT NULL);
        INSERT INTO vector_clock(id, removals) VALUES (1, 0);
        CREATE TRIGGER memory_vectors_removed AFTER DELETE ON memory_vectors BEGIN
            UPDATE vector_clock SET removals = removals + 1 WHERE id = 1;
        END;
        CREATE TRIGGER memories_drop_stale_vectors
            AFTER UPDATE OF deleted_at, content_hash, title, project ON memories
            WHEN NEW.deleted_at IS NOT NULL OR NEW.content_hash IS NOT OLD.content_hash
              OR NEW.title IS NOT OLD.title OR NEW.project IS NOT OLD.project
        BEGIN
            DELETE FROM memory_vectors WHERE memory_rowid = NEW.rowid;
        END;
        ALTER TABLE memories ADD COLUMN embedding_error TEXT;
        """,
    )


def _scoped_index(conn: sqlite3.Connection) -> None:
    """The keyword index gains a ``scope`` column (tenant+project token, see fts.py); it is
    rebuilt empty and the analyzer fingerprint is cleared, so ``ensure_index`` fills it again."""
    from memwarden.store.sqlite.fts import FTS_TABLE_SQL

    run_script(
        conn,
        f"""
        DROP TABLE IF EXISTS memories_fts;
        {FTS_TABLE_SQL};
        DELETE FROM index_state WHERE key = 'analyzer';
        """,
    )


# The hash a chain starts from (the ``prev_hash`` of row 1).
AUDIT_GENESIS = "0" * 64


def _injection_flags(conn: sqlite3.Connection) -> None:
    """Store why a memory reads like instructions to a model, and screen what is already there."""
    import json

    from memwarden.screening import screen_text

    conn.execute("ALTER TABLE memories ADD COLUMN injection_flags TEXT NOT NULL DEFAULT '[]'")
    for rowid, title, content in conn.execute("SELECT rowid, title, content FROM memories").fetchall():
        flags = screen_text(title, content)
        if flags:
            conn.execute(
                "UPDATE memories SET injection_flags = ? WHERE rowid = ?", (json.dumps(list(flags)), rowid)
            )


def _dashboard(conn: sqlite3.Connection) -> None:
    """Indexes for the dashboard's pages, and ``audit_daily``: audit rows counted per day,
    tenant, action, outcome and degrade reason, kept by a trigger as rows are appended (so the
    overview's charts read a few hundred rows, not the whole log). Pruning the log leaves the
    counts (they are statistics, not evidence)."""
    run_script(
        conn,
        """
        CREATE INDEX memories_created ON memories(tenant, created_at) WHERE deleted_at IS NULL;
        CREATE INDEX memories_kinds ON memories(tenant, project, kind) WHERE deleted_at IS NULL;
        CREATE INDEX memories_recalled ON memories(tenant, hit_count) WHERE deleted_at IS NULL AND hit_count > 0;
        CREATE INDEX memories_redacted ON memories(tenant) WHERE deleted_at IS NULL AND redactions != '[]';
        CREATE INDEX memories_flagged ON memories(tenant, updated_at)
            WHERE deleted_at IS NULL AND injection_flags != '[]';
        CREATE INDEX memories_pinned ON memories(tenant, updated_at) WHERE deleted_at IS NULL AND pinned = 1;
        CREATE INDEX audit_log_action ON audit_log(action, seq);
        CREATE INDEX audit_log_actor ON audit_log(actor, seq);
        CREATE INDEX audit_log_tenant ON audit_log(tenant, seq);
        CREATE TABLE audit_daily (
            day TEXT NOT NULL,
            tenant TEXT NOT NULL,
            action TEXT NOT NULL,
            outcome TEXT NOT NULL,
            degrade_reason TEXT NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY (day, tenant, action, outcome, degrade_reason)
        ) WITHOUT ROWID;
        INSERT INTO audit_daily
            SELECT substr(at, 1, 10), tenant, action, outcome,
                   CASE WHEN degraded = 0 THEN ''
                        WHEN json_valid(detail) THEN coalesce(json_extract(detail, '$.degrade_reason'), 'unknown')
                        ELSE 'unknown' END,
                   COUNT(*)
            FROM audit_log GROUP BY 1, 2, 3, 4, 5;
        CREATE TRIGGER audit_log_daily AFTER INSERT ON audit_log BEGIN
            INSERT INTO audit_daily (day, tenant, action, outcome, degrade_reason, n)
            VALUES (substr(NEW.at, 1, 10), NEW.tenant, NEW.action, NEW.outcome,
                    CASE WHEN NEW.degraded = 0 THEN ''
                         WHEN json_valid(NEW.detail)
                             THEN coalesce(json_extract(NEW.detail, '$.degrade_reason'), 'unknown')
                         ELSE 'unknown' END, 1)
            ON CONFLICT (day, tenant, action, outcome, degrade_reason) DO UPDATE SET n = n + 1;
        END;
        """,
    )


def _vector_removals(conn: sqlite3.Connection) -> None:
    """Removed vectors are logged one row each, so an index (in this process or another) applies
    exactly what changed since its watermark instead of re-reading every id of the space
    (issue 21: one delete at 1M made the next search read 1M ids under the index lock).

    ``vector_seq`` is the ``seq`` of the removed row: an index drops a slot only when it still
    holds that very vector; an edit logs its memory with ``vector_seq = 0`` too (even when it had
    no vector yet), which tells the embedding queue to embed it again.
    ``vector_clock.pruned_through`` says up to which removal the log was trimmed; an index whose watermark is older reloads the ids once. The partial index finds
    memories whose embedding failed without reading the table, and ``ANALYZE`` gives the planner
    statistics (the search-path queries are also written so that they never need them).
    """
    run_script(
        conn,
        """
        CREATE TABLE vector_removals (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            memory_rowid INTEGER NOT NULL,
            vector_seq INTEGER NOT NULL
        );
        ALTER TABLE vector_clock ADD COLUMN pruned_through INTEGER NOT NULL DEFAULT 0;
        DROP TRIGGER memory_vectors_removed;
        CREATE TRIGGER memory_vectors_removed AFTER DELETE ON memory_vectors BEGIN
            UPDATE vector_clock SET removals = removals + 1 WHERE id = 1;
            INSERT INTO vector_removals(memory_rowid, vector_seq) VALUES (OLD.memory_rowid, OLD.seq);
        END;
        DROP TRIGGER memories_drop_stale_vectors;
        CREATE TRIGGER memories_drop_stale_vectors
            AFTER UPDATE OF deleted_at, content_hash, title, project ON memories
            WHEN NEW.deleted_at IS NOT NULL OR NEW.content_hash IS NOT OLD.content_hash
              OR NEW.title IS NOT OLD.title OR NEW.project IS NOT OLD.project
        BEGIN
            DELETE FROM memory_vectors WHERE memory_rowid = NEW.rowid;
            INSERT INTO vector_removals(memory_rowid, vector_seq)
                SELECT NEW.rowid, 0 WHERE NEW.deleted_at IS NULL;
        END;
        CREATE INDEX memories_embedding_failed ON memories(embedding_error) WHERE embedding_error IS NOT NULL;
        PRAGMA analysis_limit = 1000;
        ANALYZE;
        """,
    )


def _memory_context(conn: sqlite3.Connection) -> None:
    """Memories gain ``context``, ``thread`` and ``occurred_at`` (the time of storing for rows
    already there); the keyword index gains a ``context`` column, so it is rebuilt empty and the
    analyzer fingerprint cleared (``ensure_index`` fills it again); a changed context drops the
    vector, which embeds it with the content."""
    from memwarden.store.sqlite.fts import FTS_TABLE_SQL

    run_script(
        conn,
        f"""
        ALTER TABLE memories ADD COLUMN context TEXT NOT NULL DEFAULT '';
        ALTER TABLE memories ADD COLUMN thread TEXT NOT NULL DEFAULT '';
        ALTER TABLE memories ADD COLUMN occurred_at TEXT;
        UPDATE memories SET occurred_at = created_at;
        CREATE INDEX memories_thread ON memories(tenant, thread, COALESCE(occurred_at, created_at))
            WHERE thread != '';
        CREATE TRIGGER memories_drop_vectors_on_context AFTER UPDATE OF context ON memories
            WHEN NEW.context IS NOT OLD.context
        BEGIN
            DELETE FROM memory_vectors WHERE memory_rowid = NEW.rowid;
            INSERT INTO vector_removals(memory_rowid, vector_seq)
                SELECT NEW.rowid, 0 WHERE NEW.deleted_at IS NULL;
        END;
        DROP TABLE IF EXISTS memories_fts;
        {FTS_TABLE_SQL};
        DELETE FROM index_state WHERE key = 'analyzer';
        """,
    )


def _reused_rowids(conn: sqlite3.Connection) -> None:
    """``memories.rowid`` has no AUTOINCREMENT, so after the newest memories are purged the next
    insert is given a rowid the embedding queue's watermark has already passed, and it would never
    be embedded. ``vector_clock.purged_high`` keeps the highest rowid ever removed from
    ``memories``; an insert at or below it is logged in ``vector_removals`` (``vector_seq = 0``:
    "embed it"), which the queue reads whatever its watermark."""
    run_script(
        conn,
        """
        ALTER TABLE vector_clock ADD COLUMN purged_high INTEGER NOT NULL DEFAULT 0;
        UPDATE vector_clock SET purged_high = (SELECT COALESCE(MAX(memory_rowid), 0) FROM vector_removals)
            WHERE id = 1;
        CREATE TRIGGER memories_purged AFTER DELETE ON memories BEGIN
            UPDATE vector_clock SET purged_high = max(purged_high, OLD.rowid) WHERE id = 1;
        END;
        CREATE TRIGGER memories_rowid_reused AFTER INSERT ON memories
            WHEN NEW.rowid <= (SELECT purged_high FROM vector_clock WHERE id = 1)
        BEGIN
            INSERT INTO vector_removals(memory_rowid, vector_seq) VALUES (NEW.rowid, 0);
        END;
        """,
    )


TAG_COLUMNS = "tenant, tag, updated_at, memory_id, project, kind, created_at, expires_at, pinned, flagged"
# The Monday of a memory's week (step back 6 days, then forward to a Monday), as text.
WEEK_OF = "date(substr({t}.created_at, 1, 10), '-6 days', 'weekday 1')"


def _browse_tables(conn: sqlite3.Connection) -> None:
    """Tables the dashboard reads instead of scanning memories, each kept by triggers on
    ``memories`` (so every write path, imports and purges included, keeps them exact):

    - ``memory_tags``: one row per tag of each live memory, keyed so one tag's memories come out
      most recently updated first (the memories table filtered by tag, keyset paged), with the
      memory's other filter columns beside it, so a tag's page and its count never read
      ``memories`` for rows that do not match;
    - ``memory_counts``: live memories per tenant, project and kind;
    - ``memory_weeks``: live memories per tenant, week created (its Monday) and project.

    The counts rows are updated in the writer's transaction; SQLite has one writer at a time,
    so they add no contention. The newest-first indexes gain ``id`` (the tie-break of keyset
    paging), ``expires_at`` and ``deleted_at`` (always NULL there, but SQLite only treats an index
    as covering when it lists every column the query names), so a page and its bounded count
    read no table rows to skip; ``ANALYZE`` gives the planner their statistics.
    """
    old_week, new_week, each_week = (WEEK_OF.format(t=t) for t in ("OLD", "NEW", "m"))
    untag = (
        "DELETE FROM memory_tags WHERE tenant = OLD.tenant AND tag IN (SELECT value FROM json_each(OLD.tags))"
        " AND updated_at = OLD.updated_at AND memory_id = OLD.id;"
    )
    tag = (
        f"INSERT OR IGNORE INTO memory_tags ({TAG_COLUMNS}) SELECT NEW.tenant, value, NEW.updated_at, NEW.id,"
        " NEW.project, NEW.kind, NEW.created_at, NEW.expires_at, NEW.pinned, NEW.injection_flags != '[]'"
        " FROM json_each(NEW.tags) WHERE NEW.deleted_at IS NULL;"
    )
    uncount = (
        "UPDATE memory_counts SET n = n - 1 WHERE OLD.deleted_at IS NULL"
        " AND tenant = OLD.tenant AND project = OLD.project AND kind = OLD.kind;"
        " UPDATE memory_weeks SET n = n - 1 WHERE OLD.deleted_at IS NULL"
        f" AND tenant = OLD.tenant AND week = {old_week} AND project = OLD.project;"
    )
    count = (
        "INSERT INTO memory_counts (tenant, project, kind, n)"
        " SELECT NEW.tenant, NEW.project, NEW.kind, 1 WHERE NEW.deleted_at IS NULL"
        " ON CONFLICT (tenant, project, kind) DO UPDATE SET n = n + 1;"
        " INSERT INTO memory_weeks (tenant, week, project, n)"
        f" SELECT NEW.tenant, {new_week}, NEW.project, 1 WHERE NEW.deleted_at IS NULL"
        " ON CONFLICT (tenant, week, project) DO UPDATE SET n = n + 1;"
    )
    run_script(
        conn,
        f"""
        CREATE TABLE memory_tags (
            tenant TEXT NOT NULL,
            tag TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            memory_id TEXT NOT NULL,
            project TEXT NOT NULL,
            kind TEXT NOT NULL,
            created_at TEXT NOT NULL,
            expires_at TEXT,
            pinned INTEGER NOT NULL,
            flagged INTEGER NOT NULL,
            PRIMARY KEY (tenant, tag, updated_at, memory_id)
        ) WITHOUT ROWID;
        INSERT OR IGNORE INTO memory_tags ({TAG_COLUMNS})
            SELECT m.tenant, j.value, m.updated_at, m.id, m.project, m.kind, m.created_at, m.expires_at,
                   m.pinned, m.injection_flags != '[]'
            FROM memories m, json_each(m.tags) j WHERE m.deleted_at IS NULL AND m.tags != '[]';
        CREATE TABLE memory_counts (
            tenant TEXT NOT NULL,
            project TEXT NOT NULL,
            kind TEXT NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY (tenant, project, kind)
        ) WITHOUT ROWID;
        INSERT INTO memory_counts (tenant, project, kind, n)
            SELECT tenant, project, kind, COUNT(*) FROM memories WHERE deleted_at IS NULL GROUP BY 1, 2, 3;
        CREATE TABLE memory_weeks (
            tenant TEXT NOT NULL,
            week TEXT NOT NULL,
            project TEXT NOT NULL,
            n INTEGER NOT NULL,
            PRIMARY KEY (tenant, week, project)
        ) WITHOUT ROWID;
        INSERT INTO memory_weeks (tenant, week, project, n)
            SELECT m.tenant, {each_week}, m.project, COUNT(*) FROM memories m
            WHERE m.deleted_at IS NULL GROUP BY 1, 2, 3;
        DROP INDEX memories_recent;
        CREATE INDEX memories_recent ON memories(tenant, updated_at, id, expires_at, deleted_at)
            WHERE deleted_at IS NULL;
        DROP INDEX memories_project;
        CREATE INDEX memories_project ON memories(tenant, project, updated_at, id, expires_at, deleted_at)
            WHERE deleted_at IS NULL;
        DROP INDEX memories_flagged;
        CREATE INDEX memories_flagged ON memories(tenant, updated_at, id)
            WHERE deleted_at IS NULL AND injection_flags != '[]';
        DROP INDEX memories_pinned;
        CREATE INDEX memories_pinned ON memories(tenant, updated_at, id) WHERE deleted_at IS NULL AND pinned = 1;
        CREATE TRIGGER memories_browse_insert AFTER INSERT ON memories WHEN NEW.deleted_at IS NULL
        BEGIN {tag} {count} END;
        CREATE TRIGGER memories_browse_tags AFTER UPDATE OF tenant, id, tags, updated_at, deleted_at, project, kind,
            created_at, expires_at, pinned, injection_flags ON memories
        BEGIN {untag} {tag} END;
        CREATE TRIGGER memories_browse_counts AFTER UPDATE OF tenant, project, kind, created_at, deleted_at ON memories
        BEGIN {uncount} {count} END;
        CREATE TRIGGER memories_browse_delete AFTER DELETE ON memories
        BEGIN {untag} {uncount} END;
        PRAGMA analysis_limit = 1000;
        ANALYZE;
        """,
    )


def _audit_memory_writes(conn: sqlite3.Connection) -> None:
    """``audit_memory_writes``: (memory id, seq) for every audit row that wrote a memory (the
    actions of ``audit.base.WRITE_ACTIONS``), kept by a trigger as rows are appended, so a
    memory's page lists what the audit log knows of its versions without scanning the log.
    The trigger reads ``memory_ids`` only when it is valid JSON: an append never fails on it."""
    from memwarden.audit.base import WRITE_ACTIONS

    actions = ", ".join(f"'{a}'" for a in WRITE_ACTIONS)
    run_script(
        conn,
        f"""
        CREATE TABLE audit_memory_writes (
            memory_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            PRIMARY KEY (memory_id, seq)
        ) WITHOUT ROWID;
        INSERT OR IGNORE INTO audit_memory_writes (memory_id, seq)
            SELECT j.value, a.seq FROM audit_log a, json_each(a.memory_ids) j
            WHERE a.action IN ({actions}) AND json_valid(a.memory_ids) AND j.type = 'text';
        CREATE TRIGGER audit_log_memory_writes AFTER INSERT ON audit_log
            WHEN NEW.action IN ({actions}) AND json_valid(NEW.memory_ids)
        BEGIN
            INSERT OR IGNORE INTO audit_memory_writes (memory_id, seq)
                SELECT value, NEW.seq FROM json_each(NEW.memory_ids) WHERE type = 'text';
        END;
        """,
    )


MIGRATIONS: list[tuple[str, Step]] = [
    ("0001_initial", _initial),
    ("0002_audit_log", _audit_log),
    ("0003_injection_flags", _injection_flags),
    ("0004_analyzed_index", _analyzed_index),
    ("0005_vectors", _vectors),
    ("0006_scoped_index", _scoped_index),
    ("0007_dashboard", _dashboard),
    ("0008_vector_removals", _vector_removals),
    ("0009_memory_context", _memory_context),
    ("0010_reused_rowids", _reused_rowids),
    ("0011_browse_tables", _browse_tables),
    ("0012_audit_memory_writes", _audit_memory_writes),
    ("0013_provenance", upgrade_steps.provenance),
    ("0014_safe_identifiers", upgrade_steps.safe_identifiers),
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
