"""The vector half of the PostgreSQL backend: pgvector, one HNSW index per vector space.

Every replica reads the same table, so a vector one replica's background embedder stores is
found by every other replica's next search; there is no in-process index to catch up.

``memory_vectors.embedding`` is an untyped ``vector`` so several spaces (model id + dimension)
share one table. An HNSW index needs a fixed dimension, so each space gets a partial expression
index, ``(embedding::vector(dim)) vector_cosine_ops WHERE model = '…' AND dim = …``, created the
first time the space is used (instant on an empty space; ``memwarden migrate`` builds it after
loading). Searches repeat the same cast and the model and dimension as literals so the planner
matches that index, and use pgvector's iterative scan so tenant, project, tag and expiry filters
cannot starve the result.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memwarden.errors import StorageError
from memwarden.models import Candidate, Memory, VectorCounts, VectorSpace

if TYPE_CHECKING:  # pragma: no cover
    import psycopg

# HNSW build parameters (pgvector defaults; see docs/scaling.md for when to raise them).
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 64
# Candidates the graph walk keeps; at least this, or twice the rows wanted.
HNSW_EF_SEARCH = 100
# maintenance_work_mem for an index build memwarden starts, when the server's own is lower. The
# graph of 1M 384-d vectors needs several times this; past what it is given, pgvector builds slower
# (docs/scaling.md says what to set for 1M+ memories).
BUILD_MEMORY = "512MB"
SPACE_INDEX_LOCK = 0x6D657678  # "mevx": replicas creating a space's index take turns
# Rows of ``embedding_pending`` the background embedder reads per step.
QUEUE_HEAD = 500


def vector_text(blob: bytes, dimension: int) -> str:
    """pgvector's text form of float32 bytes; exact (each float32 prints as a float64 that parses back)."""
    import numpy as np

    if len(blob) != dimension * 4:
        raise StorageError(f"vector of {len(blob)} bytes does not fit a space of dimension {dimension}")
    return "[" + ",".join(map(str, np.frombuffer(blob, dtype=np.float32).tolist())) + "]"


def build_memory_too_low(conn: psycopg.Connection) -> bool:
    """Whether the session's ``maintenance_work_mem`` is below ``BUILD_MEMORY``, compared in bytes."""
    row = conn.execute(
        "SELECT pg_size_bytes(current_setting('maintenance_work_mem')) < pg_size_bytes(%s)", (BUILD_MEMORY,)
    ).fetchone()
    return bool(row and row[0])


def space_index_name(space: VectorSpace) -> str:
    digest = hashlib.sha256(space.model_id.encode("utf-8")).hexdigest()[:12]
    return f"memory_vectors_hnsw_{space.dimension}_{digest}"


class PostgresVectors:
    """``VectorStore`` for ``PostgresStore``; expects the attributes below."""

    connection: Callable[[], AbstractContextManager[psycopg.Connection]]
    write: Callable[[], AbstractContextManager[psycopg.Connection]]
    filters: Callable[..., tuple[str, list[Any]]]
    _indexed_spaces: set[VectorSpace]

    def ensure_space_index(self, space: VectorSpace) -> bool:
        """Create the space's HNSW index unless it exists; True when this call built it."""
        from psycopg import sql

        if space in self._indexed_spaces:
            return False
        name = space_index_name(space)
        with self.write() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (SPACE_INDEX_LOCK,))
            exists = conn.execute("SELECT to_regclass(%s) IS NOT NULL", (name,)).fetchone()
            built = not (exists and exists[0])
            if built:
                # A build over rows already there (migrate) is far faster when the graph fits in
                # memory: raise the build's memory to BUILD_MEMORY for this transaction, but never
                # lower what the server, database or role was given (a DBA sizing it for 1M+ rows).
                if build_memory_too_low(conn):
                    conn.execute(
                        sql.SQL("SET LOCAL maintenance_work_mem = {}").format(sql.Literal(BUILD_MEMORY))
                    )
                conn.execute(
                    sql.SQL(
                        "CREATE INDEX {name} ON memory_vectors USING hnsw ((embedding::vector({dim})) vector_cosine_ops)"
                        " WITH (m = {m}, ef_construction = {ef}) WHERE model = {model} AND dim = {dim}"
                    ).format(
                        name=sql.Identifier(name),
                        dim=sql.Literal(space.dimension),
                        m=sql.Literal(HNSW_M),
                        ef=sql.Literal(HNSW_EF_CONSTRUCTION),
                        model=sql.Literal(space.model_id),
                    )
                )
        self._indexed_spaces.add(space)
        return built

    def load_vectors(
        self, space: VectorSpace, rows: Iterable[tuple[str, bytes]], *, skip_existing: bool = False
    ) -> int:
        """Bulk-copy ``(memory_id, float32 bytes)`` of existing memories, then build the space's
        HNSW index once (much faster than growing it row by row). For ``memwarden migrate`` and
        benchmarks: no version check, the caller copies vectors that belong to the rows it copied.
        ``skip_existing`` (a resumed migrate) copies into a temporary table first and keeps the
        vectors already stored; the count is then of the vectors added.
        """
        count = 0
        table = "memwarden_loaded_vectors" if skip_existing else "memory_vectors"
        with self.write() as conn, conn.cursor() as cur:
            if skip_existing:
                cur.execute(f"CREATE TEMPORARY TABLE {table} (LIKE memory_vectors) ON COMMIT DROP")
            with cur.copy(f"COPY {table} (memory_id, model, dim, embedding) FROM STDIN") as copy:
                for memory_id, blob in rows:
                    copy.write_row(
                        (memory_id, space.model_id, space.dimension, vector_text(blob, space.dimension))
                    )
                    count += 1
            if skip_existing:
                cur.execute(
                    f"INSERT INTO memory_vectors (memory_id, model, dim, embedding)"
                    f" SELECT memory_id, model, dim, embedding FROM {table} ON CONFLICT DO NOTHING"
                )
                count = cur.rowcount
        self._indexed_spaces.discard(space)
        self.ensure_space_index(space)
        return count

    def put_vectors(self, space: VectorSpace, items: Sequence[tuple[str, int, bytes]]) -> int:
        rows = [
            (vector_text(blob, space.dimension), memory_id, version) for memory_id, version, blob in items
        ]
        self.ensure_space_index(space)
        stored = 0
        with self.write() as conn:
            for text, memory_id, version in rows:
                # Stored only while the memory is live at the version that was embedded.
                row = conn.execute(
                    "INSERT INTO memory_vectors (memory_id, model, dim, embedding)"
                    " SELECT id, %s, %s, %s::vector FROM memories WHERE id = %s AND version = %s AND deleted_at IS NULL"
                    " ON CONFLICT (memory_id, model, dim) DO UPDATE SET embedding = excluded.embedding"
                    " RETURNING memory_id",
                    (space.model_id, space.dimension, text, memory_id, version),
                ).fetchone()
                if row is None:
                    continue
                conn.execute(
                    "UPDATE memories SET embedding_error = NULL WHERE id = %s AND embedding_error IS NOT NULL",
                    (memory_id,),
                )
                stored += 1
        return stored

    def record_embedding_failure(self, ids: Sequence[str], error: str) -> None:
        if not ids:
            return
        with self.write() as conn:
            conn.execute(
                "UPDATE memories SET embedding_error = %s WHERE id = ANY(%s)", (error[:500], list(ids))
            )

    def memories_missing_vectors(
        self, space: VectorSpace, *, limit: int, tenant: str | None = None
    ) -> list[Memory]:
        return self.missing_vectors_page(space, None, limit=limit, tenant=tenant)[0]

    def missing_vectors_page(
        self, space: VectorSpace, cursor: Any, *, limit: int, tenant: str | None = None
    ) -> tuple[list[Memory], Any]:
        """The cursor is the last id read: pages continue the walk by primary key."""
        from memwarden.store.postgres.rows import M_COLUMNS, row_to_memory

        scope, params = ("", []) if tenant is None else (" AND m.tenant = %s", [tenant])
        with self.connection() as conn:
            rows = conn.execute(
                f"SELECT {M_COLUMNS} FROM memories m WHERE m.id > %s AND m.deleted_at IS NULL{scope}"
                " AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id"
                " AND v.model = %s AND v.dim = %s) ORDER BY m.id LIMIT %s",
                (cursor or "", *params, space.model_id, space.dimension, limit),
            ).fetchall()
        found = [row_to_memory(row) for row in rows]
        return found, (found[-1].id if found else cursor)

    def embedding_queue(self, space: VectorSpace, mark: Any, *, limit: int) -> tuple[list[Memory], Any]:
        """The next live memories without a vector of ``space``, and the queue's new state.

        ``mark`` None: the first pass after start, over the table itself (memories written before
        the queue existed, or every memory when the model changed), step by step until a batch
        comes back short; then ``("queue",)``: the head of ``embedding_pending`` (migration 0010), which every
        write that needs a vector fills in its own transaction. Rows whose memory needs nothing
        more are removed as the head is read, so each pass costs what is queued.
        """
        from memwarden.store.postgres.rows import M_COLUMNS, row_to_memory

        wanted = (space.model_id, space.dimension)
        with self.connection() as conn:
            if mark is None or mark[0] == "walk":
                # Keyset over the primary key (ULIDs, in the order they were made): each step
                # continues after the last one and reads the table once in all. A memory written
                # meanwhile below that point (an import keeps its ids) is in the queue table.
                after, params = ("", ()) if mark is None else (" AND m.id > %s", (mark[1],))
                rows = conn.execute(
                    f"SELECT {M_COLUMNS} FROM memories m WHERE m.deleted_at IS NULL AND m.embedding_error IS NULL"
                    " AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id AND v.model = %s"
                    f" AND v.dim = %s){after} ORDER BY m.id LIMIT %s",
                    (*wanted, *params, limit),
                ).fetchall()
                found = [row_to_memory(row) for row in rows]
                if len(found) < limit:
                    return found, ("queue",)
                return found, ("walk", found[-1].id)
            while True:
                head = conn.execute(
                    "SELECT seq, memory_id FROM embedding_pending ORDER BY seq LIMIT %s", (QUEUE_HEAD,)
                ).fetchall()
                if not head:
                    return [], mark
                rows = conn.execute(
                    f"SELECT {M_COLUMNS} FROM memories m WHERE m.id = ANY(%s) AND m.deleted_at IS NULL"
                    " AND m.embedding_error IS NULL AND NOT EXISTS (SELECT 1 FROM memory_vectors v"
                    " WHERE v.memory_id = m.id AND v.model = %s AND v.dim = %s)",
                    ([h[1] for h in head], *wanted),
                ).fetchall()
                needed = {row[0] for row in rows}
                done = [seq for seq, memory_id in head if memory_id not in needed]
                if done:
                    conn.execute("DELETE FROM embedding_pending WHERE seq = ANY(%s)", (done,))
                if rows:
                    order = {memory_id: i for i, (_, memory_id) in enumerate(head)}
                    rows.sort(key=lambda row: order[row[0]])
                    return [row_to_memory(row) for row in rows[:limit]], mark

    def failed_embeddings(self, space: VectorSpace, *, limit: int) -> list[Memory]:
        from memwarden.store.postgres.rows import M_COLUMNS, row_to_memory

        with self.connection() as conn:
            rows = conn.execute(
                f"SELECT {M_COLUMNS} FROM memories m WHERE m.embedding_error IS NOT NULL AND m.deleted_at IS NULL"
                " AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id AND v.model = %s"
                " AND v.dim = %s) ORDER BY m.created_at, m.id LIMIT %s",
                (space.model_id, space.dimension, limit),
            ).fetchall()
        return [row_to_memory(row) for row in rows]

    def vector_counts(self, tenant: str | None, space: VectorSpace) -> VectorCounts:
        scope, params = ("", []) if tenant is None else (" AND m.tenant = %s", [tenant])
        with self.connection() as conn:
            row = conn.execute(
                "SELECT COUNT(*), COUNT(v.memory_id), COUNT(m.embedding_error) FROM memories m"
                " LEFT JOIN memory_vectors v ON v.memory_id = m.id AND v.model = %s AND v.dim = %s"
                f" WHERE m.deleted_at IS NULL{scope}",
                (space.model_id, space.dimension, *params),
            ).fetchone()
        assert row is not None
        return VectorCounts(live=row[0], with_vector=row[1], failed=row[2])

    def holds_other_vectors(self, space: VectorSpace) -> bool:
        with self.connection() as conn:
            row = conn.execute(
                "SELECT 1 FROM memory_vectors WHERE model != %s OR dim != %s LIMIT 1",
                (space.model_id, space.dimension),
            ).fetchone()
        return row is not None

    def warm_vectors(self, space: VectorSpace) -> None:
        self.ensure_space_index(space)

    def vector_search(
        self,
        tenant: str,
        space: VectorSpace,
        query: Any,
        *,
        project: str | None,
        tags: Sequence[str],
        include_expired: bool,
        now: datetime,
        limit: int,
    ) -> list[Candidate]:
        import numpy as np
        from psycopg import sql

        from memwarden.store.postgres.rows import M_COLUMNS, NCOLUMNS, row_to_memory
        from memwarden.store.postgres.textsearch import parse_tsvector

        self.ensure_space_index(space)
        q = vector_text(np.asarray(query, dtype=np.float32).reshape(-1).tobytes(), space.dimension)
        where, params = self.filters(project, tags, include_expired, now)
        distance = sql.SQL("(v.embedding::vector({dim}) <=> %s::vector({dim}))").format(
            dim=sql.Literal(space.dimension)
        )
        statement = sql.SQL(
            "SELECT {cols}, 1 - {distance} AS cosine, m.search::text FROM memory_vectors v"
            " JOIN memories m ON m.id = v.memory_id"
            " WHERE v.model = {model} AND v.dim = {dim} AND m.tenant = %s AND m.deleted_at IS NULL{where}"
            " ORDER BY {distance} LIMIT %s"
        ).format(
            cols=sql.SQL(M_COLUMNS),
            distance=distance,
            model=sql.Literal(space.model_id),
            dim=sql.Literal(space.dimension),
            where=sql.SQL(where),
        )
        ef_search = min(1000, max(HNSW_EF_SEARCH, 2 * limit))
        with self.connection() as conn, conn.transaction():
            conn.execute(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(ef_search)))
            conn.execute("SET LOCAL hnsw.iterative_scan = strict_order")
            rows = conn.execute(statement, (q, tenant, *params, q, limit)).fetchall()
        return [
            Candidate(
                row_to_memory(row),
                float(row[NCOLUMNS]),
                None if row[NCOLUMNS + 1] is None else parse_tsvector(row[NCOLUMNS + 1]),
            )
            for row in rows
        ]
