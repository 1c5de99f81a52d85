"""Which way PostgreSQL reads a keyword search's pool: the GIN index's matches, or newest first.

A step of the keyword search (``PostgresStore.keyword_search``) keeps the newest ``RANK_POOL``
memories matching a tsquery. PostgreSQL can get them two ways:

- ``bitmap``: every match from the GIN index, each read from the table, sorted by
  ``updated_at``. Its cost is the number of matches (a random table read each): fine for a
  query of rare words, growing with the table for common ones;
- ``walk``: the ``(tenant, updated_at DESC)`` index newest first, testing each row against the
  query until the pool is full: ``RANK_POOL / selectivity`` rows, whatever the table's size, in
  the table's own order (cheaper per row). Fine for broad queries, slow for narrow ones.

The planner picks by its estimate of the query's selectivity, and for memwarden's queries that
estimate is often wrong: each query word is searched as several terms (one stem per language,
``'backup' | 'backu'``) that nearly always occur together, and the planner takes them as
independent, so it finds "every word" queries three times broader than they are and walks
dozens of times the rows the GIN index matched, several times slower (docs/performance.md#postgresql).
So the store estimates a step itself from the same statistics (``pg_stats`` keeps the frequency
of the column's most common lexemes), taking a word's alternatives as one (the most frequent of
them) and different words as independent, and tells the planner which way to go. Without
statistics (a database never analyzed) the planner decides, as before.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Literal

from memwarden.models import KeywordQuery

if TYPE_CHECKING:  # pragma: no cover
    import psycopg

Plan = Literal["walk", "bitmap"]
#: A row read through a GIN bitmap (random pages) against a row read walking the recency index
#: (the table's order, several rows a page), as measured (docs/performance.md#postgresql).
BITMAP_ROW_COST = 5.0
#: Statistics are re-read this often (ANALYZE, by autovacuum, changes them slowly).
STATS_TTL_S = 300.0
#: A GIN read is windowed (``window_start``) when at least this many pools of matches are
#: expected; the window holds about WINDOW_MARGIN pools of them, and is not used past this share
#: of the table (a read that large gains little from it).
WINDOW_MIN_POOLS = 4
WINDOW_MARGIN = 2.0
WINDOW_MAX_FRACTION = 0.5
#: The SET LOCAL that leaves the planner only the chosen way.
DISABLE = {"walk": "enable_bitmapscan", "bitmap": "enable_indexscan"}


@dataclass(frozen=True, slots=True)
class LexemeStats:
    """The ``search`` column's most common lexemes and their share of the memories."""

    frequency: dict[str, float]
    rarest: float  # the lowest frequency listed: a lexeme not listed is rarer
    rows: float  # the table's estimated row count
    # ``updated_at``'s histogram: bounds splitting the memories into equal shares, oldest first
    # (empty when most memories share a few times, as the bench's do).
    recency: tuple[datetime, ...] = ()

    def of(self, term: str, prefix: bool) -> float:
        if prefix:
            found = sum(f for lexeme, f in self.frequency.items() if lexeme.startswith(term))
            return min(1.0, max(found, self.rarest / 2))
        return self.frequency.get(term, self.rarest / 2)  # as PostgreSQL's own estimate does


def read_stats(conn: psycopg.Connection) -> LexemeStats | None:
    """The statistics ANALYZE gathered on ``memories.search``; None if it has none yet."""
    row = conn.execute(
        "SELECT s.most_common_elems::text::text[], s.most_common_elem_freqs, c.reltuples,"
        " (SELECT h.histogram_bounds::text::timestamptz[] FROM pg_stats h"
        " WHERE h.schemaname = current_schema() AND h.tablename = 'memories' AND h.attname = 'updated_at')"
        " FROM pg_class c LEFT JOIN pg_stats s ON s.schemaname = current_schema()"
        " AND s.tablename = 'memories' AND s.attname = 'search'"
        " WHERE c.oid = 'memories'::regclass"
    ).fetchone()
    if row is None or not row[0] or not row[1] or row[2] is None or row[2] <= 0:
        return None
    lexemes, freqs, rows, bounds = row
    return LexemeStats(
        dict(zip(lexemes, freqs, strict=False)), float(freqs[len(lexemes)]), float(rows), tuple(bounds or ())
    )


def _groups(query: KeywordQuery) -> Iterable[tuple[str, ...]]:
    return query.groups or tuple((term,) for term in dict.fromkeys(query.terms))


def selectivity(query: KeywordQuery, stats: LexemeStats, *, every_word: bool) -> float:
    """The estimated share of memories matching the step: every word (``every_word``) or any."""
    shares = [
        min(1.0, max(stats.of(term, term in query.prefix) for term in group))
        for group in _groups(query)
        if group
    ]
    if not shares:
        return 0.0
    if every_word:
        product = 1.0
        for share in shares:
            product *= share
        return product
    missing = 1.0
    for share in shares:
        missing *= 1.0 - share
    return 1.0 - missing


def choose(share: float, rows: float, pool: int) -> Plan:
    """``walk`` when reading newest first until ``pool`` matches costs less than every match."""
    if share <= 0:
        return "bitmap"
    walked = min(rows, pool / share)
    return "walk" if walked < share * rows * BITMAP_ROW_COST else "bitmap"


def window_start(share: float, stats: LexemeStats, pool: int) -> datetime | None:
    """Where a step read through the GIN index may start: the ``updated_at`` above which about
    ``WINDOW_MARGIN`` pools of matches are expected, or None (few matches, or no histogram).

    The step then reads only the matches in pages the BRIN index on ``updated_at`` places in the
    window (``BitmapAnd``), so the table reads grow with the pool, not with the table. The caller
    checks that the window held a full pool and reads again without it when it did not: the
    pool is the same either way.
    """
    matches = share * stats.rows
    if len(stats.recency) < 2 or matches < WINDOW_MIN_POOLS * pool:
        return None
    fraction = WINDOW_MARGIN * pool / matches
    if fraction > WINDOW_MAX_FRACTION:
        return None
    last = len(stats.recency) - 1
    return stats.recency[max(0, min(last, int((1.0 - fraction) * last)))]


class KeywordPlanner:
    """Per store: the lexeme statistics, re-read every ``STATS_TTL_S`` seconds."""

    def __init__(self) -> None:
        self._stats: LexemeStats | None = None
        self._read_at = float("-inf")

    def plan(
        self, conn: psycopg.Connection, query: KeywordQuery, *, every_word: bool, pool: int
    ) -> Plan | None:
        """The way to read the step's pool; None leaves it to PostgreSQL (no statistics yet)."""
        return self.read(conn, query, every_word=every_word, pool=pool)[0]

    def read(
        self, conn: psycopg.Connection, query: KeywordQuery, *, every_word: bool, pool: int
    ) -> tuple[Plan | None, datetime | None]:
        """``plan`` and, for a step read through the GIN index, its ``window_start`` (the step's
        selectivity estimated once for both)."""
        now = time.monotonic()
        if now - self._read_at > STATS_TTL_S:
            self._stats, self._read_at = read_stats(conn), now
        stats = self._stats
        if stats is None:
            return None, None
        share = selectivity(query, stats, every_word=every_word)
        chosen = choose(share, stats.rows, pool)
        return chosen, (window_start(share, stats, pool) if chosen == "bitmap" else None)
