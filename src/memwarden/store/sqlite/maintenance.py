"""Operations on a whole SQLite store: integrity, the keyword-index write probe and its
rebuild, bulk import, purge of expired memories, VACUUM.

Plain functions over a connection or the store's ``SQLiteDatabase``; each write is a
transaction of its own (an import, one per batch), with its audit row inside it. The write probe
exists because an FTS5 index can pass ``PRAGMA integrity_check`` and still fail every write
("database disk image is malformed" from its shadow tables); only a real write and read-back
tells.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any

from memwarden.audit.write_audit import WriteAudit, append_purge_row, append_row, note_committed
from memwarden.errors import StorageError
from memwarden.logs import get_logger
from memwarden.models import IndexText, Memory, VectorSpace, format_time
from memwarden.store.base import CLEARED_FLAGS_STATE
from memwarden.store.sqlite.database import SQLiteDatabase
from memwarden.store.sqlite.keyword_methods import index_row
from memwarden.store.sqlite.rows import COLUMNS, NCOLUMNS, memory_params, row_to_memory

logger = get_logger(__name__)
# Rowids no memory ever has (memories get positive rowids), used only by the write probe.
PROBE_ROWID = -7_000_000_001
PROBE_TERM = "memwardenhealthprobe"
IMPORT_BATCH = 1000


FTS5_SHADOW_TABLES = ("data", "idx", "content", "docsize", "config")


def _unlink_broken_fts(conn: sqlite3.Connection, name: str) -> None:
    """Remove an FTS5 table whose own code cannot open it any more (DROP TABLE needs that).

    When: DROP TABLE fails with "vtable constructor failed" (a garbled structure record) or
    "database disk image is malformed" (a garbled page of a shadow table).
    Why: the documented way out is to delete the schema rows with writable_schema and bump the
    schema version so every connection reloads the schema. The shadow tables go the same way
    rather than through DROP TABLE, which walks each b-tree to free its pages and fails (leaving
    the transaction unusable) on a garbled one. Their pages are left unreachable; the caller
    runs VACUUM afterwards, which copies only reachable pages, so ``integrity_check`` is clean
    again. Called right after the failed DROP, with nothing else done in the caller's write
    transaction: that transaction is rolled back and begun again, because a statement that hit
    a garbled page can leave it unable to write.
    """
    if conn.in_transaction:
        conn.execute("ROLLBACK")
    conn.execute("BEGIN IMMEDIATE")
    names = [name, *(f"{name}_{suffix}" for suffix in FTS5_SHADOW_TABLES)]
    version = int(conn.execute("PRAGMA schema_version").fetchone()[0])
    conn.execute("PRAGMA writable_schema = ON")
    try:
        conn.execute(f"DELETE FROM sqlite_master WHERE tbl_name IN ({', '.join('?' * len(names))})", names)
        conn.execute(f"PRAGMA schema_version = {version + 1}")
    finally:
        conn.execute("PRAGMA writable_schema = OFF")


class _RollBack(Exception):
    """Raised inside a write transaction to roll it back on purpose."""


# -- checks --------------------------------------------------------------------------------


def integrity_problems(db: SQLiteDatabase) -> list[str]:
    """``PRAGMA integrity_check`` findings (empty when the file is sound)."""
    try:
        rows = db.connection().execute("PRAGMA integrity_check").fetchall()
    except sqlite3.DatabaseError as exc:
        return [f"integrity_check could not run: {exc}"]
    found = [str(r[0]) for r in rows]
    return [] if found == ["ok"] else found


def probe_keyword_index(db: SQLiteDatabase) -> str | None:
    """Write a probe row into the keyword index, commit, find it, remove it, commit.

    Returns None when all of that worked, else what failed. Committed (not rolled back) on
    purpose: a full disk or a read-only file only shows at commit.
    """
    # Each probe has its own rowid: servers starting together must not take each other's
    # probe row for their own (or delete it under each other and "find" a broken index).
    import secrets

    rowid = PROBE_ROWID - secrets.randbelow(1_000_000_000)
    step = "write"
    try:
        with db.write() as conn:
            conn.execute(
                "INSERT INTO memories_fts(rowid, title, tags, body) VALUES (?, '', '', ?)",
                (rowid, PROBE_TERM),
            )
        step = "read back"
        found = (
            db.connection()
            .execute("SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?", (f'"{PROBE_TERM}"',))
            .fetchall()
        )
        if rowid not in {r[0] for r in found}:
            return "keyword index probe: the row just written was not found"
        step = "delete"
        with db.write() as conn:
            conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (rowid,))
    except (sqlite3.DatabaseError, StorageError) as exc:
        return f"keyword index probe failed at {step}: {exc}"
    return None


def probe_vector_store(db: SQLiteDatabase) -> str | None:
    """Write a probe memory and a vector for it, read the vector back, roll back.

    None when that worked or there is no vector table, else what failed. Rolled back (not
    committed) on purpose: a committed vector delete makes every process reload its vector
    index; the commit path of this file is already proven by the keyword-index probe.
    """
    conn = db.connection()
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'memory_vectors'").fetchone() is None:
        return None
    probe = bytes(range(256)) * 6  # 1536 bytes: a 384-dimension float32 vector
    try:
        with db.write() as wconn:
            cursor = wconn.execute(
                "INSERT INTO memories (id, tenant, project, kind, content, content_hash, created_at, updated_at)"
                " VALUES ('00000000000000000000PROBE0', ' memwarden-probe', ' probe', 'note', 'probe', 'probe',"
                " '1970-01-01T00:00:00.000000Z', '1970-01-01T00:00:00.000000Z')"
            )
            wconn.execute(
                "INSERT INTO memory_vectors (memory_rowid, model, dim, vector) VALUES (?, ' probe', 384, ?)",
                (cursor.lastrowid, probe),
            )
            back = wconn.execute(
                "SELECT vector FROM memory_vectors WHERE memory_rowid = ?", (cursor.lastrowid,)
            ).fetchone()
            raise _RollBack("ok" if back is not None and bytes(back[0]) == probe else "mismatch")
    except _RollBack as outcome:
        return None if str(outcome) == "ok" else "vector store probe: the vector read back differs"
    except (sqlite3.DatabaseError, StorageError) as exc:
        return f"vector store probe failed: {exc}"


def keyword_index_mismatch(conn: sqlite3.Connection) -> str | None:
    """None when the keyword index holds exactly the live memories, else what differs."""
    # One read transaction, so the three counts see the same moment while other processes
    # write; rows of a probe in flight (another server starting) are not memories' rows.
    own = not conn.in_transaction
    try:
        if own:
            conn.execute("BEGIN")
        try:
            live = conn.execute("SELECT COUNT(*) FROM memories WHERE deleted_at IS NULL").fetchone()[0]
            indexed = conn.execute(
                "SELECT COUNT(*) FROM memories_fts WHERE rowid > ?", (PROBE_ROWID,)
            ).fetchone()[0]
            orphans = conn.execute(
                "SELECT COUNT(*) FROM memories_fts f LEFT JOIN memories m ON m.rowid = f.rowid"
                " WHERE f.rowid > ? AND (m.rowid IS NULL OR m.deleted_at IS NOT NULL)",
                (PROBE_ROWID,),
            ).fetchone()[0]
        finally:
            if own:
                conn.execute("COMMIT")
    except sqlite3.DatabaseError as exc:
        return f"keyword index unreadable: {exc}"
    if live == indexed and orphans == 0:
        return None
    return f"keyword index holds {indexed} rows ({orphans} stray) for {live} live memories"


# -- repair --------------------------------------------------------------------------------


def rebuild_keyword_index(db: SQLiteDatabase, index_for: Callable[[Memory], IndexText]) -> int:
    """Drop the keyword index and build it again from the memories table; returns rows indexed.

    The table is re-created from its own stored definition, so a later migration that
    changes the tokenizer is rebuilt as it is, not as it once was.
    """
    orphaned = False
    with db.write() as conn:
        row = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'memories_fts'").fetchone()
        if row is None:  # dropped by hand: create it as the current schema defines it
            from memwarden.store.sqlite.fts import FTS_TABLE_SQL

            conn.execute(FTS_TABLE_SQL)
        else:
            try:
                conn.execute("DROP TABLE memories_fts")
            except sqlite3.DatabaseError:
                _unlink_broken_fts(conn, "memories_fts")
                orphaned = True
            conn.execute(row[0])
        count = 0
        for rowid, *rest in conn.execute(
            f"SELECT rowid, {COLUMNS} FROM memories WHERE deleted_at IS NULL ORDER BY rowid"
        ).fetchall():
            memory = row_to_memory(rest)
            index_row(conn, rowid, index_for(memory), memory)
            count += 1
    if orphaned:  # pages left unreachable by _unlink_broken_fts: VACUUM drops them
        try:
            db.connection().execute("VACUUM")
        except sqlite3.Error as exc:
            # When: no room for VACUUM's copy, or another process holds the file. The index
            # works already; integrity_check reports the unused pages until a later VACUUM.
            logger.warning("VACUUM after the keyword index rebuild failed (%s); run memwarden vacuum", exc)
    return count


# -- bulk ----------------------------------------------------------------------------------


def iter_memories(
    db: SQLiteDatabase, tenant: str, *, project: str | None, include_deleted: bool, batch: int = 2000
) -> Iterator[Memory]:
    """Every memory of a tenant (optionally one project) in creation order, batch by batch.

    A generator: the connection is that of the thread iterating, taken at the first item."""
    where = "tenant = ?" + ("" if project is None else " AND project = ?")
    where += "" if include_deleted else " AND deleted_at IS NULL"
    params: list[Any] = [tenant] + ([] if project is None else [project])
    last = 0
    conn = db.connection()
    while True:
        rows = conn.execute(
            f"SELECT rowid, {COLUMNS} FROM memories WHERE {where} AND rowid > ? ORDER BY rowid LIMIT ?",
            (*params, last, batch),
        ).fetchall()
        if not rows:
            return
        last = rows[-1][0]
        for row in rows:
            yield row_to_memory(row[1:])


def tenants(conn: sqlite3.Connection) -> list[str]:
    """Every tenant with a memory (deleted ones included), sorted."""
    return [r[0] for r in conn.execute("SELECT DISTINCT tenant FROM memories ORDER BY tenant")]


def iter_vectors(db: SQLiteDatabase, batch: int = 2000) -> Iterator[tuple[str, VectorSpace, bytes]]:
    """Every stored vector as ``(memory_id, space, float32 bytes)`` (``memwarden migrate``)."""
    last = 0
    conn = db.connection()
    while True:
        rows = conn.execute(
            "SELECT v.seq, m.id, v.model, v.dim, v.vector FROM memory_vectors v"
            " JOIN memories m ON m.rowid = v.memory_rowid WHERE v.seq > ? ORDER BY v.seq LIMIT ?",
            (last, batch),
        ).fetchall()
        if not rows:
            return
        last = rows[-1][0]
        for _, memory_id, model, dim, blob in rows:
            yield memory_id, VectorSpace(model, dim), bytes(blob)


def existing_ids(conn: sqlite3.Connection, ids: Sequence[str]) -> set[str]:
    """Which of these ids are stored (in any tenant, deleted or not: ids are unique)."""
    found: set[str] = set()
    for start in range(0, len(ids), 500):
        part = list(ids[start : start + 500])
        marks = ", ".join("?" * len(part))
        found.update(r[0] for r in conn.execute(f"SELECT id FROM memories WHERE id IN ({marks})", part))
    return found


def import_memories(
    db: SQLiteDatabase, entries: Sequence[tuple[Memory, IndexText]], *, audit: WriteAudit | None = None
) -> list[str]:
    """Insert memories that keep their ids and times, in one transaction per batch, each
    batch with its own ``audit`` row (the ids it inserted).

    Returns, per entry, ``inserted``, ``same_id`` (that id exists already) or ``duplicate``
    (a live memory of the same tenant+project says exactly this).
    """
    outcomes: list[str] = []
    for start in range(0, len(entries), IMPORT_BATCH):
        chunk = entries[start : start + IMPORT_BATCH]
        with db.write() as conn:
            # Indexed after the batch's memories are in: a memory insert fires triggers,
            # which would make FTS5 write out a segment per row (see ``keyword_methods.index_row``).
            to_index: list[tuple[int | None, IndexText, Memory]] = []
            for memory, index in chunk:
                if conn.execute("SELECT 1 FROM memories WHERE id = ?", (memory.id,)).fetchone():
                    outcomes.append("same_id")
                    continue
                if (
                    memory.deleted_at is None
                    and conn.execute(
                        "SELECT 1 FROM memories WHERE tenant = ? AND project = ? AND content_hash = ?"
                        " AND deleted_at IS NULL",
                        (memory.tenant, memory.project, memory.content_hash),
                    ).fetchone()
                ):
                    outcomes.append("duplicate")
                    continue
                cursor = conn.execute(
                    f"INSERT INTO memories ({COLUMNS}) VALUES ({', '.join('?' * NCOLUMNS)})",
                    memory_params(memory),
                )
                if memory.deleted_at is None:
                    to_index.append((cursor.lastrowid, index, memory))
                outcomes.append("inserted")
            for rowid, index, memory in to_index:
                index_row(conn, rowid, index, memory)
            batch_row = append_row(
                audit,
                conn,
                [m.id for (m, _), o in zip(chunk, outcomes[start:], strict=True) if o == "inserted"],
                detail={"batch": True},
            )
        note_committed(audit, batch_row)
    if len(entries) >= IMPORT_BATCH:
        db.connection().execute("PRAGMA optimize")  # planner statistics follow a bulk load
    return outcomes


# -- maintenance ---------------------------------------------------------------------------


def purge_expired(
    db: SQLiteDatabase, expired_before: datetime, *, audit: WriteAudit | None = None
) -> list[str]:
    """Remove, for good, memories whose expiry is older than ``expired_before``; their ids.

    Their cleared-flag state rows (``CLEARED_FLAGS_STATE``) go in the same transaction. With
    ``audit`` the ``purge`` row commits in the same transaction, only
    when something was purged, so the purge at every server start does not fill the log (the
    PostgreSQL store writes the same row)."""
    stamp = format_time(expired_before)
    expired = "SELECT rowid, id FROM memories WHERE expires_at IS NOT NULL AND expires_at <= ?"
    # Found by a read first (a scan of the table: seconds at 1M memories), so the write lock
    # is held only for the rows found, each checked again under it.
    if not db.connection().execute(expired + " LIMIT 1", (stamp,)).fetchall():
        return []
    with db.write() as conn:
        rows = conn.execute(expired, (stamp,)).fetchall()
        for rowid, memory_id in rows:
            conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (rowid,))
            conn.execute("DELETE FROM memories WHERE rowid = ?", (rowid,))
            conn.execute("DELETE FROM index_state WHERE key = ?", (CLEARED_FLAGS_STATE + str(memory_id),))
        purged = [str(r[1]) for r in rows]
        row = append_purge_row(audit, conn, purged, stamp)
    note_committed(audit, row)
    return purged


def vacuum(db: SQLiteDatabase) -> dict[str, int]:
    """Merge the keyword index's segments, VACUUM, checkpoint the WAL; sizes before and after."""
    before = db.file_bytes()
    conn = db.connection()
    try:
        with db.write() as wconn:
            wconn.execute("INSERT INTO memories_fts(memories_fts) VALUES ('optimize')")
        conn.execute("VACUUM")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.DatabaseError as exc:
        raise StorageError(f"vacuum failed on {db.path}: {exc}") from exc
    return {"bytes_before": before, "bytes_after": db.file_bytes()}


def table_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Rows per ordinary table, read in one transaction."""
    from memwarden.store.sqlite.backup import table_counts as count_tables

    return count_tables(conn)
