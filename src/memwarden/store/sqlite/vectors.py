"""The in-process vector index of the SQLite backend: exact float32 search, HNSW past a size.

SQLite holds the truth (``memory_vectors``); this index is a cache of one space (model id +
dimension) that catches up before every search, so rows written by other processes (another
stdio server, the CLI, a hook) are found:

- new or replaced vectors: ``seq`` only grows, so the index reads ``seq > last seen``;
- removed vectors (deleted or edited memories): a trigger bumps ``vector_clock.removals``; the
  index then reads the live row ids of its space and tombstones the slots that are gone.

Search is an exact dot product over unit vectors (numpy, float32) up to ``exact_max`` live
vectors. Past that an HNSW graph (usearch, cosine, float32) proposes candidates that are
rescored exactly; ``bench/vector_recall.py`` measures its recall against exact search.
numpy and usearch are imported inside methods: opening a store never loads them.
"""

from __future__ import annotations

import sqlite3
import threading
from typing import Any

#: Live vectors are stored in rows of a preallocated matrix grown by this factor.
GROWTH = 1.25
#: HNSW proposes this many candidates per wanted hit before exact rescoring.
APPROX_OVERFETCH = 8
#: Rows read from SQLite per chunk while catching up.
READ_CHUNK = 4096
#: Rebuild (compact) when this share of slots are tombstones.
COMPACT_SHARE = 0.2


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


class VectorSpaceIndex:
    """Vectors of one space, with tenant and project codes per slot for filtering."""

    def __init__(self, model: str, dim: int, *, exact_max: int) -> None:
        _single_threaded_blas()
        self.model = model
        self.dim = dim
        self.exact_max = exact_max
        self._lock = threading.Lock()
        self._loaded = False
        self._last_seq = -1
        self._removals = -1
        self._size = 0
        self._live = 0
        self._matrix: Any = None
        self._tenant: Any = None
        self._project: Any = None
        self._rowid: Any = None
        self._slot_of: dict[int, int] = {}
        self._codes: dict[str, int] = {}
        self._hnsw: Any = None
        self._hnsw_size = 0

    # -- keeping up with the database ---------------------------------------------------------

    def _code(self, name: str) -> int:
        code = self._codes.get(name)
        if code is None:
            code = self._codes[name] = len(self._codes)
        return code

    def _ensure_capacity(self, wanted: int) -> None:
        import numpy as np

        capacity = 0 if self._matrix is None else self._matrix.shape[0]
        if wanted <= capacity:
            return
        new_capacity = max(wanted, int(capacity * GROWTH), 1024)
        matrix = np.zeros((new_capacity, self.dim), dtype=np.float32)
        tenant = np.full(new_capacity, -1, dtype=np.int32)
        project = np.full(new_capacity, -1, dtype=np.int32)
        rowid = np.full(new_capacity, -1, dtype=np.int64)
        if self._matrix is not None:
            matrix[: self._size] = self._matrix[: self._size]
            tenant[: self._size] = self._tenant[: self._size]
            project[: self._size] = self._project[: self._size]
            rowid[: self._size] = self._rowid[: self._size]
        self._matrix, self._tenant, self._project, self._rowid = matrix, tenant, project, rowid

    def _apply(self, rows: list[tuple[int, int, str, str, bytes]]) -> None:
        import numpy as np

        self._ensure_capacity(self._size + len(rows))
        for seq, memory_rowid, tenant, project, blob in rows:
            vector = np.frombuffer(blob, dtype=np.float32)
            if vector.shape[0] != self.dim:
                continue  # a row claiming this space with another size is ignored, never compared
            slot = self._slot_of.get(memory_rowid)
            if slot is None:
                slot = self._size
                self._size += 1
                self._live += 1
                self._slot_of[memory_rowid] = slot
            self._matrix[slot] = vector
            self._tenant[slot] = self._code(tenant)
            self._project[slot] = self._code(project)
            self._rowid[slot] = memory_rowid
            self._last_seq = max(self._last_seq, seq)

    def _read_rows(self, conn: sqlite3.Connection, after_seq: int) -> None:
        """Apply rows newer than ``after_seq`` in chunks: loading 100k vectors never holds all
        their bytes objects at once next to the matrix (that doubled the resident memory)."""
        cursor = conn.execute(
            "SELECT v.seq, v.memory_rowid, m.tenant, m.project, v.vector FROM memory_vectors v"
            " JOIN memories m ON m.rowid = v.memory_rowid"
            " WHERE v.model = ? AND v.dim = ? AND v.seq > ? ORDER BY v.seq",
            (self.model, self.dim, after_seq),
        )
        while rows := cursor.fetchmany(READ_CHUNK):
            self._apply(rows)

    def _drop_removed(self, conn: sqlite3.Connection) -> None:
        present = {
            row[0]
            for row in conn.execute(
                "SELECT memory_rowid FROM memory_vectors WHERE model = ? AND dim = ?", (self.model, self.dim)
            )
        }
        for memory_rowid in [r for r in self._slot_of if r not in present]:
            slot = self._slot_of.pop(memory_rowid)
            self._tenant[slot] = -1
            self._rowid[slot] = -1
            self._live -= 1
        if self._size and (self._size - self._live) / self._size > COMPACT_SHARE:
            self._reset()

    def _reset(self) -> None:
        self._loaded = False
        self._last_seq = -1
        self._size = self._live = 0
        self._matrix = self._tenant = self._project = self._rowid = None
        self._slot_of.clear()
        self._hnsw = None
        self._hnsw_size = 0

    def refresh(self, conn: sqlite3.Connection) -> None:
        """Catch up with the database (cheap when nothing changed: two indexed reads)."""
        with self._lock:
            # Both reads in one snapshot, so a removal and an insert seen together stay in order.
            conn.execute("BEGIN")
            try:
                removals = conn.execute("SELECT removals FROM vector_clock WHERE id = 1").fetchone()[0]
                newest = conn.execute("SELECT MAX(seq) FROM memory_vectors").fetchone()[0] or 0
                if self._loaded and removals != self._removals:
                    self._drop_removed(conn)
                if not self._loaded:
                    count = conn.execute(
                        "SELECT COUNT(*) FROM memory_vectors WHERE model = ? AND dim = ?", (self.model, self.dim)
                    ).fetchone()[0]
                    self._ensure_capacity(count)
                if newest > self._last_seq:
                    self._read_rows(conn, self._last_seq)
                    self._last_seq = max(self._last_seq, newest)
                self._removals = removals
                self._loaded = True
            finally:
                conn.execute("COMMIT")

    # -- searching -----------------------------------------------------------------------------

    @property
    def live(self) -> int:
        return self._live

    def _mask(self, tenant: str, project: str | None) -> Any:
        tenant_code = self._codes.get(tenant)
        if tenant_code is None:
            return None
        mask = self._tenant[: self._size] == tenant_code
        if project is not None:
            project_code = self._codes.get(project)
            if project_code is None:
                return None
            mask &= self._project[: self._size] == project_code
        return mask

    def search(self, query: Any, tenant: str, project: str | None, limit: int) -> list[tuple[int, float]]:
        """``(memory_rowid, cosine)`` of the nearest live vectors of this tenant, best first."""
        import numpy as np

        with self._lock:
            if not self._live:
                return []
            mask = self._mask(tenant, project)
            if mask is None:
                return []
            q = np.asarray(query, dtype=np.float32).reshape(-1)
            if self._live > self.exact_max:
                found = self._approximate(q, mask, limit)
                if found is not None:
                    return found
            scores = self._matrix[: self._size] @ q
            scores[~mask] = -np.inf
            k = min(limit, int(mask.sum()))
            if k <= 0:
                return []
            top = np.argpartition(-scores, k - 1)[:k]
            top = top[np.argsort(-scores[top])]
            return [(int(self._rowid[i]), float(scores[i])) for i in top]

    def _approximate(self, q: Any, mask: Any, limit: int) -> list[tuple[int, float]] | None:
        """HNSW candidates rescored exactly; None (use exact) when filtering left too few."""
        import numpy as np

        index = self._graph()
        matches = index.search(q, limit * APPROX_OVERFETCH)
        slots = np.asarray(matches.keys, dtype=np.int64)
        slots = slots[(slots >= 0) & (slots < self._size)]
        slots = slots[mask[slots]]
        if len(slots) < min(limit, int(mask.sum())):
            return None
        scores = self._matrix[slots] @ q
        order = np.argsort(-scores)[:limit]
        return [(int(self._rowid[slots[i]]), float(scores[i])) for i in order]

    def _graph(self) -> Any:
        """The HNSW graph over slots, extended with slots added since it was built."""
        import numpy as np
        from usearch.index import Index

        if self._hnsw is None:
            self._hnsw = Index(ndim=self.dim, metric="ip", dtype="f32", connectivity=16,
                               expansion_add=128, expansion_search=96)
            self._hnsw_size = 0
        if self._hnsw_size < self._size:
            keys = np.arange(self._hnsw_size, self._size, dtype=np.uint64)
            self._hnsw.add(keys, self._matrix[self._hnsw_size : self._size], threads=2)
            self._hnsw_size = self._size
        return self._hnsw

    def warm(self) -> None:
        """Build what the first search would otherwise build (the HNSW graph past exact_max)."""
        with self._lock:
            if self._live > self.exact_max:
                self._graph()
