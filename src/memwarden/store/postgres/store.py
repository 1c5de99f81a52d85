"""PostgresStore: memories and their keyword index in PostgreSQL, shared by many replicas.

Every replica is stateless: correctness under concurrency comes from the database, not from
locks in Python. Exact dedup is a unique partial index raced through ``INSERT ... ON
CONFLICT``; updates are ``UPDATE ... WHERE version = expected``; keyword search reads a
tsvector written in the same statement as the row, so a write through one replica is found
through every other as soon as it commits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memwarden.audit.write_audit import WriteAudit, append_row, note_committed
from memwarden.errors import Conflict, StorageError
from memwarden.models import Candidate, IndexText, KeywordQuery, Memory
from memwarden.store.postgres import migrations
from memwarden.store.postgres.connect import open_pool, redact_url
from memwarden.store.postgres.failure_words import postgres_failure
from memwarden.store.postgres.insights import PostgresInsights
from memwarden.store.postgres.keyword_plan import DISABLE, KeywordPlanner
from memwarden.store.postgres.maintenance import PostgresMaintenance
from memwarden.store.postgres.rows import COLUMNS, M_COLUMNS, NCOLUMNS, memory_params, row_to_memory
from memwarden.store.postgres.textsearch import (
    RANK_WEIGHTS,
    parse_tsvector,
    tsquery_all_literal,
    tsquery_literal,
    tsvector_literal,
)
from memwarden.store.postgres.vectors import PostgresVectors
from memwarden.store.unfinished import KEYWORD_REINDEX, marker_value

if TYPE_CHECKING:  # pragma: no cover
    import psycopg
    from psycopg_pool import ConnectionPool

ADD_RETRIES = 5
# At most this many matches (the newest) are ranked per step of a keyword search.
RANK_POOL = 1000
REINDEX_LOCK = 0x6D656D78  # advisory lock of ensure_index ("memx")
REINDEX_BATCH = 500


class _TwinVanished(Exception):
    """The conflicting row was gone when we read it; the add is retried."""


class PostgresStore(PostgresMaintenance, PostgresVectors, PostgresInsights):
    """The scale-out backend. Thread-safe (a connection pool); safe to share between replicas.

    Whole-store operations (health probe, rebuild, import/export, purge, vacuum) come from
    ``PostgresMaintenance``; backups from ``store/postgres/backup.py``.
    """

    backend = "postgresql"
    _columns = M_COLUMNS  # for PostgresInsights (which cannot import this module: a cycle)
    _to_memory = staticmethod(row_to_memory)

    def __init__(self, url: str, *, pool_size: int = 10) -> None:
        self.url = url
        self.pool: ConnectionPool = open_pool(url, pool_size=pool_size)
        self._indexed_spaces: set[Any] = set()
        self._keyword_planner = KeywordPlanner()
        with self.connection() as conn:
            self.applied_migrations = migrations.migrate(conn)

    # -- connections -------------------------------------------------------------------------

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        """A pooled autocommit connection; database errors become StorageError."""
        import psycopg
        from psycopg_pool import PoolTimeout

        try:
            with self.pool.connection() as conn:
                yield conn
        except PoolTimeout as exc:
            raise StorageError(
                f"no PostgreSQL connection free in time at {redact_url(self.url)}: {exc}"
            ) from exc
        except psycopg.errors.UniqueViolation:
            raise  # callers turn these into Conflict with the right ids
        except psycopg.Error as exc:
            raise StorageError(postgres_failure(exc, self.url)) from exc

    @contextmanager
    def write(self) -> Iterator[psycopg.Connection]:
        """One write transaction (READ COMMITTED; row locks and unique indexes do the rest); an
        audit row appended inside (``audit/write_audit.py``) commits with it or not at all."""
        with self.connection() as conn, conn.transaction():
            yield conn

    def close(self) -> None:
        self.pool.close()

    # -- writes ------------------------------------------------------------------------------

    def add(
        self, memory: Memory, index: IndexText, *, audit: WriteAudit | None = None
    ) -> tuple[Memory, bool]:
        import psycopg

        for _ in range(ADD_RETRIES):
            try:
                return self._add_once(memory, index, audit)
            except psycopg.errors.UniqueViolation:
                continue  # another replica stored the twin while we retired an expired one
            except _TwinVanished:
                continue  # deleted between our insert and our read: try the insert again
        raise StorageError(f"could not store memory {memory.id}: its duplicate kept changing; retry")

    def _add_once(self, memory: Memory, index: IndexText, audit: WriteAudit | None) -> tuple[Memory, bool]:
        """One attempt; a retried attempt appends its own audit row (this one's rolled back)."""
        with self.write() as conn:
            stored, duplicate = self._add_in(conn, memory, index)
            row = append_row(audit, conn, [stored.id], detail={"duplicate": duplicate})
        note_committed(audit, row)
        return stored, duplicate

    def _add_in(self, conn: psycopg.Connection, memory: Memory, index: IndexText) -> tuple[Memory, bool]:
        row = conn.execute(
            f"INSERT INTO memories ({COLUMNS}, search) VALUES ({', '.join(['%s'] * NCOLUMNS)}, %s::tsvector)"
            " ON CONFLICT (tenant, project, content_hash) WHERE deleted_at IS NULL DO NOTHING"
            " RETURNING id",
            (*memory_params(memory), tsvector_literal(index)),
        ).fetchone()
        if row is not None:
            return memory, False
        # A live twin exists (perhaps committed by another replica a moment ago).
        twin = conn.execute(
            f"SELECT {COLUMNS} FROM memories WHERE tenant = %s AND project = %s AND content_hash = %s"
            " AND deleted_at IS NULL FOR UPDATE",
            (memory.tenant, memory.project, memory.content_hash),
        ).fetchone()
        if twin is None:
            raise _TwinVanished
        existing = row_to_memory(twin)
        if not existing.is_expired(memory.created_at):
            return existing, True
        # An expired twin is retired so the same fact can be stored afresh.
        self._soft_delete_row(conn, existing, memory.created_at)
        conn.execute(
            f"INSERT INTO memories ({COLUMNS}, search) VALUES ({', '.join(['%s'] * NCOLUMNS)}, %s::tsvector)",
            (*memory_params(memory), tsvector_literal(index)),
        )
        return memory, False

    def update(
        self,
        memory: Memory,
        index: IndexText,
        *,
        expected_version: int,
        audit: WriteAudit | None = None,
    ) -> Memory:
        import psycopg

        updated = memory._replace(version=expected_version + 1)
        try:
            with self.write() as conn:
                row = conn.execute(
                    "UPDATE memories SET project = %s, kind = %s, title = %s, tags = %s, content = %s,"
                    " content_hash = %s, pinned = %s, updated_at = %s, expires_at = %s, version = %s,"
                    " redactions = %s, injection_flags = %s, context = %s, thread = %s, occurred_at = %s,"
                    " source = %s, actor = %s, search = %s::tsvector"
                    " WHERE tenant = %s AND id = %s AND version = %s AND deleted_at IS NULL RETURNING id",
                    (
                        updated.project,
                        updated.kind,
                        updated.title,
                        list(updated.tags),
                        updated.content,
                        updated.content_hash,
                        updated.pinned,
                        updated.updated_at,
                        updated.expires_at,
                        updated.version,
                        list(updated.redactions),
                        list(updated.injection_flags),
                        updated.context,
                        updated.thread,
                        updated.occurred_at,
                        updated.source,
                        updated.actor,
                        tsvector_literal(index),
                        memory.tenant,
                        memory.id,
                        expected_version,
                    ),
                ).fetchone()
                if row is None:
                    self._explain_missed_update(conn, memory, expected_version)
                written = append_row(audit, conn, [memory.id], detail={"version": updated.version})
        except psycopg.errors.UniqueViolation:
            twin = self._twin(memory)
            raise Conflict(
                f"memory {twin} in project {memory.project!r} already says exactly this; "
                "delete one of them instead",
                id=memory.id,
                duplicate_of=twin,
            ) from None
        note_committed(audit, written)
        return updated

    def _explain_missed_update(self, conn: psycopg.Connection, memory: Memory, expected_version: int) -> None:
        row = conn.execute(
            "SELECT version, deleted_at FROM memories WHERE tenant = %s AND id = %s",
            (memory.tenant, memory.id),
        ).fetchone()
        if row is None or row[1] is not None:
            raise Conflict(f"memory {memory.id} was deleted meanwhile", id=memory.id)
        raise Conflict(
            f"memory {memory.id} is at version {row[0]}, not {expected_version}: get it again and retry the update",
            id=memory.id,
            current_version=row[0],
        )

    def _twin(self, memory: Memory) -> str | None:
        with self.connection() as conn:
            row = conn.execute(
                "SELECT id FROM memories WHERE tenant = %s AND project = %s AND content_hash = %s"
                " AND deleted_at IS NULL AND id <> %s",
                (memory.tenant, memory.project, memory.content_hash, memory.id),
            ).fetchone()
        return None if row is None else str(row[0])

    def soft_delete(
        self, tenant: str, memory_id: str, now: datetime, *, audit: WriteAudit | None = None
    ) -> Memory | None:
        with self.write() as conn:
            row = conn.execute(
                f"SELECT {COLUMNS} FROM memories WHERE tenant = %s AND id = %s FOR UPDATE",
                (tenant, memory_id),
            ).fetchone()
            if row is None:
                return None
            memory = row_to_memory(row)
            if memory.deleted_at is not None:
                return memory
            deleted = self._soft_delete_row(conn, memory, now)
            written = append_row(audit, conn, [memory.id], detail={"already_deleted": False})
        note_committed(audit, written)
        return deleted

    def _soft_delete_row(self, conn: psycopg.Connection, memory: Memory, now: datetime) -> Memory:
        conn.execute("UPDATE memories SET deleted_at = %s, search = NULL WHERE id = %s", (now, memory.id))
        return memory._replace(deleted_at=now)

    def record_hits(
        self, tenant: str, ids: Sequence[str], now: datetime, *, audit: WriteAudit | None = None
    ) -> None:
        if not ids:
            return
        # Rows are locked in id order so concurrent searches counting overlapping hits cannot deadlock.
        # Usage counters are bookkeeping, and a search's audit row is written like every read's
        # (audit.py): committed without waiting for the WAL flush, one commit for both.
        with self.write() as conn:
            conn.execute("SET LOCAL synchronous_commit = off")
            conn.execute(
                "UPDATE memories m SET hit_count = m.hit_count + 1, last_used_at = %s"
                " FROM (SELECT id FROM memories WHERE tenant = %s AND id = ANY(%s) ORDER BY id FOR UPDATE) s"
                " WHERE m.id = s.id",
                (now, tenant, sorted(set(ids))),
            )
            row = append_row(audit, conn, ids)
        note_committed(audit, row)

    # -- reads -------------------------------------------------------------------------------

    def get_many(self, tenant: str, ids: Sequence[str]) -> list[Memory]:
        if not ids:
            return []
        with self.connection() as conn:
            rows = conn.execute(
                f"SELECT {COLUMNS} FROM memories WHERE tenant = %s AND id = ANY(%s)", (tenant, list(ids))
            ).fetchall()
        found = {m.id: m for m in map(row_to_memory, rows)}
        return [found[i] for i in dict.fromkeys(ids) if i in found]

    def thread_neighbours(self, tenant: str, ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """For each of ``ids`` in a thread: the live memories just before and after it in that
        thread (ordered by ``occurred_at``, then by when they were stored, then id)."""
        if not ids:
            return {}
        step = (
            "SELECT m.id FROM memories m WHERE m.tenant = c.tenant AND m.thread = c.thread AND m.thread <> ''"
            " AND m.deleted_at IS NULL AND (COALESCE(m.occurred_at, m.created_at), m.created_at, m.id) {op}"
            " (COALESCE(c.occurred_at, c.created_at), c.created_at, c.id)"
            " ORDER BY COALESCE(m.occurred_at, m.created_at) {order}, m.created_at {order}, m.id {order} LIMIT 1"
        )
        with self.connection() as conn:
            rows = conn.execute(
                f"SELECT c.id, ({step.format(op='<', order='DESC')}), ({step.format(op='>', order='ASC')})"
                " FROM memories c WHERE c.tenant = %s AND c.id = ANY(%s) AND c.thread <> ''",
                (tenant, list(ids)),
            ).fetchall()
        return {row[0]: tuple(n for n in row[1:] if n is not None) for row in rows}

    def indexed_memories(self, tenant: str, ids: Sequence[str]) -> list[Candidate]:
        """The live memories with these ids, each with its analyzed index text (score 0)."""
        if not ids:
            return []
        with self.connection() as conn:
            rows = conn.execute(
                f"SELECT {COLUMNS}, search::text FROM memories"
                " WHERE tenant = %s AND id = ANY(%s) AND deleted_at IS NULL",
                (tenant, list(ids)),
            ).fetchall()
        return [
            Candidate(
                row_to_memory(row), 0.0, None if row[NCOLUMNS] is None else parse_tsvector(row[NCOLUMNS])
            )
            for row in rows
        ]

    @staticmethod
    def filters(
        project: str | None, tags: Sequence[str], include_expired: bool, now: datetime
    ) -> tuple[str, list[Any]]:
        sql, params = "", list[Any]()
        if project is not None:
            sql += " AND m.project = %s"
            params.append(project)
        if not include_expired:
            sql += " AND (m.expires_at IS NULL OR m.expires_at > %s)"
            params.append(now)
        if tags:
            sql += " AND m.tags @> %s"
            params.append(list(tags))
        return sql, params

    def near_duplicate_candidates(
        self, tenant: str, query: KeywordQuery, *, project: str, now: datetime, limit: int
    ) -> list[tuple[str, str, str | None]]:
        found = self.keyword_search(
            tenant, query, project=project, tags=(), include_expired=False, now=now, limit=limit
        )
        # The tsvector's text is not the analyzed body: the caller analyzes the content.
        return [(c.memory.id, c.memory.content, None) for c in found]

    def keyword_search(
        self,
        tenant: str,
        query: KeywordQuery,
        *,
        project: str | None,
        tags: Sequence[str],
        include_expired: bool,
        now: datetime,
        limit: int,
    ) -> list[Candidate]:
        expression = tsquery_literal(query)
        if not expression:
            return []
        where, params = self.filters(project, tags, include_expired, now)
        # Ranking every match of a common word is what makes full-text search slow at scale, so
        # the search is in two steps, each ranking at most RANK_POOL matches (the newest):
        # memories holding every query word first (few, and the best); only when they are fewer
        # than ``limit``, memories holding any word. A very broad query thus ranks its newest
        # RANK_POOL matches, never a memory that holds all the words ranked below one that doesn't.
        found: dict[str, Candidate] = {}
        narrow = tsquery_all_literal(query)
        with self.connection() as conn:
            for step in [narrow, expression] if narrow else [expression]:
                rows = self._keyword_step(
                    conn,
                    query,
                    (step, expression),
                    tenant,
                    (where, params),
                    limit,
                    every_word=step is narrow,
                    scoped=project is not None,
                )
                for row in rows:
                    if row[0] not in found:
                        found[row[0]] = Candidate(
                            row_to_memory(row), float(row[NCOLUMNS]), parse_tsvector(row[NCOLUMNS + 1])
                        )
                if len(found) >= limit:
                    break
        return sorted(found.values(), key=lambda c: (-c.score, c.memory.id))[:limit]

    def _keyword_step(
        self,
        conn: psycopg.Connection,
        query: KeywordQuery,
        tsqueries: tuple[str, str],
        tenant: str,
        filters: tuple[str, list[Any]],
        limit: int,
        *,
        every_word: bool,
        scoped: bool,
    ) -> list[Any]:
        """The ``limit`` best of the newest RANK_POOL memories matching the step's tsquery, ranked
        by the whole query's: rows of M_COLUMNS, the rank, the tsvector's text, the pool's size."""
        step, expression = tsqueries
        where, params = filters
        # The way to read the pool (keyword_plan.py): chosen here for a search of the whole
        # tenant; in a project the planner, which knows the project's size, chooses.
        plan, since = (
            (None, None)
            if scoped
            else self._keyword_planner.read(conn, query, every_word=every_word, pool=RANK_POOL)
        )
        for start in [since, None] if since is not None else [None]:
            window = "" if start is None else " AND m.updated_at >= %s"
            # The pool is sorted by time as bare row addresses (ctid), and its rows read again by
            # address (pages just read, in cache): sorting the matches' whole rows cost a third of
            # the statement at 1M. The tsvector's text is made for the ``limit`` rows returned
            # only (PostgreSQL computes a SELECT list before the ORDER BY ... LIMIT above it).
            sql = (
                f"SELECT {M_COLUMNS}, m.rank, m.search::text, m.pooled FROM ("
                " SELECT m.*, ts_rank(%s, m.search, q.query, 1) AS rank, count(*) OVER () AS pooled"
                " FROM (SELECT m.ctid AS tid FROM memories m WHERE m.search @@ %s::tsquery AND m.tenant = %s"
                f" AND m.deleted_at IS NULL{where}{window} ORDER BY m.updated_at DESC, m.id DESC LIMIT %s) p"
                " JOIN memories m ON m.ctid = p.tid, (SELECT %s::tsquery AS query) q"
                " ORDER BY rank DESC, m.id LIMIT %s) m ORDER BY m.rank DESC, m.id"
            )
            bound = [] if start is None else [start]
            with conn.transaction() if plan is not None else nullcontext():
                if plan is not None:
                    conn.execute(f"SET LOCAL {DISABLE[plan]} = off")
                # Never prepared: a prepared statement gets PostgreSQL's generic plan after five
                # runs, which cannot see how common the query's words are (it kept the GIN bitmap
                # for broad queries too: every match of a common word read).
                rows = conn.execute(
                    sql,
                    (RANK_WEIGHTS, step, tenant, *params, *bound, RANK_POOL, expression, limit),
                    prepare=False,
                ).fetchall()
            # A window that held a whole pool holds the newest RANK_POOL matches: done. One that
            # held fewer says nothing of older matches, so the step is read again without it.
            if start is None or (rows and rows[0][NCOLUMNS + 2] >= RANK_POOL):
                return rows
        return rows

    def list_memories(
        self,
        tenant: str,
        *,
        project: str | None,
        tags: Sequence[str] = (),
        pinned_only: bool,
        include_expired: bool,
        now: datetime,
        limit: int,
        offset: int = 0,
    ) -> list[Memory]:
        where, params = self.filters(project, tags, include_expired, now)
        if pinned_only:
            where += " AND m.pinned"
        with self.connection() as conn:
            rows = conn.execute(
                f"SELECT {M_COLUMNS} FROM memories m WHERE m.tenant = %s AND m.deleted_at IS NULL{where}"
                " ORDER BY m.updated_at DESC, m.id DESC LIMIT %s OFFSET %s",
                (tenant, *params, limit, offset),
            ).fetchall()
        return [row_to_memory(row) for row in rows]

    def stats(self, tenant: str, project: str | None, now: datetime) -> dict[str, Any]:
        scope, params = (
            ("tenant = %s", [tenant])
            if project is None
            else ("tenant = %s AND project = %s", [tenant, project])
        )
        live = "deleted_at IS NULL"
        with self.connection() as conn:
            row = conn.execute(
                "SELECT"
                f" COUNT(*) FILTER (WHERE {live} AND (expires_at IS NULL OR expires_at > %s)),"
                f" COUNT(*) FILTER (WHERE {live} AND expires_at IS NOT NULL AND expires_at <= %s),"
                " COUNT(*) FILTER (WHERE deleted_at IS NOT NULL),"
                f" COUNT(*) FILTER (WHERE {live} AND pinned),"
                f" COALESCE(SUM(octet_length(content)) FILTER (WHERE {live}), 0),"
                f" COUNT(*) FILTER (WHERE {live} AND hit_count = 0)"
                f" FROM memories WHERE {scope}",
                (now, now, *params),
            ).fetchone()
            projects = dict(
                conn.execute(
                    f"SELECT project, COUNT(*) FROM memories WHERE {scope} AND {live} GROUP BY project ORDER BY project",
                    params,
                ).fetchall()
            )
            kinds = dict(
                conn.execute(
                    f"SELECT kind, COUNT(*) FROM memories WHERE {scope} AND {live} GROUP BY kind ORDER BY kind",
                    params,
                ).fetchall()
            )
            size = conn.execute("SELECT pg_database_size(current_database())").fetchone()
        assert row is not None and size is not None
        return {
            "memories": row[0],
            "expired": row[1],
            "deleted": row[2],
            "pinned": row[3],
            "content_bytes": int(row[4]),
            "never_retrieved": row[5],
            "projects": projects,
            "kinds": kinds,
            "backend": self.backend,
            "database_bytes": int(size[0]),
        }

    def ensure_index(
        self,
        fingerprint: str,
        index_for: Callable[[Memory], IndexText],
        progress: Callable[[int, int], None] | None = None,
    ) -> int:
        """Rewrite every live memory's tsvector unless ``fingerprint`` wrote them (see store/base.py).

        Replicas starting together serialize on an advisory lock; the first re-indexes, the
        others find the fingerprint current.
        """
        with self.connection() as conn:
            row = conn.execute("SELECT value FROM index_state WHERE key = 'analyzer'").fetchone()
        if row is not None and row[0] == fingerprint:
            return 0
        # Marked first, in its own commit; the re-index below removes the mark in its transaction.
        self.put_state(KEYWORD_REINDEX, marker_value("reindex-keywords", analyzer=fingerprint))
        with self.write() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (REINDEX_LOCK,))
            row = conn.execute("SELECT value FROM index_state WHERE key = 'analyzer'").fetchone()
            if row is not None and row[0] == fingerprint:
                conn.execute("DELETE FROM index_state WHERE key = %s", (KEYWORD_REINDEX,))
                return 0
            rows = conn.execute(
                f"SELECT {COLUMNS} FROM memories WHERE deleted_at IS NULL ORDER BY id"
            ).fetchall()
            total = len(rows)
            with conn.cursor() as cur:
                for start in range(0, total, REINDEX_BATCH):
                    batch = [row_to_memory(r) for r in rows[start : start + REINDEX_BATCH]]
                    cur.executemany(
                        "UPDATE memories SET search = %s::tsvector WHERE id = %s",
                        [(tsvector_literal(index_for(m)), m.id) for m in batch],
                    )
                    if progress is not None:
                        progress(min(total, start + REINDEX_BATCH), total)
            conn.execute(
                "INSERT INTO index_state(key, value) VALUES ('analyzer', %s)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (fingerprint,),
            )
            conn.execute("DELETE FROM index_state WHERE key = %s", (KEYWORD_REINDEX,))
        return total

    def index_agrees(self) -> bool:
        """True when the keyword index holds exactly the live memories (a consistency check)."""
        with self.connection() as conn:
            row = conn.execute(
                "SELECT COUNT(*) FILTER (WHERE deleted_at IS NULL AND search IS NULL),"
                " COUNT(*) FILTER (WHERE deleted_at IS NOT NULL AND search IS NOT NULL) FROM memories"
            ).fetchone()
        return bool(row and row[0] == 0 and row[1] == 0)
