"""Operations on a whole PostgreSQL store: health checks, the keyword-index write probe and its
rebuild, bulk import and export, purge of expired memories, VACUUM.

A mixin of ``PostgresStore`` (kept apart so ``store.py`` stays about the per-memory contract),
with the same methods and answers as ``store/sqlite/maintenance.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memwarden.audit.write_audit import WriteAudit, append_purge_row, append_row, note_committed
from memwarden.errors import StorageError
from memwarden.models import IndexText, Memory, VectorSpace, format_time
from memwarden.store.base import CLEARED_FLAGS_STATE

if TYPE_CHECKING:  # pragma: no cover
    import psycopg

PROBE_TENANT = "__memwarden_health_probe__"
PROBE_TERM = "memwardenhealthprobe"
IMPORT_BATCH = 1000


class PostgresMaintenance:
    """Whole-store operations; expects the ``PostgresStore`` attributes below."""

    connection: Callable[[], AbstractContextManager[psycopg.Connection]]
    write: Callable[[], AbstractContextManager[psycopg.Connection]]

    # -- checks --------------------------------------------------------------------------------

    def integrity_problems(self) -> list[str]:
        """Indexes PostgreSQL marked invalid or not ready (a failed build), and unreadable tables."""
        try:
            with self.connection() as conn:
                rows = conn.execute(
                    "SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
                    " JOIN pg_class t ON t.oid = i.indrelid"
                    " WHERE t.relnamespace = current_schema()::regnamespace"
                    " AND (NOT i.indisvalid OR NOT i.indisready) ORDER BY 1"
                ).fetchall()
                for table in self.table_counts():
                    conn.execute(f'SELECT 1 FROM "{table}" LIMIT 1')
        except StorageError as exc:
            return [f"integrity check could not run: {exc.message}"]
        return [f"index {r[0]} is invalid: REINDEX INDEX {r[0]}" for r in rows]

    def probe_keyword_index(self) -> str | None:
        """Write a probe row with a tsvector, commit, find it by full-text search, delete it, commit."""
        import uuid

        import psycopg

        # Each probe has its own id: replicas starting together probe at the same moment.
        probe_id = f"probe-{uuid.uuid4().hex}"
        step = "write"
        try:
            with self.write() as conn:
                conn.execute(
                    "INSERT INTO memories (id, tenant, project, kind, content, content_hash, created_at,"
                    " updated_at, search) VALUES (%s, %s, 'probe', 'note', 'probe', %s, now(), now(),"
                    " %s::tsvector)",
                    (probe_id, PROBE_TENANT, probe_id, f"'{PROBE_TERM}':1C"),
                )
            step = "read back"
            with self.connection() as conn:
                found = conn.execute(
                    "SELECT id FROM memories WHERE tenant = %s AND id = %s AND search @@ %s::tsquery",
                    (PROBE_TENANT, probe_id, f"'{PROBE_TERM}'"),
                ).fetchall()
            if [r[0] for r in found] != [probe_id]:
                return "keyword index probe: the row just written was not found"
            step = "delete"
            with self.write() as conn:
                conn.execute("DELETE FROM memories WHERE id = %s", (probe_id,))
        except StorageError as exc:
            return f"keyword index probe failed at {step}: {exc.message}"
        except psycopg.Error as exc:
            return f"keyword index probe failed at {step}: {exc}"
        return None

    def keyword_index_mismatch(self) -> str | None:
        """None when every live memory has a tsvector and no deleted one keeps one."""
        try:
            with self.connection() as conn:
                row = conn.execute(
                    "SELECT COUNT(*) FILTER (WHERE deleted_at IS NULL),"
                    " COUNT(*) FILTER (WHERE deleted_at IS NULL AND search IS NULL),"
                    " COUNT(*) FILTER (WHERE deleted_at IS NOT NULL AND search IS NOT NULL) FROM memories"
                ).fetchone()
        except StorageError as exc:
            return f"keyword index unreadable: {exc.message}"
        assert row is not None
        if row[1] == 0 and row[2] == 0:
            return None
        return f"keyword index lacks {row[1]} of {row[0]} live memories and holds {row[2]} deleted ones"

    # -- repair --------------------------------------------------------------------------------

    def rebuild_keyword_index(self, index_for: Callable[[Memory], IndexText]) -> int:
        """Write every live memory's tsvector again (and clear deleted ones'); returns rows indexed."""
        from memwarden.store.postgres.rows import COLUMNS, row_to_memory
        from memwarden.store.postgres.textsearch import tsvector_literal

        with self.write() as conn:
            conn.execute(
                "UPDATE memories SET search = NULL WHERE deleted_at IS NOT NULL AND search IS NOT NULL"
            )
            rows = conn.execute(f"SELECT {COLUMNS} FROM memories WHERE deleted_at IS NULL").fetchall()
            with conn.cursor() as cur:
                cur.executemany(
                    "UPDATE memories SET search = %s::tsvector WHERE id = %s",
                    [(tsvector_literal(index_for(m)), m.id) for m in map(row_to_memory, rows)],
                )
        return len(rows)

    # -- bulk ----------------------------------------------------------------------------------

    def iter_memories(
        self, tenant: str, *, project: str | None, include_deleted: bool, batch: int = 2000
    ) -> Iterator[Memory]:
        """Every memory of a tenant (optionally one project) in creation order, batch by batch."""
        from memwarden.store.postgres.rows import COLUMNS, row_to_memory

        where = "tenant = %s" + ("" if project is None else " AND project = %s")
        where += "" if include_deleted else " AND deleted_at IS NULL"
        params: list[Any] = [tenant] + ([] if project is None else [project])
        after: tuple[Any, str] | None = None
        while True:
            page = "" if after is None else " AND (created_at, id) > (%s, %s)"
            with self.connection() as conn:
                rows = conn.execute(
                    f"SELECT {COLUMNS} FROM memories WHERE {where}{page} ORDER BY created_at, id LIMIT %s",
                    (*params, *(after or ()), batch),
                ).fetchall()
            if not rows:
                return
            after = (rows[-1][9], rows[-1][0])
            for row in rows:
                yield row_to_memory(row)

    def tenants(self) -> list[str]:
        """Every tenant with a memory (deleted ones included), sorted."""
        with self.connection() as conn:
            return [
                r[0] for r in conn.execute("SELECT DISTINCT tenant FROM memories ORDER BY tenant").fetchall()
            ]

    def put_state(self, key: str, value: str) -> None:
        """Set one row of the store's own state (``index_state``), committed."""
        with self.write() as conn:
            conn.execute(
                "INSERT INTO index_state (key, value) VALUES (%s, %s)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )

    def delete_state(self, key: str) -> None:
        with self.write() as conn:
            conn.execute("DELETE FROM index_state WHERE key = %s", (key,))

    def states(self, prefix: str) -> dict[str, str]:
        """The state rows whose key starts with ``prefix``, by key."""
        with self.connection() as conn:
            rows = conn.execute(
                "SELECT key, value FROM index_state WHERE left(key, %s) = %s ORDER BY key",
                (len(prefix), prefix),
            ).fetchall()
        return {str(k): str(v) for k, v in rows}

    def iter_vectors(self, batch: int = 2000) -> Iterator[tuple[str, VectorSpace, bytes]]:
        """Every stored vector as ``(memory_id, space, float32 bytes)``."""
        import numpy as np

        after: tuple[str, str, int] | None = None
        while True:
            page = "" if after is None else " WHERE (memory_id, model, dim) > (%s, %s, %s)"
            with self.connection() as conn:
                rows = conn.execute(
                    f"SELECT memory_id, model, dim, embedding::text FROM memory_vectors{page}"
                    " ORDER BY memory_id, model, dim LIMIT %s",
                    (*(after or ()), batch),
                ).fetchall()
            if not rows:
                return
            after = (rows[-1][0], rows[-1][1], rows[-1][2])
            for memory_id, model, dim, text in rows:
                vector = np.array(text.strip("[]").split(","), dtype=np.float32)
                yield memory_id, VectorSpace(model, dim), vector.tobytes()

    def existing_ids(self, ids: Sequence[str]) -> set[str]:
        """Which of these ids are stored (in any tenant, deleted or not: ids are unique)."""
        if not ids:
            return set()
        with self.connection() as conn:
            rows = conn.execute("SELECT id FROM memories WHERE id = ANY(%s)", (list(ids),)).fetchall()
        return {r[0] for r in rows}

    def import_memories(
        self, entries: Sequence[tuple[Memory, IndexText]], *, audit: WriteAudit | None = None
    ) -> list[str]:
        """Insert memories that keep their ids and times, one transaction per batch, each batch
        with its own ``audit`` row (the ids it inserted).

        Returns, per entry, ``inserted``, ``same_id`` (that id exists already) or ``duplicate``
        (a live memory of the same tenant+project says exactly this).
        """
        from memwarden.store.postgres.rows import COLUMNS, NCOLUMNS, memory_params
        from memwarden.store.postgres.textsearch import tsvector_literal

        outcomes: list[str] = []
        for start in range(0, len(entries), IMPORT_BATCH):
            chunk = entries[start : start + IMPORT_BATCH]
            with self.write() as conn:
                for memory, index in chunk:
                    row = conn.execute(
                        f"INSERT INTO memories ({COLUMNS}, search) VALUES ({', '.join(['%s'] * NCOLUMNS)}, %s::tsvector)"
                        " ON CONFLICT DO NOTHING RETURNING id",
                        (*memory_params(memory), None if memory.deleted_at else tsvector_literal(index)),
                    ).fetchone()
                    if row is not None:
                        outcomes.append("inserted")
                    elif conn.execute("SELECT 1 FROM memories WHERE id = %s", (memory.id,)).fetchone():
                        outcomes.append("same_id")
                    else:
                        outcomes.append("duplicate")
                batch_row = append_row(
                    audit,
                    conn,
                    [m.id for (m, _), o in zip(chunk, outcomes[start:], strict=True) if o == "inserted"],
                    detail={"batch": True},
                )
            note_committed(audit, batch_row)
        return outcomes

    # -- maintenance ---------------------------------------------------------------------------

    def purge_expired(self, expired_before: datetime, *, audit: WriteAudit | None = None) -> list[str]:
        """Remove, for good, memories whose expiry is older than ``expired_before``; their ids.

        With ``audit`` the ``purge`` row commits in the same transaction, only
        when something was purged; the same row as the SQLite store's (``purge_row`` there)."""
        with self.write() as conn:
            rows = conn.execute(
                "DELETE FROM memories WHERE expires_at IS NOT NULL AND expires_at <= %s RETURNING id",
                (expired_before,),
            ).fetchall()
            purged = [str(r[0]) for r in rows]
            if purged:  # their cleared-flag state rows go with them, in the same transaction
                conn.execute(
                    "DELETE FROM index_state WHERE key = ANY(%s)",
                    ([CLEARED_FLAGS_STATE + i for i in purged],),
                )
            row = append_purge_row(audit, conn, purged, format_time(expired_before))
        note_committed(audit, row)
        return purged

    def vacuum(self) -> dict[str, int]:
        """VACUUM (ANALYZE) memwarden's tables; database sizes before and after."""
        with self.connection() as conn:
            before = self._database_bytes(conn)
            for table in self.table_counts():
                conn.execute(f'VACUUM (ANALYZE) "{table}"')
            return {"bytes_before": before, "bytes_after": self._database_bytes(conn)}

    @staticmethod
    def _database_bytes(conn: psycopg.Connection) -> int:
        row = conn.execute("SELECT pg_database_size(current_database())").fetchone()
        return int(row[0]) if row else 0

    def table_counts(self) -> dict[str, int]:
        """Rows per memwarden table, read in one snapshot."""
        with self.connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            present = [
                r[0]
                for r in conn.execute(
                    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename"
                ).fetchall()
            ]
            counts = {}
            for name in present:
                row = conn.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()
                counts[name] = int(row[0]) if row else 0
        return counts
