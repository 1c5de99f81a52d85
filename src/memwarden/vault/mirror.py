"""VaultMirror: every add, update and delete of one tenant, mirrored into each vault folder.

Best effort, off the write path: the service hands over the stored (already redacted) memory
and returns at once; one background thread finds the Related notes with memwarden's own search
and writes each folder in order. A missing, read-only or hanging vault therefore never blocks
or fails a write. Failures are counted per folder (``status``) and logged without note names
or content; ``memwarden vault sync`` repairs whatever was missed.

At interpreter exit (a one-shot ``memwarden add``), pending changes get ``EXIT_FLUSH_SECONDS``
to reach the folders; what does not make it is caught up by the next ``vault sync``.
"""

from __future__ import annotations

import atexit
import errno
import logging
import os
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memwarden.models import Memory, format_time, utcnow
from memwarden.os_error_words import nearest_existing, os_error_words
from memwarden.vault.folder import VaultFolder

logger = logging.getLogger(__name__)
EXIT_FLUSH_SECONDS = 10.0
RelatedFinder = Callable[[Memory], Sequence[str]]


@dataclass(frozen=True, slots=True)
class _Change:
    memory: Memory | None  # None: a removal
    memory_id: str


@dataclass(slots=True)
class _FolderHealth:
    errors: int = 0
    last_error: str | None = None
    last_error_at: str | None = None
    failing: bool = False


def describe_error(folder: Path, exc: BaseException) -> str:
    """A one-line reason naming the folder and what to do, never a note name or memory text."""
    if not isinstance(exc, OSError):
        # Its text could quote a note; the log of the failure has the details.
        return f"{folder}: an unexpected failure; run `memwarden --debug vault sync` to see it"
    if exc.errno in (errno.EEXIST, errno.ENOTDIR):
        blocker = nearest_existing(folder)
        if blocker == os.path.abspath(folder) and os.path.exists(blocker):
            return f"{folder}: it is a file, not a folder; set MEMWARDEN_VAULT_DIRS to a folder"
        if not os.path.isdir(blocker):
            return (
                f"{folder}: {blocker} is a file, not a folder; set MEMWARDEN_VAULT_DIRS to a "
                "folder (or move that file away)"
            )
    if exc.errno is not None and exc.strerror and exc.strerror != os.strerror(exc.errno):
        return f"{folder}: {exc.strerror}"  # vault/folder.py's own words, which say what to do
    happened, fix = os_error_words(exc)
    return f"{folder}: {happened}; {fix}"


class VaultMirror:
    """Mirrors one tenant's memories into vault folders, in a background thread."""

    def __init__(self, folders: Sequence[Path], *, tenant: str) -> None:
        self.folders = [VaultFolder(f) for f in dict.fromkeys(Path(f) for f in folders)]
        self.tenant = tenant
        self._related: RelatedFinder = lambda memory: ()
        self._queue: queue.SimpleQueue[_Change | None] = queue.SimpleQueue()
        self._idle = threading.Condition()
        self._pending = 0
        self._thread: threading.Thread | None = None
        self._health = {str(f.root): _FolderHealth() for f in self.folders}
        self._counts = {"notes_written": 0, "notes_renamed": 0, "notes_removed": 0, "related_errors": 0}

    def bind(self, related: RelatedFinder) -> None:
        """Use ``related`` (memwarden's own search) to choose a note's Related links."""
        self._related = related

    # -- the write path hands changes over ----------------------------------------------------

    def upserted(self, memory: Memory) -> None:
        if memory.tenant == self.tenant:
            self._submit(_Change(memory, memory.id))

    def removed(self, tenant: str, memory_id: str) -> None:
        if tenant == self.tenant:
            self._submit(_Change(None, memory_id))

    def _submit(self, change: _Change) -> None:
        with self._idle:
            self._pending += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="memwarden-vault", daemon=True)
                self._thread.start()
                atexit.register(self.flush, EXIT_FLUSH_SECONDS)
        self._queue.put(change)

    def flush(self, timeout: float = EXIT_FLUSH_SECONDS) -> bool:
        """Wait (at most ``timeout`` seconds) until every handed-over change is written."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def close(self, timeout: float = EXIT_FLUSH_SECONDS) -> None:
        """Write what is pending (bounded), then stop the thread."""
        self.flush(timeout)
        with self._idle:
            thread, self._thread = self._thread, None
        if thread is not None:
            atexit.unregister(self.flush)
            self._queue.put(None)
            thread.join(timeout)

    # -- the background thread ----------------------------------------------------------------

    def _run(self) -> None:
        while (change := self._queue.get()) is not None:
            try:
                self._apply(change)
            except Exception:  # the thread must survive anything; counted, logged without content
                logger.exception("vault mirror: unexpected failure")
            finally:
                with self._idle:
                    self._pending -= 1
                    self._idle.notify_all()

    def _apply(self, change: _Change) -> None:
        related: Sequence[str] = ()
        if change.memory is not None:
            try:
                related = self._related(change.memory)
            except Exception as exc:  # noqa: BLE001 - a failed search still writes the note, without links
                self._counts["related_errors"] += 1
                logger.warning(
                    "vault mirror: related search failed (%s); note written without links", type(exc).__name__
                )
        for folder in self.folders:
            try:
                if change.memory is None:
                    self._counts["notes_removed"] += folder.remove(change.memory_id)
                else:
                    self._counts["notes_renamed"] += folder.upsert(change.memory, related)
                    self._counts["notes_written"] += 1
            except Exception as exc:  # noqa: BLE001 - best effort: counted, the next folder still runs
                self._failed(folder.root, exc)
            else:
                self._health[str(folder.root)].failing = False

    def _failed(self, root: Path, exc: BaseException, *, log: bool = True) -> None:
        """Count a failed write in ``root``; log it (once until the folder works again) unless
        the caller reports it itself, as ``sync`` does to the person who ran it."""
        health = self._health[str(root)]
        health.errors += 1
        health.last_error = describe_error(root, exc)
        health.last_error_at = format_time(utcnow())
        if log and not health.failing:
            logger.warning("vault mirror: cannot write to %s", health.last_error)
        health.failing = True

    # -- sync and status ---------------------------------------------------------------------

    def sync(
        self, memories: Sequence[Memory], progress: Callable[[int, int], None] | None = None
    ) -> dict[str, Any]:
        """Rebuild every folder from ``memories`` (this tenant's live ones); idempotent.

        ``progress(done, total)`` counts one step per memory for finding its related notes,
        then one per note checked or written in each folder.
        """
        self.flush()
        mine = [m for m in memories if m.tenant == self.tenant]
        total, done = len(mine) * (1 + len(self.folders)), 0

        def step() -> None:
            nonlocal done
            done += 1
            if progress is not None:
                progress(done, total)

        related: dict[str, Sequence[str]] = {}
        for memory in mine:
            try:
                related[memory.id] = self._related(memory)
            except Exception as exc:  # noqa: BLE001 - the note is still written, without links
                self._counts["related_errors"] += 1
                logger.warning("vault sync: related search failed (%s)", type(exc).__name__)
            step()
        reports: list[dict[str, Any]] = []
        for folder in self.folders:
            report: dict[str, Any] = {"path": str(folder.root), "error": None}
            before = done
            try:
                report.update(folder.sync(mine, related, on_note=step))
            except OSError as exc:
                self._failed(folder.root, exc, log=False)
                report["error"] = describe_error(folder.root, exc)
            while done < before + len(mine):  # a failed folder's notes count as done
                step()
            reports.append(report)
        return {"memories": len(mine), "folders": reports, "ok": all(r["error"] is None for r in reports)}

    def probe(self) -> None:
        """Try a real file write in every folder now; a failure counts like a failed note."""
        for folder in self.folders:
            try:
                folder.probe()
            except OSError as exc:
                self._failed(folder.root, exc)
            else:
                self._health[str(folder.root)].failing = False

    def status(self) -> dict[str, Any]:
        """For health checks: pending changes, counts, errors, the last one, and the folders whose
        last write failed (``failing``; a folder leaves it on its next successful write)."""
        pairs = list(zip(self.folders, self._health.values(), strict=True))
        folders = [
            {
                "path": str(f.root),
                "notes": len(f.entries),
                "failing": h.failing,
                "errors": h.errors,
                "last_error": h.last_error,
                "last_error_at": h.last_error_at,
            }
            for f, h in pairs
        ]
        latest = max(
            (h for _, h in pairs if h.last_error_at), key=lambda h: h.last_error_at or "", default=None
        )
        return {
            "enabled": True,
            "tenant": self.tenant,
            "pending": self._pending,
            **self._counts,
            "failing": [f["path"] for f in folders if f["failing"]],
            "errors": sum(f["errors"] for f in folders),
            "last_error": latest.last_error if latest else None,
            "last_error_at": latest.last_error_at if latest else None,
            "folders": folders,
        }
