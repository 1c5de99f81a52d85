"""The keyword index of the SQLite store (FTS5): its rows, written in the memory's own
transaction; the re-index when the analyzer changes; ranked search and the near-duplicate
candidates.

Plain functions over a connection or the store's ``SQLiteDatabase``. How a query becomes an
FTS5 expression is ``fts.py``; how the hits are ranked for the caller is ``search/ranking.py``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from memwarden.models import Candidate, IndexText, KeywordQuery, Memory, format_time
from memwarden.store.sqlite.database import SQLiteDatabase
from memwarden.store.sqlite.faults import SQLiteFault, describe_fault
from memwarden.store.sqlite.fts import scope_token, scoped_expression, word_expressions
from memwarden.store.sqlite.index_state import put_state
from memwarden.store.sqlite.rows import COLUMNS, M_COLUMNS, NCOLUMNS, memory_filters, row_to_memory
from memwarden.store.unfinished import KEYWORD_REINDEX, marker_value

# bm25 column weights of the keyword index (title, tags, body, context): a word in the title or a
# tag says more about what a memory is about than the same word somewhere in its content; a word
# only in its context (the message it replies to) says less (CONTEXT_WEIGHT, fitted on LoCoMo,
# docs/search.md).
CONTEXT_WEIGHT = 0.35
BM25_WEIGHTS = f"4.0, 2.0, 1.0, {CONTEXT_WEIGHT}"
# How deep keyword_search looks into the index's ranking before one exact (joined) query.
MAX_SCAN = 4_000
# A word found in this many memories or more is "common" (see keyword_search); queries of more
# than 8 words use a proportionally lower bar, never below MIN_COMMON_DOCS, and rank on their
# MAX_RARE_WORDS rarest words.
COMMON_DOCS = 1_000
MIN_COMMON_DOCS = 100
MAX_RARE_WORDS = 16
# A query word that matches fewer memories than this exactly is also matched as a prefix.
PREFIX_BELOW_DOCS = 20
# Memories re-indexed per fetch when the analyzer changed.
REINDEX_BATCH = 500


# -- the index's rows ------------------------------------------------------------------------


def index_row(conn: sqlite3.Connection, rowid: int | None, index: IndexText, memory: Memory) -> None:
    """One row of the keyword index, as a plain single-row ``VALUES`` insert, inside the
    caller's write transaction.

    FTS5 writes its pending terms out as a new segment whenever a statement opens a savepoint,
    and an ``INSERT … SELECT`` (or any statement that fires triggers) does: one segment per row,
    merged again and again, so indexing got slower as the index grew (orders of magnitude slower
    per row than ``VALUES`` in the same transaction: docs/performance.md#storage). Bulk writers
    therefore insert their memories first and index them after (``import_memories``).
    """
    conn.execute(
        "INSERT INTO memories_fts(rowid, title, tags, body, context, scope) VALUES (?, ?, ?, ?, ?, ?)",
        (
            rowid,
            index.title,
            index.tags,
            index.body,
            index.context,
            scope_token(memory.tenant, memory.project),
        ),
    )


def index_fingerprint(conn: sqlite3.Connection) -> str | None:
    """The analyzer the index was built by (None before the first build)."""
    row = conn.execute("SELECT value FROM index_state WHERE key = 'analyzer'").fetchone()
    return None if row is None else str(row[0])


def ensure_index(
    db: SQLiteDatabase,
    fingerprint: str,
    index_for: Callable[[Memory], IndexText],
    progress: Callable[[int, int], None] | None,
) -> int:
    """Re-index every live memory unless ``fingerprint`` built the index; see ``Store.ensure_index``."""
    if index_fingerprint(db.connection()) == fingerprint:
        return 0
    # Marked first, in its own commit; the re-index below removes the mark in its transaction.
    put_state(db, KEYWORD_REINDEX, marker_value("reindex-keywords", analyzer=fingerprint))
    with db.write() as conn:
        # Re-read under the write lock: another process may have just done it.
        row = conn.execute("SELECT value FROM index_state WHERE key = 'analyzer'").fetchone()
        if row is not None and row[0] == fingerprint:
            conn.execute("DELETE FROM index_state WHERE key = ?", (KEYWORD_REINDEX,))
            return 0
        total = conn.execute("SELECT COUNT(*) FROM memories WHERE deleted_at IS NULL").fetchone()[0]
        conn.execute("DELETE FROM memories_fts")
        cursor = conn.execute(
            f"SELECT rowid, {COLUMNS} FROM memories WHERE deleted_at IS NULL ORDER BY rowid"
        )
        done = 0
        while batch := cursor.fetchmany(REINDEX_BATCH):
            for row in batch:
                memory = row_to_memory(row[1:])
                index_row(conn, row[0], index_for(memory), memory)
            done += len(batch)
            if progress is not None:
                progress(done, total)
        conn.execute(
            "INSERT INTO index_state(key, value) VALUES ('analyzer', ?)"
            " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (fingerprint,),
        )
        conn.execute("DELETE FROM index_state WHERE key = ?", (KEYWORD_REINDEX,))
    return int(total)


def index_agrees(conn: sqlite3.Connection) -> bool:
    """True when the keyword index holds exactly the live memories (a consistency check)."""
    live = conn.execute("SELECT COUNT(*) FROM memories WHERE deleted_at IS NULL").fetchone()[0]
    indexed = conn.execute("SELECT COUNT(*) FROM memories_fts").fetchone()[0]
    orphans = conn.execute(
        "SELECT COUNT(*) FROM memories_fts f LEFT JOIN memories m ON m.rowid = f.rowid"
        " WHERE m.rowid IS NULL OR m.deleted_at IS NOT NULL"
    ).fetchone()[0]
    return bool(live == indexed and orphans == 0)


# -- search ----------------------------------------------------------------------------------


def keyword_search(
    db: SQLiteDatabase,
    tenant: str,
    query: KeywordQuery,
    *,
    project: str | None,
    tags: Sequence[str],
    include_expired: bool,
    now: datetime,
    limit: int,
) -> list[Candidate]:
    """Live memories matching any word of ``query``, best first; see ``Store.keyword_search``."""
    words = word_expressions(query)
    if not words:
        return []
    where, params = memory_filters(project, tags, include_expired, now)
    scope = scope_token(tenant, project)
    conn = db.connection()
    try:
        # How common is each word? Counting stops at a cap, so this costs little even for
        # words found in most memories; long queries (a whole prompt) get a lower cap and
        # keep only their rarest words, so their cost stays bounded too.
        cap = max(MIN_COMMON_DOCS, COMMON_DOCS * 8 // max(8, len(words)))
        chosen: list[tuple[int, int, str]] = []
        for i, (exact, wide) in enumerate(words):
            count = _count_capped(conn, scoped_expression(exact, scope), cap)
            # Prefixes only where the exact word finds little: there they add recall
            # ("time" → "timezone"); where it already finds plenty they add noise and cost.
            if wide is not None and count < PREFIX_BELOW_DOCS:
                exact, count = wide, _count_capped(conn, scoped_expression(wide, scope), cap)
            chosen.append((count, i, exact))
        chosen.sort()
        words_used = [w for _, _, w in sorted(chosen, key=lambda c: c[1])]
        # A word no memory holds selects nothing: it must not take a rare word's place.
        rare = [w for count, _, w in chosen if 0 < count < cap][:MAX_RARE_WORDS]
        if rare:
            scores, rows = _rank_rare(
                conn, scoped_expression(" OR ".join(rare), scope), tenant, where, params, limit
            )
        else:
            scores, rows = _rank_common(conn, words_used, scope, tenant, where, params, limit)
    except sqlite3.OperationalError as exc:
        raise SQLiteFault(f"keyword search failed: {describe_fault(db.path, exc)}") from exc
    rows.sort(key=lambda row: (scores[row[0]], row[0]))
    n = NCOLUMNS + 1
    return [
        Candidate(
            row_to_memory(row[1:n]),
            -float(scores[row[0]]),
            IndexText(row[n], row[n + 1], row[n + 2], row[n + 3] or ""),
        )
        for row in rows[:limit]
    ]


def near_duplicate_candidates(
    db: SQLiteDatabase, tenant: str, query: KeywordQuery, *, project: str, now: datetime, limit: int
) -> list[tuple[str, str, str | None]]:
    """(id, content, analyzed content) of the memories most like ``query`` in ``project``."""
    words = [exact for exact, _ in word_expressions(query)]
    if not words:
        return []
    match = scoped_expression(" OR ".join(words), scope_token(tenant, project))
    # One statement: the newest COMMON_DOCS matches of the scope (a doclist walk that stops
    # there), the best ``limit`` of them by bm25, and only the columns the check reads.
    sql = (
        "SELECT m.id, m.content, f.body FROM ("
        f" SELECT rowid, r FROM (SELECT rowid, bm25(memories_fts, {BM25_WEIGHTS}, 0.0) AS r"
        "  FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid DESC LIMIT ?)"
        "  ORDER BY r LIMIT ?) k"
        " JOIN memories m ON m.rowid = k.rowid JOIN memories_fts f ON f.rowid = k.rowid"
        " WHERE +m.tenant = ? AND m.project = ? AND m.deleted_at IS NULL"
        " AND (m.expires_at IS NULL OR m.expires_at > ?) ORDER BY k.r, m.rowid"
    )
    try:
        rows = (
            db.connection()
            .execute(sql, (match, COMMON_DOCS, limit, tenant, project, format_time(now)))
            .fetchall()
        )
    except sqlite3.OperationalError as exc:
        raise SQLiteFault(f"near-duplicate check failed: {describe_fault(db.path, exc)}") from exc
    return [(row[0], row[1], row[2] or "") for row in rows]


def _count_capped(conn: sqlite3.Connection, match: str, cap: int) -> int:
    return len(
        conn.execute(
            "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rowid DESC LIMIT ?",
            (match, cap),
        ).fetchall()
    )


def _rank_rare(
    conn: sqlite3.Connection, match: str, tenant: str, where: str, params: list[Any], limit: int
) -> tuple[dict[int, float], list[Any]]:
    """bm25 over the memories holding at least one of the query's rarer words.

    Common words (in COMMON_DOCS memories or more) say little about which memory is meant
    and would make the index score thousands of rows; they still count in the ranking's
    coverage, which reads each candidate's analyzed text. The index ranks alone (cheap),
    then only the best rows are read and filtered; when the filters (tenant, expiry, tags)
    leave too few, it looks deeper, and past MAX_SCAN one exact joined query decides.
    """
    scan = max(limit, 1)
    while True:
        ranked = conn.execute(
            f"SELECT rowid, bm25(memories_fts, {BM25_WEIGHTS}, 0.0) AS r FROM memories_fts"
            " WHERE memories_fts MATCH ? ORDER BY r LIMIT ?",
            (match, scan),
        ).fetchall()
        rows = _candidate_rows(conn, [r[0] for r in ranked], tenant, where, params)
        if len(rows) >= limit or len(ranked) < scan:
            return dict(ranked), rows
        if scan >= MAX_SCAN:
            exact = dict(
                conn.execute(
                    f"SELECT m.rowid, bm25(memories_fts, {BM25_WEIGHTS}, 0.0) AS r"
                    " FROM memories_fts JOIN memories m ON m.rowid = memories_fts.rowid"
                    f" WHERE memories_fts MATCH ? AND m.tenant = ? AND m.deleted_at IS NULL{where}"
                    " ORDER BY r LIMIT ?",
                    (match, tenant, *params, limit),
                ).fetchall()
            )
            return exact, _candidate_rows(conn, list(exact), tenant, where, params)
        scan = min(MAX_SCAN, scan * 4)


def _rank_common(
    conn: sqlite3.Connection,
    words: list[str],
    scope: str | None,
    tenant: str,
    where: str,
    params: list[Any],
    limit: int,
) -> tuple[dict[int, float], list[Any]]:
    """Every word is common: score the newest COMMON_DOCS memories holding all of them, then,
    if that is too few, the newest holding any of them.

    Scoring every match would mean thousands of rows per query; the newest ones are the
    ones the ranking's recency favours anyway, so the window loses little.
    """
    scores: dict[int, float] = {}
    for match in (" AND ".join(words), " OR ".join(words)):
        window = conn.execute(
            f"SELECT rowid, bm25(memories_fts, {BM25_WEIGHTS}, 0.0) FROM memories_fts"
            " WHERE memories_fts MATCH ? ORDER BY rowid DESC LIMIT ?",
            (scoped_expression(match, scope), COMMON_DOCS),
        ).fetchall()
        for rowid, score in window:
            scores.setdefault(rowid, score)
        best = sorted(scores, key=lambda rowid: scores[rowid])[: max(limit, 1) * 4]
        rows = _candidate_rows(conn, best, tenant, where, params)
        if len(rows) >= limit or len(words) == 1:
            break
    return scores, rows


def _candidate_rows(
    conn: sqlite3.Connection, rowids: list[int], tenant: str, where: str, params: list[Any]
) -> list[Any]:
    """The live rows among ``rowids`` that pass the filters, each followed by its analyzed text.

    ``+m.tenant`` keeps SQLite on the rowid lookups: with a plain ``m.tenant = ?`` it may
    prefer the tenant index and read every memory of the tenant.
    """
    if not rowids:
        return []
    marks = ", ".join("?" * len(rowids))
    rows = conn.execute(
        f"SELECT m.rowid, {M_COLUMNS} FROM memories m"
        f" WHERE m.rowid IN ({marks}) AND +m.tenant = ? AND m.deleted_at IS NULL{where}",
        (*rowids, tenant, *params),
    ).fetchall()
    if not rows:
        return []
    marks = ", ".join("?" * len(rows))
    texts = {
        r[0]: r[1:]
        for r in conn.execute(
            f"SELECT rowid, title, tags, body, context FROM memories_fts WHERE rowid IN ({marks})",
            [r[0] for r in rows],
        )
    }
    return [(*row, *texts.get(row[0], ("", "", "", ""))) for row in rows]
