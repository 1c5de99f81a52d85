"""The in-process vector index of the SQLite backend: exact float32 search, HNSW past a size.

SQLite holds the truth (``memory_vectors``); this index is a cache of one space (model id +
dimension) that catches up before every search with what changed since its watermarks, so rows
written by other processes (another stdio server, the CLI, a hook) are found, at a cost that
follows the change and not the database:

- new or replaced vectors: ``seq`` only grows, so the index reads ``seq > last seen``;
- removed vectors (deleted or edited memories): each removal is a row of ``vector_removals``
  naming the removed vector's seq, so the index reads ``removal seq > last seen`` and tombstones
  those slots (an index that lags behind a trimmed log re-reads the ids once).

A search scores a scope (tenant, project) exactly from its own rows when the scope holds at most
``SCOPE_EXACT_MAX`` vectors, or when the whole space holds at most ``exact_max``. Past that an
HNSW graph (usearch, int8, cosine) over slots ``[0, graph_size)`` proposes candidates, rescored
exactly in float32, and the slots added since the graph was built are scored exactly; the
background (``maintain``) extends the graph, compacts tombstones and writes the snapshot that
the next start maps instead of reading every vector back (``vector_snapshot.py``).
``bench/vector_recall.py`` measures recall against exact search.
"""

from __future__ import annotations

import logging
import math
import sqlite3
import threading
from pathlib import Path
from typing import Any

from memwarden.store.sqlite.vector_slots import SpaceState

logger = logging.getLogger(__name__)

#: A scope (tenant, or tenant + project) of at most this many vectors is scored exactly.
SCOPE_EXACT_MAX = 20_000
#: HNSW proposes this many candidates per wanted hit (divided by the scope's share of the space).
APPROX_OVERFETCH = 8
#: ... but never more than this many per search.
MAX_CANDIDATES = 4_096
#: Rows read from SQLite per chunk while catching up.
READ_CHUNK = 4096
#: Slots past the graph that are scored exactly before the background extends the graph.
GRAPH_DELTA_MAX = 20_000
#: Compact (rebuild from the database, in the background) when this share of slots are tombstones.
COMPACT_SHARE = 0.2
#: Removal log rows kept behind the newest; an index further behind re-reads the ids once.
REMOVALS_KEPT = 100_000

_BLAS_LIMITED = False


def _single_threaded_blas() -> None:
    """One BLAS thread for the dot products: a matrix-vector product is memory-bound, and
    OpenBLAS's spinning worker threads on a busy machine made small searches many times slower
    (bench/vector_recall.py shows it). Searches run concurrently instead."""
    global _BLAS_LIMITED
    if not _BLAS_LIMITED:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1, user_api="blas")
        _BLAS_LIMITED = True


def new_graph(dim: int) -> Any:
    from usearch.index import Index

    # int8 keeps the graph's own copy of the vectors at a quarter of float32's size;
    # candidates are rescored in float32, so the quantisation costs no precision in the result.
    return Index(ndim=dim, metric="cos", dtype="i8", connectivity=16, expansion_add=128, expansion_search=96)


class VectorSpaceIndex:
    """Vectors of one space, with tenant and project codes per slot for filtering."""

    def __init__(self, model: str, dim: int, *, exact_max: int, snapshot_dir: Path | None = None) -> None:
        _single_threaded_blas()
        self.model = model
        self.dim = dim
        self.exact_max = exact_max
        self.snapshot_dir = snapshot_dir
        self.scope_exact_max = SCOPE_EXACT_MAX
        self._lock = threading.Lock()
        self._maintaining = threading.Lock()
        self._state: SpaceState | None = None

    # -- keeping up with the database ---------------------------------------------------------

    def _read_rows(self, state: SpaceState, conn: sqlite3.Connection) -> None:
        """Apply rows newer than the state's watermark in chunks (never all bytes at once)."""
        cursor = conn.execute(
            "SELECT v.seq, v.memory_rowid, m.tenant, m.project, v.vector FROM memory_vectors v"
            " JOIN memories m ON m.rowid = v.memory_rowid"
            " WHERE v.model = ? AND v.dim = ? AND v.seq > ? ORDER BY v.seq",
            (self.model, self.dim, state.last_seq),
        )
        while rows := cursor.fetchmany(READ_CHUNK):
            state.apply_rows(rows, self.dim)

    def _read_removals(self, state: SpaceState, conn: sqlite3.Connection) -> None:
        import numpy as np

        pruned = conn.execute("SELECT pruned_through FROM vector_clock WHERE id = 1").fetchone()[0]
        if state.last_removal < pruned:
            # The log no longer reaches back to this index's watermark: compare ids once.
            present = np.fromiter(
                (
                    r[0]
                    for r in conn.execute(
                        "SELECT seq FROM memory_vectors WHERE model = ? AND dim = ?", (self.model, self.dim)
                    )
                ),
                dtype=np.int64,
            )
            have = state.columns.seq[: state.size]
            state.tombstone(np.flatnonzero(~np.isin(have, present)))
            state.last_removal = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM vector_removals").fetchone()[
                0
            ]
            return
        rows = conn.execute(
            "SELECT seq, vector_seq FROM vector_removals WHERE seq > ? ORDER BY seq", (state.last_removal,)
        ).fetchall()
        if rows:
            state.tombstone(state.columns.slot_of_seq([r[1] for r in rows]))
            state.last_removal = rows[-1][0]

    def _load(self, conn: sqlite3.Connection) -> SpaceState:
        """A fresh state: from the snapshot file when one matches the database, else from SQLite."""
        from memwarden.store.sqlite import vector_snapshot

        state = None
        if self.snapshot_dir is not None:
            state = vector_snapshot.load(self.snapshot_dir, self.model, self.dim, conn)
        if state is None:
            state = SpaceState(self.dim)
            state.last_removal = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM vector_removals").fetchone()[
                0
            ]
        return state

    def refresh(self, conn: sqlite3.Connection) -> None:
        """Catch up with the database: a few indexed reads plus what changed since last time."""
        with self._lock:
            # All reads in one snapshot, so a removal and an insert seen together stay in order.
            conn.execute("BEGIN")
            try:
                state = self._state
                if state is None:
                    state = self._load(conn)
                newest = conn.execute("SELECT MAX(seq) FROM memory_vectors").fetchone()[0] or 0
                if newest > state.last_seq:
                    self._read_rows(state, conn)
                    state.last_seq = max(state.last_seq, newest)
                last_removal = conn.execute("SELECT MAX(seq) FROM vector_removals").fetchone()[0] or 0
                if last_removal > state.last_removal:
                    self._read_removals(state, conn)
                self._state = state
            finally:
                conn.execute("COMMIT")

    # -- searching -----------------------------------------------------------------------------

    @property
    def live(self) -> int:
        return 0 if self._state is None else self._state.live

    def search(self, query: Any, tenant: str, project: str | None, limit: int) -> list[tuple[int, float]]:
        """``(memory_rowid, cosine)`` of the nearest live vectors of this scope, best first."""
        import numpy as np

        with self._lock:
            state = self._state
            if state is None or not state.live or limit <= 0:
                return []
            size = state.size
            tenant_code = state.codes.get(tenant)
            project_code = None if project is None else state.codes.get(project)
            if tenant_code is None or (project is not None and project_code is None):
                return []
            mask = state.columns.tenant[:size] == tenant_code
            if project_code is not None:
                mask &= state.columns.project[:size] == project_code
            in_scope = int(np.count_nonzero(mask))
            if not in_scope:
                return []
            q = np.asarray(query, dtype=np.float32).reshape(-1)
            if state.graph is None or state.live <= self.exact_max or in_scope <= self.scope_exact_max:
                slots, scores = self._exact(state, q, mask, in_scope)
            else:
                slots, scores = self._approximate(state, q, mask, in_scope, limit)
            k = min(limit, len(slots))
            if k <= 0:
                return []
            top = np.argpartition(-scores, k - 1)[:k]
            top = top[np.argsort(-scores[top])]
            rowids = state.columns.rowid
            return [(int(rowids[slots[i]]), float(scores[i])) for i in top]

    @staticmethod
    def _exact(state: SpaceState, q: Any, mask: Any, in_scope: int) -> tuple[Any, Any]:
        """Every vector of the scope scored: its own rows when it is a small part of the space
        (a 1,000-memory project of a 1M space costs 1,000 dot products), else all rows masked."""
        import numpy as np

        slots = np.flatnonzero(mask)
        if in_scope * 4 < state.size:
            return slots, state.matrix.rows(slots) @ q
        return slots, state.matrix.scores(q, 0, state.size)[slots]

    @staticmethod
    def _approximate(state: SpaceState, q: Any, mask: Any, in_scope: int, limit: int) -> tuple[Any, Any]:
        """HNSW candidates of the graph's slots plus every newer slot, rescored in float32.

        The graph knows nothing of scopes, so it is asked for more candidates the smaller the
        scope's share of the space (scopes under SCOPE_EXACT_MAX never come here)."""
        import numpy as np

        share = in_scope / state.size
        wanted = min(MAX_CANDIDATES, math.ceil(limit * APPROX_OVERFETCH / share))
        keys = np.asarray(state.graph.search(q, wanted).keys, dtype=np.int64)
        keys = keys[(keys >= 0) & (keys < state.graph_size)]
        slots = [keys[mask[keys]]]
        if state.size > state.graph_size:
            slots.append(state.graph_size + np.flatnonzero(mask[state.graph_size : state.size]))
        found = np.concatenate(slots)
        return found, state.matrix.rows(found) @ q

    # -- background work -----------------------------------------------------------------------

    def needs_graph(self) -> bool:
        state = self._state
        return state is not None and state.live > self.exact_max

    def maintain(self, conn_for: Any) -> None:
        """Background upkeep, at most one at a time: build or extend the HNSW graph, compact
        tombstones, trim the removal log, write the snapshot. Searches go on meanwhile; each step
        swaps its result in under the lock."""
        if not self._maintaining.acquire(blocking=False):
            return
        try:
            self._maintain(conn_for)
        finally:
            self._maintaining.release()

    def _maintain(self, conn_for: Any) -> None:
        from memwarden.store.sqlite import vector_snapshot

        conn = conn_for()
        self.refresh(conn)
        state = self._state
        assert state is not None
        if state.size and (state.size - state.live) / state.size > COMPACT_SHARE:
            fresh = SpaceState(self.dim)
            conn.execute("BEGIN")
            try:
                fresh.last_removal = conn.execute(
                    "SELECT COALESCE(MAX(seq), 0) FROM vector_removals"
                ).fetchone()[0]
                self._read_rows(fresh, conn)
            finally:
                conn.execute("COMMIT")
            if fresh.live > self.exact_max:
                self._extend_graph(fresh)
            with self._lock:
                self._state = fresh
            self.refresh(conn)
            state = fresh
        elif state.live > self.exact_max and state.size - state.graph_size > (
            0 if state.graph is None else GRAPH_DELTA_MAX
        ):
            self._extend_graph(state)
        _trim_removals(conn)
        if self.snapshot_dir is not None:
            vector_snapshot.save_if_behind(self.snapshot_dir, self.model, self.dim, state, self._lock)

    def _extend_graph(self, state: SpaceState) -> None:
        """Add slots ``[graph_size, size)`` to a copy of the graph, then swap it in."""
        import numpy as np
        from usearch.index import Index

        with self._lock:
            start, stop, graph, graph_file = state.graph_size, state.size, state.graph, state.graph_file
        if graph is None:
            extended = new_graph(self.dim)
        elif graph_file is not None:
            extended = Index.restore(str(graph_file), view=False)
        else:
            extended = graph.copy()
        for first, rows in state.matrix.segments(start, stop, transient=True):
            extended.add(np.arange(first, first + len(rows), dtype=np.uint64), rows, threads=2)
        with self._lock:
            state.graph, state.graph_size, state.graph_file = extended, stop, None

    def warm(self, conn_for: Any) -> None:
        """What the first search would otherwise wait for: the graph past exact_max."""
        state = self._state
        if state is not None and state.live > self.exact_max and state.graph is None:
            self.maintain(conn_for)


def _trim_removals(conn: sqlite3.Connection) -> None:
    newest = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM vector_removals").fetchone()[0]
    oldest = conn.execute("SELECT MIN(seq) FROM vector_removals").fetchone()[0]
    if oldest is None or newest - oldest < 2 * REMOVALS_KEPT:
        return
    cut = newest - REMOVALS_KEPT
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("DELETE FROM vector_removals WHERE seq <= ?", (cut,))
        conn.execute("UPDATE vector_clock SET pruned_through = MAX(pruned_through, ?) WHERE id = 1", (cut,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
