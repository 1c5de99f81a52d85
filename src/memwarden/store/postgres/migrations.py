"""Versioned schema migrations for the PostgreSQL backend.

Each step is a named, ordered SQL script recorded in ``schema_migrations``. All pending steps
run in one transaction under a transaction-level advisory lock, so several replicas starting
against a fresh database at once apply each step exactly once (the others wait, then find the
schema current). PostgreSQL DDL is transactional: a failing step leaves nothing behind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from memwarden.audit.base import WRITE_ACTIONS

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

# The hash-chained audit log (see ``memwarden.audit``), append-only by trigger, as on SQLite.
# Columns keep SQLite's types (times and JSON as text, flags as integers) so a row reads back
# as the same Python values on both backends: its hash verifies anywhere, and migrate copies
# the chain verbatim. ``audit_head`` is the newest (seq, hash) and only moves forward; an INSERT
# must continue it; UPDATE and TRUNCATE are refused; DELETE only for rows a prune checkpoint
# covers. Appenders in every replica serialize on the head row's lock.
AUDIT_LOG = """
CREATE TABLE audit_log (
    seq BIGINT PRIMARY KEY,
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
CREATE INDEX audit_log_at ON audit_log (at);
CREATE TABLE audit_head (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    seq BIGINT NOT NULL,
    hash TEXT NOT NULL
);
INSERT INTO audit_head (id, seq, hash) VALUES (1, 0, '0000000000000000000000000000000000000000000000000000000000000000');
CREATE TABLE audit_checkpoints (
    upto_seq BIGINT PRIMARY KEY,
    upto_hash TEXT NOT NULL,
    pruned_rows BIGINT NOT NULL,
    before TEXT NOT NULL,
    at TEXT NOT NULL
);

CREATE FUNCTION audit_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'integrity_constraint_violation';
END $$;

CREATE FUNCTION audit_log_chain() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE head audit_head%ROWTYPE;
BEGIN
    SELECT * INTO head FROM audit_head WHERE id = 1 FOR UPDATE;
    IF NEW.seq IS DISTINCT FROM head.seq + 1 OR NEW.prev_hash IS DISTINCT FROM head.hash THEN
        RAISE EXCEPTION 'audit_log rows must continue the chain head' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE FUNCTION audit_log_advance() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE audit_head SET seq = NEW.seq, hash = NEW.hash WHERE id = 1;
    RETURN NULL;
END $$;

CREATE FUNCTION audit_log_delete_pruned_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.seq > (SELECT COALESCE(MAX(upto_seq), 0) FROM audit_checkpoints) THEN
        RAISE EXCEPTION 'audit_log is append-only: DELETE refused (use memwarden audit prune)'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN OLD;
END $$;

CREATE FUNCTION audit_head_forward() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.id IS DISTINCT FROM OLD.id OR NEW.seq IS DISTINCT FROM OLD.seq + 1
       OR NEW.hash IS DISTINCT FROM (SELECT hash FROM audit_log WHERE seq = NEW.seq) THEN
        RAISE EXCEPTION 'audit_head only moves forward with the chain' USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE FUNCTION audit_checkpoint_valid() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.upto_hash IS DISTINCT FROM (SELECT hash FROM audit_log WHERE seq = NEW.upto_seq)
       OR NEW.upto_seq <= (SELECT COALESCE(MAX(upto_seq), 0) FROM audit_checkpoints) THEN
        RAISE EXCEPTION 'a prune checkpoint must name an existing row and its hash'
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE TRIGGER audit_log_chain BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_chain();
CREATE TRIGGER audit_log_advance AFTER INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_advance();
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_refuse();
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log FOR EACH ROW
    EXECUTE FUNCTION audit_log_delete_pruned_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse();
CREATE TRIGGER audit_head_forward BEFORE UPDATE ON audit_head FOR EACH ROW EXECUTE FUNCTION audit_head_forward();
CREATE TRIGGER audit_head_no_delete BEFORE DELETE ON audit_head FOR EACH ROW EXECUTE FUNCTION audit_refuse();
CREATE TRIGGER audit_head_no_truncate BEFORE TRUNCATE ON audit_head FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse();
CREATE TRIGGER audit_checkpoints_valid BEFORE INSERT ON audit_checkpoints FOR EACH ROW
    EXECUTE FUNCTION audit_checkpoint_valid();
CREATE TRIGGER audit_checkpoints_no_update BEFORE UPDATE ON audit_checkpoints FOR EACH ROW
    EXECUTE FUNCTION audit_refuse();
CREATE TRIGGER audit_checkpoints_no_delete BEFORE DELETE ON audit_checkpoints FOR EACH ROW
    EXECUTE FUNCTION audit_refuse();
CREATE TRIGGER audit_checkpoints_no_truncate BEFORE TRUNCATE ON audit_checkpoints FOR EACH STATEMENT
    EXECUTE FUNCTION audit_refuse();
"""

# Why a memory reads like instructions to a model (memwarden.screening); the service computes it.
INJECTION_FLAGS = "ALTER TABLE memories ADD COLUMN injection_flags TEXT[] NOT NULL DEFAULT '{}'"

# Which analyzer (version and languages) wrote the ``search`` column; see PostgresStore.ensure_index.
INDEX_STATE = "CREATE TABLE index_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);"

# Vectors beside memories, each with its space (model id + dimension), in pgvector's untyped
# ``vector`` column so several spaces can live in one table. HNSW indexes are per space (a
# partial expression index cast to the space's dimension), created when a space is first used:
# see ``store/postgres/vectors.py``. A vector is dropped when its memory is deleted or its text,
# title or project changes (a stale vector would rank the old text); the backfill embeds the new.
VECTORS = """
CREATE EXTENSION IF NOT EXISTS vector;
ALTER TABLE memories ADD COLUMN embedding_error TEXT;
CREATE TABLE memory_vectors (
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    dim INTEGER NOT NULL,
    embedding vector NOT NULL,
    PRIMARY KEY (memory_id, model, dim)
);
CREATE INDEX memory_vectors_space ON memory_vectors (model, dim);
CREATE FUNCTION memories_drop_stale_vectors() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM memory_vectors WHERE memory_id = NEW.id;
    RETURN NULL;
END $$;
CREATE TRIGGER memories_drop_stale_vectors AFTER UPDATE OF deleted_at, content_hash, title, project ON memories
    FOR EACH ROW WHEN ((NEW.deleted_at IS NOT NULL AND OLD.deleted_at IS NULL)
        OR NEW.content_hash IS DISTINCT FROM OLD.content_hash OR NEW.title IS DISTINCT FROM OLD.title
        OR NEW.project IS DISTINCT FROM OLD.project)
    EXECUTE FUNCTION memories_drop_stale_vectors();
"""

# The dashboard's indexes, and ``audit_daily``: audit rows counted per day, tenant, action,
# outcome and degrade reason, kept by a trigger as rows are appended (the overview's charts read
# a few hundred rows, not the whole log). A prune leaves the counts: statistics, not evidence.
# ``audit_degrade_reason`` never raises, so a malformed ``detail`` cannot block an append.
DASHBOARD = """
CREATE INDEX memories_created ON memories (tenant, created_at) WHERE deleted_at IS NULL;
CREATE INDEX memories_kinds ON memories (tenant, project, kind) WHERE deleted_at IS NULL;
CREATE INDEX memories_recalled ON memories (tenant, hit_count DESC, id) WHERE deleted_at IS NULL AND hit_count > 0;
CREATE INDEX memories_redacted ON memories (tenant) WHERE deleted_at IS NULL AND cardinality(redactions) > 0;
CREATE INDEX memories_flagged ON memories (tenant, updated_at DESC, id DESC)
    WHERE deleted_at IS NULL AND cardinality(injection_flags) > 0;
CREATE INDEX memories_pinned ON memories (tenant, updated_at DESC, id DESC) WHERE deleted_at IS NULL AND pinned;
CREATE INDEX audit_log_action ON audit_log (action, seq);
CREATE INDEX audit_log_actor ON audit_log (actor, seq);
CREATE INDEX audit_log_tenant ON audit_log (tenant, seq);
CREATE TABLE audit_daily (
    day TEXT NOT NULL,
    tenant TEXT NOT NULL,
    action TEXT NOT NULL,
    outcome TEXT NOT NULL,
    degrade_reason TEXT NOT NULL,
    n BIGINT NOT NULL,
    PRIMARY KEY (day, tenant, action, outcome, degrade_reason)
);
CREATE FUNCTION audit_degrade_reason(degraded INTEGER, detail TEXT) RETURNS TEXT LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    IF degraded = 0 THEN
        RETURN '';
    END IF;
    RETURN coalesce((detail::jsonb) ->> 'degrade_reason', 'unknown');
EXCEPTION WHEN others THEN
    RETURN 'unknown';
END $$;
INSERT INTO audit_daily
    SELECT substr(at, 1, 10), tenant, action, outcome, audit_degrade_reason(degraded, detail), COUNT(*)
    FROM audit_log GROUP BY 1, 2, 3, 4, 5;
CREATE FUNCTION audit_daily_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO audit_daily (day, tenant, action, outcome, degrade_reason, n)
    VALUES (substr(NEW.at, 1, 10), NEW.tenant, NEW.action, NEW.outcome,
            audit_degrade_reason(NEW.degraded, NEW.detail), 1)
    ON CONFLICT (day, tenant, action, outcome, degrade_reason) DO UPDATE SET n = audit_daily.n + 1;
    RETURN NULL;
END $$;
CREATE TRIGGER audit_log_daily AFTER INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_daily_count();
"""

# Memories gain context, thread and occurred_at (the time of storing for rows already there); a
# changed context drops the vector (it is embedded with the content). The analyzer fingerprint
# is cleared so ensure_index rewrites every ``search`` tsvector with the context terms (weight D).
MEMORY_CONTEXT = """
ALTER TABLE memories ADD COLUMN context TEXT NOT NULL DEFAULT '';
ALTER TABLE memories ADD COLUMN thread TEXT NOT NULL DEFAULT '';
ALTER TABLE memories ADD COLUMN occurred_at TIMESTAMPTZ;
UPDATE memories SET occurred_at = created_at;
CREATE INDEX memories_thread ON memories (tenant, thread, COALESCE(occurred_at, created_at), created_at, id)
    WHERE thread <> '';
CREATE TRIGGER memories_drop_vectors_on_context AFTER UPDATE OF context ON memories
    FOR EACH ROW WHEN (NEW.context IS DISTINCT FROM OLD.context)
    EXECUTE FUNCTION memories_drop_stale_vectors();
DELETE FROM index_state WHERE key = 'analyzer';
"""

# ``memory_tags``: one row per tag of each live memory with the memory's other filter columns,
# keyed so one tag's memories come out most recently updated first: the dashboard's table
# filtered by tag reads a range of it (keyset paged) and its count never reads ``memories``.
# Kept by a trigger on every write (imports, purges and migrations included). The week chart's
# index holds the project too, so the overview's per-week counts can be read from the index alone.
BROWSE_TAGS = """
CREATE TABLE memory_tags (
    tenant TEXT NOT NULL,
    tag TEXT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    memory_id TEXT NOT NULL,
    project TEXT NOT NULL,
    kind TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    expires_at TIMESTAMPTZ,
    pinned BOOLEAN NOT NULL,
    flagged BOOLEAN NOT NULL,
    PRIMARY KEY (tenant, tag, updated_at, memory_id)
);
INSERT INTO memory_tags
    SELECT DISTINCT m.tenant, t.tag, m.updated_at, m.id, m.project, m.kind, m.created_at, m.expires_at,
           m.pinned, cardinality(m.injection_flags) > 0
    FROM memories m, unnest(m.tags) AS t(tag) WHERE m.deleted_at IS NULL;
CREATE FUNCTION memory_tags_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        IF OLD.deleted_at IS NULL AND cardinality(OLD.tags) > 0 THEN
            DELETE FROM memory_tags WHERE tenant = OLD.tenant AND tag = ANY (OLD.tags)
                AND updated_at = OLD.updated_at AND memory_id = OLD.id;
        END IF;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        IF NEW.deleted_at IS NULL AND cardinality(NEW.tags) > 0 THEN
            INSERT INTO memory_tags
                SELECT DISTINCT NEW.tenant, t.tag, NEW.updated_at, NEW.id, NEW.project, NEW.kind, NEW.created_at,
                       NEW.expires_at, NEW.pinned, cardinality(NEW.injection_flags) > 0
                FROM unnest(NEW.tags) AS t(tag)
            ON CONFLICT DO NOTHING;
        END IF;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER memory_tags_insert_delete AFTER INSERT OR DELETE ON memories
    FOR EACH ROW EXECUTE FUNCTION memory_tags_sync();
CREATE TRIGGER memory_tags_update AFTER UPDATE OF tenant, id, tags, updated_at, deleted_at, project, kind,
    created_at, expires_at, pinned, injection_flags ON memories
    FOR EACH ROW EXECUTE FUNCTION memory_tags_sync();
CREATE INDEX memories_created_project ON memories (tenant, created_at) INCLUDE (project) WHERE deleted_at IS NULL;
DROP INDEX memories_created;
"""

# ``audit_memory_writes``: (memory id, seq) of every audit row that wrote a memory (the actions
# of ``audit.base.WRITE_ACTIONS``), kept by a trigger on append, so a memory's page lists what
# the log knows of its versions by an index. A malformed ``memory_ids`` never blocks an append.
_WRITES = ", ".join(f"'{a}'" for a in WRITE_ACTIONS)
AUDIT_MEMORY_WRITES = f"""
CREATE TABLE audit_memory_writes (
    memory_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    PRIMARY KEY (memory_id, seq)
);
CREATE FUNCTION audit_memory_ids(ids TEXT) RETURNS SETOF TEXT LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
    RETURN QUERY SELECT jsonb_array_elements_text(ids::jsonb);
EXCEPTION WHEN others THEN
    RETURN;
END $$;
INSERT INTO audit_memory_writes
    SELECT DISTINCT audit_memory_ids(memory_ids), seq FROM audit_log
    WHERE action IN ({_WRITES});
CREATE FUNCTION audit_memory_writes_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO audit_memory_writes SELECT DISTINCT audit_memory_ids(NEW.memory_ids), NEW.seq
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
CREATE TRIGGER audit_log_memory_writes AFTER INSERT ON audit_log FOR EACH ROW
    WHEN (NEW.action IN ({_WRITES}))
    EXECUTE FUNCTION audit_memory_writes_add();
"""

# ``embedding_pending``: the background embedder's queue after its first pass over the table. A
# row is written in the same transaction as every memory that needs a (new) vector: an insert, a
# change of what is embedded (content, title, project; the same condition that drops its stale
# vectors), an undelete. The embedder reads the head of the queue and removes the rows whose
# memory needs nothing (embedded, deleted, failed), so a pass costs what is queued, not the
# table. No watermark: rows committed out of order are still read. Failed embeddings are found
# by a partial index.
EMBEDDING_PENDING = """
CREATE TABLE embedding_pending (
    seq BIGSERIAL PRIMARY KEY,
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE
);
CREATE INDEX embedding_pending_memory ON embedding_pending (memory_id);
CREATE FUNCTION memories_queue_embedding() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO embedding_pending (memory_id) VALUES (NEW.id);
    RETURN NULL;
END $$;
CREATE TRIGGER memories_queue_embedding_insert AFTER INSERT ON memories
    FOR EACH ROW WHEN (NEW.deleted_at IS NULL)
    EXECUTE FUNCTION memories_queue_embedding();
CREATE TRIGGER memories_queue_embedding_update AFTER UPDATE OF deleted_at, content_hash, title, project ON memories
    FOR EACH ROW WHEN (NEW.deleted_at IS NULL AND (OLD.deleted_at IS NOT NULL
        OR NEW.content_hash IS DISTINCT FROM OLD.content_hash OR NEW.title IS DISTINCT FROM OLD.title
        OR NEW.project IS DISTINCT FROM OLD.project))
    EXECUTE FUNCTION memories_queue_embedding();
CREATE INDEX memories_failed_embeddings ON memories (created_at, id)
    WHERE embedding_error IS NOT NULL AND deleted_at IS NULL;
"""

# A BRIN index on ``updated_at``: a few hundred bytes per 16 table pages (their oldest and newest
# ``updated_at``), so a keyword search reading common words through the GIN index can keep only
# the matches on pages of its recent window (``BitmapAnd``; see store/postgres/keyword_plan.py)
# instead of reading every match from the table. Memories are stored in time order, so the pages
# of a window are few; an update moves a row to any page with room, widening that page's range
# (the index then keeps more pages, never fewer). New pages are summarized by autovacuum.
RECENCY_BRIN = """
CREATE INDEX memories_updated_brin ON memories USING brin (updated_at)
    WITH (pages_per_range = 16, autosummarize = on);
"""

# Memories gain ``source`` (the route that wrote them) and ``actor``. Rows already stored get what
# the database can vouch for: the first ``add`` or ``import`` audit row naming the memory gives the
# actor, and ``import`` as the source when it was an import; the route of an add was never
# recorded, so those stay ``unknown`` (as do rows without such an audit row).
PROVENANCE = """
ALTER TABLE memories ADD COLUMN source TEXT NOT NULL DEFAULT 'unknown';
ALTER TABLE memories ADD COLUMN actor TEXT NOT NULL DEFAULT '';
UPDATE memories m SET
    source = CASE w.action WHEN 'import' THEN 'import' ELSE 'unknown' END,
    actor = w.actor
FROM (
    SELECT DISTINCT ON (amw.memory_id) amw.memory_id, a.action, a.actor, a.tenant
    FROM audit_memory_writes amw JOIN audit_log a ON a.seq = amw.seq
    WHERE a.action IN ('add', 'import') AND a.outcome = 'ok'
    ORDER BY amw.memory_id, a.seq
) AS w
WHERE w.memory_id = m.id AND w.tenant = m.tenant;
"""


class PythonStep(str):
    """A step that needs Python (it reads rows to decide what to write): its text is a comment
    naming it, so readers of the scripts' SQL (audit_guards reads the triggers each one makes)
    see a step that creates nothing; ``migrate`` runs ``run`` instead."""

    run: Callable[[psycopg.Connection], None]

    def __new__(cls, run: Callable[[psycopg.Connection], None]) -> PythonStep:
        step = super().__new__(cls, f"-- {run.__module__}.{run.__name__}")
        step.run = run
        return step


def _safe_identifiers(conn: psycopg.Connection) -> None:
    """Projects, kinds, tags and threads the character policy refuses are rewritten
    (``store/identifier_rewrite.py``); the analyzer fingerprint is cleared so ``ensure_index``
    writes every ``search`` tsvector again, and a rewritten project drops the memory's vectors
    (the existing trigger) and queues it for embedding."""
    from memwarden.store.identifier_rewrite import IdentifierRow, log_report, plan_rewrites

    # Only rows that may hold a refused character (non-ASCII, a control character, markup) are
    # read into Python; every stored name is passed so a new one never takes a name in use.
    suspect = "(octet_length({c}) <> char_length({c}) OR {c} ~ '[[:cntrl:]<>&\"''`]')"
    where = " OR ".join(
        [
            *(suspect.format(c=c) for c in ("project", "kind", "thread")),
            f"EXISTS (SELECT 1 FROM unnest(tags) AS t(v) WHERE {suspect.format(c='v')})",
        ]
    )
    rows = conn.execute(
        f"SELECT id, tenant, project, kind, tags, thread FROM memories WHERE {where}"
    ).fetchall()
    if not rows:
        return
    report = plan_rewrites(
        (IdentifierRow(r[0], r[1], r[2], r[3], tuple(r[4]), r[5]) for r in rows),
        projects=[(r[0], r[1]) for r in conn.execute("SELECT DISTINCT tenant, project FROM memories")],
        threads=[(r[0], r[1]) for r in conn.execute("SELECT DISTINCT tenant, thread FROM memories")],
    )
    if not report.rewrites:
        return
    with conn.cursor() as cursor:
        cursor.executemany(
            "UPDATE memories SET project = %s, kind = %s, tags = %s, thread = %s WHERE id = %s",
            [(r.project, r.kind, list(r.tags), r.thread, r.key) for r in report.rewrites],
        )
    conn.execute("DELETE FROM index_state WHERE key = 'analyzer'")
    log_report("0013_safe_identifiers", report)


MIGRATIONS: list[tuple[str, str]] = [
    ("0001_initial", INITIAL),
    ("0002_audit_log", AUDIT_LOG),
    ("0003_injection_flags", INJECTION_FLAGS),
    ("0004_index_state", INDEX_STATE),
    ("0005_vectors", VECTORS),
    ("0006_dashboard", DASHBOARD),
    ("0007_memory_context", MEMORY_CONTEXT),
    ("0008_browse_tags", BROWSE_TAGS),
    ("0009_audit_memory_writes", AUDIT_MEMORY_WRITES),
    ("0010_embedding_pending", EMBEDDING_PENDING),
    ("0011_recency_brin", RECENCY_BRIN),
    ("0012_provenance", PROVENANCE),
    ("0013_safe_identifiers", PythonStep(_safe_identifiers)),
]


def ensure_tables(conn: psycopg.Connection) -> None:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations ("
        " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
    )


def current_version(conn: psycopg.Connection) -> int:
    row = conn.execute(
        "SELECT COALESCE(MAX(version), 0) FROM schema_migrations" if _has_table(conn) else "SELECT 0"
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
            if isinstance(script, PythonStep):
                script.run(conn)
            else:
                conn.execute(script)
            conn.execute("INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (number, name))
            applied.append(name)
    return applied


def pending(conn: psycopg.Connection) -> list[str]:
    version = current_version(conn)
    return [name for number, (name, _) in enumerate(MIGRATIONS, start=1) if number > version]
