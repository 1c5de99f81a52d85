"""Writes of single memories: add, update, soft delete, and the usage counts of a search.

Each function is one write transaction (``SQLiteDatabase.write``): the memory row, its keyword
index row (``keyword_methods.index_row``) and the operation's audit row (``append_row``, on the
same connection) commit together or not at all; the audit row is noted (``note_committed``)
only after COMMIT. A refused write raises inside the transaction, so nothing stored changes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime

from memwarden.audit.write_audit import WriteAudit, append_row, note_committed
from memwarden.errors import Conflict
from memwarden.models import IndexText, Memory, format_time
from memwarden.store.sqlite.database import SQLiteDatabase
from memwarden.store.sqlite.keyword_methods import index_row
from memwarden.store.sqlite.rows import COLUMNS, NCOLUMNS, memory_params, row_to_memory


def add(
    db: SQLiteDatabase, memory: Memory, index: IndexText, audit: WriteAudit | None
) -> tuple[Memory, bool]:
    """Insert ``memory`` unless a live twin exists (then that one and True); see ``Store.add``."""
    with db.write() as conn:
        stored, duplicate = _insert_unless_duplicate(conn, memory, index)
        row = append_row(audit, conn, [stored.id], detail={"duplicate": duplicate})
    note_committed(audit, row)
    return stored, duplicate


def _insert_unless_duplicate(
    conn: sqlite3.Connection, memory: Memory, index: IndexText
) -> tuple[Memory, bool]:
    row = conn.execute(
        f"SELECT {COLUMNS} FROM memories WHERE tenant = ? AND project = ? AND content_hash = ?"
        " AND deleted_at IS NULL",
        (memory.tenant, memory.project, memory.content_hash),
    ).fetchone()
    if row is not None:
        existing = row_to_memory(row)
        if not existing.is_expired(memory.created_at):
            return existing, True
        # An expired twin is retired so the same fact can be stored afresh.
        soft_delete_row(conn, existing, memory.created_at)
    cursor = conn.execute(
        f"INSERT INTO memories ({COLUMNS}) VALUES ({', '.join('?' * NCOLUMNS)})",
        memory_params(memory),
    )
    index_row(conn, cursor.lastrowid, index, memory)
    return memory, False


def update(
    db: SQLiteDatabase,
    memory: Memory,
    index: IndexText,
    expected_version: int,
    audit: WriteAudit | None,
) -> Memory:
    """Replace the row if it is still at ``expected_version``; see ``Store.update``."""
    updated = memory._replace(version=expected_version + 1)
    with db.write() as conn:
        row = conn.execute(
            "SELECT rowid, version, deleted_at FROM memories WHERE tenant = ? AND id = ?",
            (memory.tenant, memory.id),
        ).fetchone()
        if row is None or row[2] is not None:
            raise Conflict(f"memory {memory.id} was deleted meanwhile", id=memory.id)
        if row[1] != expected_version:
            raise Conflict(
                f"memory {memory.id} is at version {row[1]}, not {expected_version}: "
                "get it again and retry the update",
                id=memory.id,
                current_version=row[1],
            )
        twin = conn.execute(
            "SELECT id FROM memories WHERE tenant = ? AND project = ? AND content_hash = ?"
            " AND deleted_at IS NULL AND id != ?",
            (memory.tenant, memory.project, memory.content_hash, memory.id),
        ).fetchone()
        if twin is not None:
            raise Conflict(
                f"memory {twin[0]} in project {memory.project!r} already says exactly this; "
                f"delete one of them instead",
                id=memory.id,
                duplicate_of=twin[0],
            )
        params = memory_params(updated)
        conn.execute(
            "UPDATE memories SET project = ?, kind = ?, title = ?, tags = ?, content = ?, content_hash = ?,"
            " pinned = ?, updated_at = ?, expires_at = ?, version = ?, redactions = ?, injection_flags = ?,"
            " context = ?, thread = ?, occurred_at = ?, source = ?, actor = ? WHERE rowid = ?",
            (
                *params[2:9],
                params[10],
                params[11],
                params[13],
                params[16],
                params[17],
                *params[18:23],
                row[0],
            ),
        )
        conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (row[0],))
        index_row(conn, row[0], index, updated)
        written = append_row(audit, conn, [memory.id], detail={"version": updated.version})
    note_committed(audit, written)
    return updated


def soft_delete(
    db: SQLiteDatabase, tenant: str, memory_id: str, now: datetime, audit: WriteAudit | None
) -> Memory | None:
    """Mark deleted and drop from the keyword index; see ``Store.soft_delete``."""
    with db.write() as conn:
        row = conn.execute(
            f"SELECT {COLUMNS} FROM memories WHERE tenant = ? AND id = ?", (tenant, memory_id)
        ).fetchone()
        if row is None:
            return None
        memory = row_to_memory(row)
        if memory.deleted_at is not None:
            return memory
        deleted = soft_delete_row(conn, memory, now)
        written = append_row(audit, conn, [memory.id], detail={"already_deleted": False})
    note_committed(audit, written)
    return deleted


def soft_delete_row(conn: sqlite3.Connection, memory: Memory, now: datetime) -> Memory:
    """Inside the caller's write transaction: stamp ``deleted_at``, remove the index row."""
    rowid = conn.execute("SELECT rowid FROM memories WHERE id = ?", (memory.id,)).fetchone()[0]
    conn.execute("UPDATE memories SET deleted_at = ? WHERE rowid = ?", (format_time(now), rowid))
    conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (rowid,))
    return memory._replace(deleted_at=now)


def record_hits(
    db: SQLiteDatabase, tenant: str, ids: Sequence[str], now: datetime, audit: WriteAudit | None
) -> None:
    """Count one use of each memory; the search's audit row commits with the counts."""
    if not ids:
        return
    # Usage counters are bookkeeping, and a search's audit row is written like every read's
    # (audit.py: synchronous=NORMAL): one commit without an fsync holds both.
    with db.write(durable=False) as conn:
        conn.executemany(
            "UPDATE memories SET hit_count = hit_count + 1, last_used_at = ? WHERE +tenant = ? AND id = ?",
            [(format_time(now), tenant, memory_id) for memory_id in ids],
        )
        row = append_row(audit, conn, ids)
    note_committed(audit, row)
