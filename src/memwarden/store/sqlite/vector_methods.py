"""Vectors beside memories in the SQLite store (the ``VectorStore`` protocol).

Each vector is stored with its embedding space (model id + dimension) in ``memory_vectors``;
searches go through one in-process ``VectorSpaceIndex`` per space (``vectors.py``; the store
keeps them, one per space, and hands the right one in), refreshed from the table so rows written
by other processes are picked up.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memwarden.errors import StorageError
from memwarden.models import Candidate, IndexText, Memory, VectorCounts, VectorSpace
from memwarden.store.sqlite.database import SQLiteDatabase
from memwarden.store.sqlite.rows import M_COLUMNS, NCOLUMNS, memory_filters, row_to_memory

if TYPE_CHECKING:  # pragma: no cover - imported by the first vector search: a keyword-only CLI never loads it
    from memwarden.store.sqlite.vectors import VectorSpaceIndex

#: Removal-log rows read per queue step.
QUEUE_REMOVALS = 1_000


def put_vectors(db: SQLiteDatabase, space: VectorSpace, items: Sequence[tuple[str, int, bytes]]) -> int:
    """Store ``(memory_id, version, float32 bytes)`` rows of memories still at that version, in
    one transaction; how many were stored (``VectorStore.put_vectors``)."""
    stored = 0
    # Not durable on its own (no fsync): a vector is derived data, and one lost to a power
    # cut leaves its memory in the embedding queue, which embeds it again. A process crash
    # loses nothing (WAL); the next durable commit (an add) flushes it to disk as well.
    with db.write(durable=False) as conn:
        for memory_id, version, blob in items:
            if len(blob) != space.dimension * 4:
                raise StorageError(
                    f"vector of {len(blob)} bytes does not fit space {space.model_id}/{space.dimension}"
                )
            row = conn.execute(
                "SELECT rowid FROM memories WHERE id = ? AND version = ? AND deleted_at IS NULL",
                (memory_id, version),
            ).fetchone()
            if row is None:
                continue
            # A replaced vector is deleted first, so the removal is logged for every index
            # (REPLACE would delete it without firing the trigger).
            conn.execute(
                "DELETE FROM memory_vectors WHERE memory_rowid = ? AND model = ? AND dim = ?",
                (row[0], space.model_id, space.dimension),
            )
            conn.execute(
                "INSERT INTO memory_vectors(memory_rowid, model, dim, vector) VALUES (?, ?, ?, ?)",
                (row[0], space.model_id, space.dimension, blob),
            )
            conn.execute(
                "UPDATE memories SET embedding_error = NULL WHERE rowid = ? AND embedding_error IS NOT NULL",
                (row[0],),
            )
            stored += 1
    return stored


def record_embedding_failure(db: SQLiteDatabase, ids: Sequence[str], error: str) -> None:
    """Keep the error (its first 500 characters) on each memory: the backfill retries them."""
    if not ids:
        return
    with db.write() as conn:
        conn.executemany(
            "UPDATE memories SET embedding_error = ? WHERE id = ?", [(error[:500], i) for i in ids]
        )


def missing_vectors_page(
    conn: sqlite3.Connection, space: VectorSpace, cursor: Any, *, limit: int, tenant: str | None = None
) -> tuple[list[Memory], Any]:
    """The next ``limit`` live memories without a vector of ``space`` after ``cursor``, and
    the cursor after them."""
    # The cursor is the last rowid read: each page continues the walk by rowid (restarting
    # from the first row, every page of a backfill read the embedded part again, seconds a
    # page at 1M memories).
    scope, params = ("", []) if tenant is None else (" AND m.tenant = ?", [tenant])
    rows = conn.execute(
        f"SELECT m.rowid, {M_COLUMNS} FROM memories m WHERE m.rowid > ? AND m.deleted_at IS NULL{scope}"
        " AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_rowid = m.rowid"
        " AND v.model = ? AND v.dim = ?) ORDER BY m.rowid LIMIT ?",
        (cursor or 0, *params, space.model_id, space.dimension, limit),
    ).fetchall()
    return [row_to_memory(row[1:]) for row in rows], (rows[-1][0] if rows else cursor)


def embedding_queue(
    conn: sqlite3.Connection, space: VectorSpace, mark: Any, *, limit: int
) -> tuple[list[Memory], Any]:
    """The next live memories without a vector of ``space``, found from the watermark
    ``mark`` on (``None``: from the start), and the watermark after them.

    The queue is the table itself (nothing to lose on a crash): memories past the newest
    rowid seen, plus memories named in the removal log since it was last read (edited ones).
    Each step reads what changed, never the whole table again (issue 21: the old backfill
    counted every row, again and again). Failed embeddings are retried by ``failed_embeddings``.
    """
    conn.execute("BEGIN")
    try:
        if mark is None:
            removal_mark = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM vector_removals").fetchone()[0]
            mark = (0, removal_mark)
        rowid_mark, removal_mark = mark
        found: list[Memory] = []
        removed = conn.execute(
            "SELECT seq, memory_rowid FROM vector_removals WHERE seq > ? ORDER BY seq LIMIT ?",
            (removal_mark, QUEUE_REMOVALS),
        ).fetchall()
        if removed:
            removal_mark = removed[-1][0]
            rowids = sorted({r[1] for r in removed if r[1] <= rowid_mark})
            found += _missing_among(conn, space, rowids)
        wanted = limit - len(found)
        if wanted > 0:
            newest = conn.execute("SELECT COALESCE(MAX(rowid), 0) FROM memories").fetchone()[0]
            rows = conn.execute(
                f"SELECT m.rowid, {M_COLUMNS} FROM memories m WHERE m.rowid > ? AND m.deleted_at IS NULL"
                " AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_rowid = m.rowid"
                " AND v.model = ? AND v.dim = ?) ORDER BY m.rowid LIMIT ?",
                (rowid_mark, space.model_id, space.dimension, wanted),
            ).fetchall()
            found += [row_to_memory(row[1:]) for row in rows]
            # A full batch may have more behind it; a short one read up to the newest row.
            rowid_mark = rows[-1][0] if len(rows) == wanted else newest
    finally:
        conn.execute("COMMIT")
    return found, (rowid_mark, removal_mark)


def _missing_among(conn: sqlite3.Connection, space: VectorSpace, rowids: list[int]) -> list[Memory]:
    if not rowids:
        return []
    marks = ", ".join("?" * len(rowids))
    rows = conn.execute(
        f"SELECT {M_COLUMNS} FROM memories m WHERE m.rowid IN ({marks}) AND m.deleted_at IS NULL"
        " AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_rowid = m.rowid"
        " AND v.model = ? AND v.dim = ?)",
        (*rowids, space.model_id, space.dimension),
    )
    return [row_to_memory(row) for row in rows]


def failed_embeddings(conn: sqlite3.Connection, space: VectorSpace, *, limit: int) -> list[Memory]:
    """Live memories whose last embedding failed and that still lack a vector (indexed read)."""
    rows = conn.execute(
        f"SELECT {M_COLUMNS} FROM memories m WHERE m.embedding_error IS NOT NULL AND m.deleted_at IS NULL"
        " AND NOT EXISTS (SELECT 1 FROM memory_vectors v WHERE v.memory_rowid = m.rowid"
        " AND v.model = ? AND v.dim = ?) LIMIT ?",
        (space.model_id, space.dimension, limit),
    )
    return [row_to_memory(row) for row in rows]


def vector_counts(conn: sqlite3.Connection, tenant: str | None, space: VectorSpace) -> VectorCounts:
    scope, params = ("", []) if tenant is None else (" AND m.tenant = ?", [tenant])
    row = conn.execute(
        "SELECT COUNT(*), SUM(v.memory_rowid IS NOT NULL), SUM(m.embedding_error IS NOT NULL)"
        " FROM memories m LEFT JOIN memory_vectors v"
        "  ON v.memory_rowid = m.rowid AND v.model = ? AND v.dim = ?"
        f" WHERE m.deleted_at IS NULL{scope}",
        (space.model_id, space.dimension, *params),
    ).fetchone()
    return VectorCounts(live=row[0] or 0, with_vector=row[1] or 0, failed=row[2] or 0)


def holds_other_vectors(conn: sqlite3.Connection, space: VectorSpace) -> bool:
    row = conn.execute(
        "SELECT 1 FROM memory_vectors WHERE model != ? OR dim != ? LIMIT 1", (space.model_id, space.dimension)
    ).fetchone()
    return row is not None


def new_space_index(path: str, space: VectorSpace, *, exact_max: int, snapshots: bool) -> VectorSpaceIndex:
    """The in-process index of one space (its module, and numpy, load here: with the first
    vector search, never on a keyword-only path)."""
    from memwarden.store.sqlite.vector_snapshot import snapshot_dir_for
    from memwarden.store.sqlite.vectors import VectorSpaceIndex

    snapshot_dir = snapshot_dir_for(path) if snapshots else None
    return VectorSpaceIndex(space.model_id, space.dimension, exact_max=exact_max, snapshot_dir=snapshot_dir)


def warm_vectors(index: VectorSpaceIndex, connection: Callable[[], sqlite3.Connection]) -> None:
    """Load what the first search of ``index`` needs (called in the background)."""
    index.refresh(connection())
    index.warm(connection)


def vector_search(
    index: VectorSpaceIndex,
    conn: sqlite3.Connection,
    tenant: str,
    query: Any,
    *,
    project: str | None,
    tags: Sequence[str],
    include_expired: bool,
    now: datetime,
    limit: int,
) -> list[Candidate]:
    """Live memories nearest to ``query`` in ``index``'s space, filtered in SQL; the cosine as
    score. The index is refreshed first, so rows other processes wrote are seen."""
    index.refresh(conn)
    # Over-fetch: tag and expiry filters are applied below, in SQL, on the nearest rows.
    wanted = limit if not tags and include_expired else limit * 3
    nearest = index.search(query, tenant, project, wanted)
    if not nearest:
        return []
    where, params = memory_filters(project, tags, include_expired, now)
    # The nearest rowids drive the join (CROSS JOIN fixes the order), so each is one primary
    # key lookup whatever the planner's statistics say: with ``rowid IN (…) AND tenant = ?``
    # SQLite chose the tenant index and read every memory of the tenant (issue 21,
    # docs/performance.md#storage); tests/store/test_search_plans.py checks the plan.
    rows = conn.execute(
        f"SELECT {M_COLUMNS}, m.rowid, f.title, f.tags, f.body, f.context FROM json_each(?) AS wanted"
        " CROSS JOIN memories m ON m.rowid = wanted.value"
        " LEFT JOIN memories_fts f ON f.rowid = m.rowid"
        f" WHERE +m.tenant = ? AND m.deleted_at IS NULL{where}",
        (json.dumps([r for r, _ in nearest]), tenant, *params),
    ).fetchall()
    n = NCOLUMNS  # the memory's columns come first, then rowid and the index text
    by_rowid = {row[n]: row for row in rows}
    found = []
    for memory_rowid, cosine in nearest:
        row = by_rowid.get(memory_rowid)
        if row is not None:
            analyzed = (
                None
                if row[n + 1] is None
                else IndexText(row[n + 1], row[n + 2], row[n + 3], row[n + 4] or "")
            )
            found.append(Candidate(row_to_memory(row), cosine, analyzed))
    return found[:limit]
