"""Where the SQLite backend's in-process vector index keeps its vectors: one row per slot.

Slots only ever grow: a vector is appended once and never changed (an edited memory gets a new
slot and its old one becomes a tombstone), so a search can score rows while the background adds
more, and the HNSW graph over slots ``[0, n)`` stays true for those slots forever.

``SlotMatrix`` holds the float32 rows as a read-only base (a snapshot file, see
``vector_snapshot.py`` and ``FileRows``) followed by blocks of ``BLOCK_ROWS`` rows in memory:
growing never copies what is there (the old preallocated matrix was grown by 1.25x and copied,
so one add at 1M memories briefly held both copies). ``SlotColumns`` holds what each slot is (memory
rowid, the vector's ``seq``, tenant and project codes); these are small (a few integers a slot) and
grow by doubling. numpy is imported inside methods: opening a store never loads it.
"""

from __future__ import annotations

import mmap
import os
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: Rows per in-memory block (65,536 rows of float32 at the model's dimension).
BLOCK_ROWS = 65_536
#: A tombstoned slot's tenant code: no tenant matches it.
TOMBSTONE = -1


class FileRows:
    """The float32 rows of a snapshot file: mapped for scans, read with ``pread`` for picks.

    A search past the exact size rescores a few hundred rows picked by the HNSW graph, a
    different few hundred each time. Read through the mapping, every 4 KiB page such a row
    lies on stayed mapped into the process: after a few hundred searches at 1M memories most of
    the matrix file and the graph counted as the server's resident memory (issue 21). Picks
    are read with ``pread`` instead, so those pages stay in the kernel's page cache, shared and
    reclaimable, and never in the process. Scans (exact search of a space of at most
    ``vector_exact_max`` vectors, the background's graph building) go through the mapping;
    ``release`` unmaps a range the background has finished with.
    """

    def __init__(self, path: Path, rows: int, dim: int) -> None:
        import numpy as np

        self.path = path
        self.rows = rows
        self.dim = dim
        self.row_bytes = dim * 4
        self._fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        # Closed with this object (an unlinked snapshot file stays readable while it is open).
        weakref.finalize(self, os.close, self._fd)
        size = rows * self.row_bytes
        if os.fstat(self._fd).st_size < size:
            raise ValueError(f"{path.name} holds fewer than {rows} rows")
        self._map = mmap.mmap(self._fd, size, access=mmap.ACCESS_READ) if size else None
        self.array = (
            np.frombuffer(self._map, dtype=np.float32).reshape(rows, dim)
            if self._map is not None
            else np.empty((0, dim), dtype=np.float32)
        )

    def take(self, slots: Any) -> Any:
        """The rows of these slots (each ``< rows``), copied in the order given, by ``pread``."""
        import numpy as np

        if not hasattr(os, "pread"):  # Windows: no pread; read through the mapping
            return self.array[np.asarray(slots, dtype=np.int64)]
        fd, width = self._fd, self.row_bytes
        data = b"".join([os.pread(fd, width, int(slot) * width) for slot in slots])
        if len(data) != len(slots) * width:
            raise OSError(f"{self.path.name} was cut short while being read")
        return np.frombuffer(data, dtype=np.float32).reshape(len(slots), self.dim)

    def release(self, start: int, stop: int) -> None:
        """Unmap the pages of rows ``[start, stop)`` from this process (the page cache keeps them)."""
        if self._map is None or not hasattr(mmap, "MADV_DONTNEED"):
            return
        page = mmap.PAGESIZE
        first = (start * self.row_bytes) // page * page
        end = min(len(self._map), -(-(stop * self.row_bytes) // page) * page)
        if end > first:
            self._map.madvise(mmap.MADV_DONTNEED, first, end - first)


class SlotMatrix:
    """float32 rows by slot: ``base`` (rows ``[0, base.rows)``, read-only) then memory blocks."""

    def __init__(self, dim: int, base: FileRows | None = None) -> None:
        self.dim = dim
        self.base = base
        self.base_rows = 0 if base is None else base.rows
        self.blocks: list[Any] = []
        self.size = self.base_rows

    def append(self, vectors: Any) -> int:
        """Add rows at the end; returns the first new slot."""
        import numpy as np

        first = self.size
        done = 0
        while done < len(vectors):
            used = (self.size - self.base_rows) % BLOCK_ROWS
            if used == 0:
                self.blocks.append(np.empty((BLOCK_ROWS, self.dim), dtype=np.float32))
            take = min(BLOCK_ROWS - used, len(vectors) - done)
            self.blocks[-1][used : used + take] = vectors[done : done + take]
            done += take
            self.size += take
        return first

    def segments(self, start: int, stop: int, *, transient: bool = False) -> Iterator[tuple[int, Any]]:
        """``(first slot, rows)`` views covering slots ``[start, stop)`` without copying.

        ``transient``: a one-off pass (the background building a graph or writing a snapshot);
        the base is walked a block at a time and each block unmapped once the caller is done
        with it, so the pass leaves no file pages in the process's resident memory."""
        stop = min(stop, self.size)
        if start < self.base_rows and self.base is not None:
            end = min(stop, self.base_rows)
            step = BLOCK_ROWS if transient else end - start
            while start < end:
                upto = min(end, start + step)
                yield start, self.base.array[start:upto]
                if transient:
                    self.base.release(start, upto)
                start = upto
        while start < stop:
            block, offset = divmod(start - self.base_rows, BLOCK_ROWS)
            end = min(stop, start + BLOCK_ROWS - offset)
            yield start, self.blocks[block][offset : offset + end - start]
            start = end

    def rows(self, slots: Any) -> Any:
        """The rows of these slots (a copy, in the order given)."""
        import numpy as np

        slots = np.asarray(slots, dtype=np.int64)
        out = np.empty((len(slots), self.dim), dtype=np.float32)
        in_base = slots < self.base_rows
        if in_base.any() and self.base is not None:
            out[in_base] = self.base.take(slots[in_base])
        rest = np.flatnonzero(~in_base)
        if len(rest):
            block, offset = np.divmod(slots[rest] - self.base_rows, BLOCK_ROWS)
            for b in np.unique(block):
                here = block == b
                out[rest[here]] = self.blocks[int(b)][offset[here]]
        return out

    def scores(self, query: Any, start: int, stop: int) -> Any:
        """Dot products of ``query`` with every row of slots ``[start, stop)``."""
        import numpy as np

        parts = [rows @ query for _, rows in self.segments(start, stop)]
        return np.concatenate(parts) if parts else np.empty(0, dtype=np.float32)


class SlotColumns:
    """Per slot: memory rowid, vector seq (increasing with the slot), tenant and project codes."""

    def __init__(self, capacity: int = 1024, arrays: tuple[Any, Any, Any, Any] | None = None) -> None:
        import numpy as np

        if arrays is not None:
            self.rowid, self.seq, self.tenant, self.project = (np.array(a) for a in arrays)
            self.size = len(self.rowid)
            return
        self.rowid = np.empty(capacity, dtype=np.int64)
        self.seq = np.empty(capacity, dtype=np.int64)
        self.tenant = np.empty(capacity, dtype=np.int32)
        self.project = np.empty(capacity, dtype=np.int32)
        self.size = 0

    def append(self, rowid: Any, seq: Any, tenant: Any, project: Any) -> None:
        import numpy as np

        wanted = self.size + len(rowid)
        if wanted > len(self.rowid):
            capacity = max(wanted, 2 * len(self.rowid), 1024)
            for name in ("rowid", "seq", "tenant", "project"):
                old = getattr(self, name)
                grown = np.empty(capacity, dtype=old.dtype)
                grown[: self.size] = old[: self.size]
                setattr(self, name, grown)
        end = self.size + len(rowid)
        self.rowid[self.size : end] = rowid
        self.seq[self.size : end] = seq
        self.tenant[self.size : end] = tenant
        self.project[self.size : end] = project
        self.size = end

    def slot_of_seq(self, seqs: Any) -> Any:
        """Slots holding these vector seqs (-1 where none does): seqs grow with slots."""
        import numpy as np

        seqs = np.asarray(seqs, dtype=np.int64)
        have = self.seq[: self.size]
        at = np.searchsorted(have, seqs)
        found = at < self.size
        found[found] = have[at[found]] == seqs[found]
        return np.where(found, at, -1)

    def trimmed(self) -> tuple[Any, Any, Any, Any]:
        return (
            self.rowid[: self.size],
            self.seq[: self.size],
            self.tenant[: self.size],
            self.project[: self.size],
        )


class SpaceState:
    """Everything one load of a space holds; replaced whole when the background rebuilds it."""

    def __init__(
        self,
        dim: int,
        matrix: SlotMatrix | None = None,
        columns: SlotColumns | None = None,
        codes: list[str] | None = None,
    ) -> None:
        self.matrix = matrix or SlotMatrix(dim)
        self.columns = columns or SlotColumns()
        self.names: list[str] = list(codes or [])
        self.codes = {name: i for i, name in enumerate(self.names)}
        self.last_seq = 0
        self.last_removal = 0
        self.live = int((self.columns.tenant[: self.columns.size] != TOMBSTONE).sum()) if columns else 0
        self.graph: Any = None
        self.graph_size = 0
        self.graph_file: Path | None = None  # set when the graph is a read-only view of a snapshot file
        self.snapshot: tuple[str, int] | None = None  # (matrix file, rows) when based on a snapshot

    @property
    def size(self) -> int:
        return self.columns.size

    def code(self, name: str) -> int:
        code = self.codes.get(name)
        if code is None:
            code = self.codes[name] = len(self.names)
            self.names.append(name)
        return code

    def apply_rows(self, rows: list[tuple[int, int, str, str, bytes]], dim: int) -> None:
        import numpy as np

        rows = [r for r in rows if len(r[4]) == dim * 4]  # another size claiming this space is never compared
        if not rows:
            return
        vectors = np.frombuffer(b"".join(r[4] for r in rows), dtype=np.float32).reshape(len(rows), dim)
        self.matrix.append(vectors)
        self.columns.append(
            [r[1] for r in rows],
            [r[0] for r in rows],
            [self.code(r[2]) for r in rows],
            [self.code(r[3]) for r in rows],
        )
        self.live += len(rows)
        self.last_seq = max(self.last_seq, rows[-1][0])

    def tombstone(self, slots: Any) -> None:
        import numpy as np

        slots = np.asarray(slots, dtype=np.int64)
        slots = slots[slots >= 0]
        slots = slots[self.columns.tenant[slots] != TOMBSTONE]
        self.columns.tenant[slots] = TOMBSTONE
        self.live -= len(slots)
