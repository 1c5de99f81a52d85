"""Threads in the SQLite store: neighbours in a thread, and memories with their index text.

Search lifts a memory by the strength of its thread neighbours (``search/threads.py``); these two
reads give it the neighbours and, for neighbours no retrieval path found, the analyzed text the
ranking measures coverage on, straight from the keyword index (no re-analysis per search).
"""

from __future__ import annotations

from collections.abc import Sequence

from memwarden.models import Candidate, IndexText
from memwarden.store.sqlite.database import SQLiteDatabase
from memwarden.store.sqlite.rows import M_COLUMNS, NCOLUMNS, row_to_memory

# Thread order: when the remembered thing happened (the time of storing when unset), then
# storing order. The expression matches the ``memories_thread`` index of migration 0007.
_ORDER = "COALESCE({t}.occurred_at, {t}.created_at)"


def thread_neighbours(db: SQLiteDatabase, tenant: str, ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """For each of ``ids`` in a thread: the live memories just before and after it in that
    thread (ordered by ``occurred_at``, then by when they were stored)."""
    if not ids:
        return {}
    marks = ", ".join("?" * len(ids))
    mine, theirs = _ORDER.format(t="m"), _ORDER.format(t="c")
    step = (
        "SELECT m.id FROM memories m WHERE m.tenant = c.tenant AND m.thread = c.thread AND m.thread != ''"
        f" AND m.deleted_at IS NULL AND ({mine}, m.rowid) {{op}} ({theirs}, c.rowid)"
        f" ORDER BY {mine} {{order}}, m.rowid {{order}} LIMIT 1"
    )
    rows = (
        db.connection()
        .execute(
            f"SELECT c.id, ({step.format(op='<', order='DESC')}), ({step.format(op='>', order='ASC')})"
            f" FROM memories c WHERE c.id IN ({marks}) AND +c.tenant = ? AND c.thread != ''",
            (*ids, tenant),
        )
        .fetchall()
    )
    return {row[0]: tuple(n for n in row[1:] if n is not None) for row in rows}


def indexed_memories(db: SQLiteDatabase, tenant: str, ids: Sequence[str]) -> list[Candidate]:
    """The live memories with these ids, each with its analyzed index text (score 0)."""
    if not ids:
        return []
    marks = ", ".join("?" * len(ids))
    rows = (
        db.connection()
        .execute(
            f"SELECT {M_COLUMNS}, f.title, f.tags, f.body, f.context FROM memories m"
            " LEFT JOIN memories_fts f ON f.rowid = m.rowid"
            f" WHERE m.id IN ({marks}) AND +m.tenant = ? AND m.deleted_at IS NULL",
            (*ids, tenant),
        )
        .fetchall()
    )
    n = NCOLUMNS
    return [
        Candidate(
            row_to_memory(row),
            0.0,
            None if row[n] is None else IndexText(row[n], row[n + 1], row[n + 2], row[n + 3] or ""),
        )
        for row in rows
    ]
