"""The vector index of a space persisted beside the database, memory-mapped at the next start.

Re-reading every vector from SQLite and rebuilding the HNSW graph at every start took minutes
at 1M memories (issue 21; docs/performance.md#storage). A snapshot holds what that produced:

    <database>.vectors/<space>/current.json     which files form the snapshot, its watermarks
    <database>.vectors/<space>/matrix-<id>.f32   float32 rows by slot (append-only, mmapped)
    <database>.vectors/<space>/slots-<gen>.npz   rowid, seq, tenant and project code per slot
    <database>.vectors/<space>/graph-<gen>.usearch  the HNSW graph over slots [0, graph_size)

A start maps the matrix and the graph read-only (pages load on use; the rows a search rescores
are read with ``pread``, so they stay in the page cache and out of the process, see
``FileRows``) and reads only the rows and removals newer than the snapshot's watermarks. The
snapshot is a cache: SQLite stays the truth. It is used only when it still matches the database
(its newest vector is still there, or its removal is logged), otherwise ignored and rewritten;
deleting the folder is always safe. One process writes at a time (``flock``); the others keep
using what they mapped (on POSIX an unlinked file stays valid while mapped).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import threading
import uuid
from pathlib import Path
from typing import Any

from memwarden.store.sqlite.vector_slots import FileRows, SlotColumns, SlotMatrix, SpaceState

logger = logging.getLogger(__name__)

#: Rewrite the snapshot when the index has moved this many slots or removals past it.
BEHIND_MAX = 10_000
FORMAT = 1


def snapshot_dir_for(database: str | os.PathLike[str]) -> Path:
    """``<database>.vectors`` beside the database file (the store gives its path as a string)."""
    database = Path(database)
    return database.with_name(database.name + ".vectors")


def space_dir(root: Path, model: str, dim: int) -> Path:
    return root / f"{dim}-{hashlib.sha256(model.encode('utf-8')).hexdigest()[:16]}"


def _read_current(folder: Path) -> dict[str, Any] | None:
    try:
        meta = json.loads((folder / "current.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) and meta.get("format") == FORMAT else None


def _matches(
    meta: dict[str, Any], model: str, dim: int, columns: SlotColumns, conn: sqlite3.Connection
) -> bool:
    """Does the database still contain what the snapshot was taken from?"""
    if meta.get("model") != model or meta.get("dim") != dim:
        return False
    newest = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM memory_vectors").fetchone()[0]
    newest_removal = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM vector_removals").fetchone()[0]
    if newest < meta["last_seq"] or newest_removal < meta["last_removal"]:
        return False  # an older copy of the database (a restored backup)
    if not columns.size:
        return True
    last_seq, last_rowid = int(columns.seq[columns.size - 1]), int(columns.rowid[columns.size - 1])
    row = conn.execute("SELECT memory_rowid FROM memory_vectors WHERE seq = ?", (last_seq,)).fetchone()
    if row is not None:
        return bool(row[0] == last_rowid)
    removed = conn.execute(
        "SELECT memory_rowid FROM vector_removals WHERE vector_seq = ?", (last_seq,)
    ).fetchone()
    if removed is not None:
        return bool(removed[0] == last_rowid)
    pruned = conn.execute("SELECT pruned_through FROM vector_clock WHERE id = 1").fetchone()[0]
    return bool(pruned > meta["last_removal"])  # its removal may be in the trimmed part: ids are compared


def load(root: Path, model: str, dim: int, conn: sqlite3.Connection) -> Any:
    """The ``SpaceState`` of the snapshot, or None when there is none usable."""
    import numpy as np

    folder = space_dir(root, model, dim)
    meta = _read_current(folder)
    if meta is None:
        return None
    try:
        with np.load(folder / meta["slots"]) as saved:
            columns = SlotColumns(arrays=(saved["rowid"], saved["seq"], saved["tenant"], saved["project"]))
        rows = int(meta["rows"])
        if columns.size != rows or not _matches(meta, model, dim, columns, conn):
            logger.info("vector snapshot %s does not match the database; reading vectors from it", folder)
            return None
        base = FileRows(folder / meta["matrix"], rows, dim) if rows else None
        state = SpaceState(dim, SlotMatrix(dim, base), columns, list(meta["names"]))
        state.last_seq, state.last_removal = int(meta["last_seq"]), int(meta["last_removal"])
        if meta.get("graph"):
            from usearch.index import Index

            state.graph_file = folder / meta["graph"]
            state.graph = Index.restore(str(state.graph_file), view=True)
            state.graph_size = int(meta["graph_size"])
        state.snapshot = (meta["matrix"], rows)
        return state
    except (OSError, ValueError, KeyError) as exc:
        logger.warning(
            "vector snapshot %s is unreadable (%s); reading vectors from the database", folder, exc
        )
        return None


def save_if_behind(root: Path, model: str, dim: int, state: Any, lock: threading.Lock) -> bool:
    """Write a new snapshot when ``state`` is BEHIND_MAX ahead of the saved one (or has a new
    graph), then map it back in place of the memory copies. True when one was written."""
    import fcntl

    folder = space_dir(root, model, dim)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "lock", "a+b") as lock_file:
        try:
            fcntl.flock(lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False  # another process is writing one
        meta = _read_current(folder)
        with lock:
            size, graph, graph_size, graph_file = state.size, state.graph, state.graph_size, state.graph_file
            last_seq, last_removal = state.last_seq, state.last_removal
            columns = tuple(a.copy() for a in state.columns.trimmed())
            names = list(state.names)
        if (
            meta is not None
            and getattr(state, "snapshot", None) == (meta["matrix"], meta["rows"])
            and (
                size - meta["rows"] < BEHIND_MAX
                and last_removal - meta["last_removal"] < BEHIND_MAX
                and graph_size == meta.get("graph_size", 0)
            )
        ):
            return False
        written = _write(
            folder,
            meta,
            state,
            size,
            columns,
            names,
            graph,
            graph_size,
            graph_file,
            last_seq,
            last_removal,
            dim,
            model,
        )
    _map_back(folder, written, state, lock, dim)
    return True


def _write(
    folder: Path,
    meta: dict[str, Any] | None,
    state: Any,
    size: int,
    columns: tuple[Any, ...],
    names: list[str],
    graph: Any,
    graph_size: int,
    graph_file: Path | None,
    last_seq: int,
    last_removal: int,
    dim: int,
    model: str,
) -> dict[str, Any]:
    import numpy as np

    gen = uuid.uuid4().hex[:12]
    derived = meta is not None and getattr(state, "snapshot", None) == (meta["matrix"], meta["rows"])
    matrix_name = meta["matrix"] if derived and meta is not None else f"matrix-{gen}.f32"
    matrix_path = folder / matrix_name
    start = int(meta["rows"]) if derived and meta is not None else 0
    if derived and matrix_path.stat().st_size != start * dim * 4:
        matrix_name, matrix_path, start = f"matrix-{gen}.f32", folder / f"matrix-{gen}.f32", 0
    with open(matrix_path, "r+b" if start else "wb") as out:
        out.seek(start * dim * 4)
        for _, rows in state.matrix.segments(start, size, transient=True):
            out.write(np.ascontiguousarray(rows, dtype=np.float32).tobytes())
        out.flush()
        os.fsync(out.fileno())
    slots_name = f"slots-{gen}.npz"
    with open(folder / slots_name, "wb") as out:
        np.savez(out, rowid=columns[0], seq=columns[1], tenant=columns[2], project=columns[3])
        out.flush()
        os.fsync(out.fileno())
    graph_name = None
    if graph is not None and graph_size:
        if graph_file is not None and graph_file.parent == folder and graph_file.exists():
            graph_name = graph_file.name  # the mapped graph is unchanged: keep its file
        else:
            graph_name = f"graph-{gen}.usearch"
            graph.save(str(folder / graph_name))
    written = {
        "format": FORMAT,
        "model": model,
        "dim": dim,
        "rows": size,
        "matrix": matrix_name,
        "slots": slots_name,
        "graph": graph_name,
        "graph_size": graph_size if graph_name else 0,
        "names": names,
        "last_seq": last_seq,
        "last_removal": last_removal,
    }
    tmp = folder / f"current.{gen}.tmp"
    tmp.write_text(json.dumps(written), encoding="utf-8")
    os.replace(tmp, folder / "current.json")
    keep = {matrix_name, slots_name, graph_name, "current.json", "lock"}
    for path in folder.iterdir():
        if path.name not in keep and not path.name.endswith(".tmp"):
            path.unlink(missing_ok=True)
    return written


def _map_back(folder: Path, written: dict[str, Any], state: Any, lock: threading.Lock, dim: int) -> None:
    """Serve from the files just written: the matrix rows and the graph leave private memory."""
    rows = written["rows"]
    base = FileRows(folder / written["matrix"], rows, dim) if rows else None
    graph = None
    if written["graph"]:
        from usearch.index import Index

        graph = Index.restore(str(folder / written["graph"]), view=True)
    with lock:
        matrix = SlotMatrix(dim, base)
        for _, later in state.matrix.segments(rows, state.size):
            matrix.append(later)
        state.matrix = matrix
        state.snapshot = (written["matrix"], rows)
        if graph is not None and state.graph_size == written["graph_size"]:
            state.graph, state.graph_file = graph, folder / written["graph"]
