"""MemoryService: the composed parts every adapter (MCP, HTTP, CLI, hooks) calls.

- ``memories`` (``Memories``): add, get, list, update, delete, stats.
- ``searcher`` (``Searcher``): search with ``why``, related memories, the vector path's state.
- ``operations`` (``Operations``): health, review, export/import, purge/vacuum, vault, audit rows
  for operations done elsewhere.

They share one ``Intake`` (validation, redaction, screening, analysis), one store, one auditor
and one clock; ``app.build_service`` wires them. This class owns their lifetime.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memwarden.intake import Intake
from memwarden.models import Caller, SearchResult, utcnow
from memwarden.search.ranking import DEFAULT_WEIGHTS, RankingWeights
from memwarden.search.searcher import DEFAULT_TUNING, Searcher
from memwarden.search.tuning import Tuning
from memwarden.store.base import Store

if TYPE_CHECKING:  # pragma: no cover
    import threading

    from memwarden.audit.auditor import Auditor
    from memwarden.memories import Memories
    from memwarden.ops.operations import Operations
    from memwarden.ops.options import OpsOptions
    from memwarden.requests import ExportRequest, ImportRequest, SearchRequest
    from memwarden.search.vector_path import VectorPath
    from memwarden.vault.mirror import VaultMirror


class MemoryService:
    """The parts of memwarden for one store, and their shared collaborators."""

    def __init__(
        self,
        store: Store,
        intake: Intake,
        *,
        default_caller: Caller,
        ranking: RankingWeights = DEFAULT_WEIGHTS,
        tuning: Tuning = DEFAULT_TUNING,
        clock: Callable[[], datetime] = utcnow,
        ops: OpsOptions | None = None,
        auditor: Auditor | None = None,
        vectors: VectorPath | None = None,
        vault: VaultMirror | None = None,
    ) -> None:
        self.store = store
        self.intake = intake
        self.default_caller = default_caller
        self._clock = clock
        self._background: list[threading.Thread] = []
        self.auditor = auditor
        self.vectors = vectors
        self.vault = vault
        self._memories: Memories | None = None
        self.searcher = Searcher(
            store,
            intake,
            default_caller=default_caller,
            ranking=ranking,
            clock=clock,
            auditor=auditor,
            vectors=vectors,
            tuning=tuning,
        )
        self._ops_options = ops
        self._operations: Operations | None = None
        if vectors is not None:
            # The background embedder scores each vector it stores (screening.semantic) and hands
            # back the memories its head flags; the write side writes the flag with its audit row.
            # Hooked here, not in ``Memories``: a server may embed a backlog (an upgrade's
            # re-embedding) before its first write builds ``memories``.
            vectors.on_semantic_flags = lambda flagged: self.memories.flag_semantic(flagged)
        if vault is not None:
            vault.bind(lambda memory: [m.id for m in self.searcher.related(memory)])

    @property
    def memories(self) -> Memories:
        """Add, get, list, update, delete, stats; built on first use: `memwarden search` and the
        prompt hook never write, and the write side's modules are theirs to import."""
        if self._memories is None:
            from memwarden.memories import Memories

            self._memories = Memories(
                self.store,
                self.intake,
                default_caller=self.default_caller,
                clock=self._clock,
                auditor=self.auditor,
                vectors=self.vectors,
                vault=self.vault,
            )
        return self._memories

    @property
    def operations(self) -> Operations:
        """Health, review, export/import, purge… built on first use: `memwarden search` and the
        prompt hook never need them, and their modules cost more to import than a search takes."""
        if self._operations is None:
            from memwarden.ops.operations import Operations

            self._operations = Operations(
                self.store,
                self.intake,
                self.searcher,
                default_caller=self.default_caller,
                options=self._ops_options,
                clock=self._clock,
                auditor=self.auditor,
                vectors=self.vectors,
                vault=self.vault,
            )
        return self._operations

    # -- the verbs whose part takes keywords: each request unpacked in one place -----------------

    def search(self, request: SearchRequest, *, caller: Caller | None = None) -> SearchResult:
        """``Searcher.search`` for a ``SearchRequest`` (audited there, with the query's hash)."""
        given = request.given()
        return self.searcher.search(given.pop("query"), caller=caller, **given)

    def export(self, request: ExportRequest, *, caller: Caller | None = None) -> dict[str, Any]:
        """A memwarden export document (format version 1) of the caller's memories."""
        return self.operations.export(caller=caller, **request.given())

    def import_(self, request: ImportRequest, *, caller: Caller | None = None) -> dict[str, Any]:
        """Import export text; dedups, keeps ids and times, redacts. The counts of what happened."""
        return self.operations.import_text(
            request.data, fmt=request.format, project=request.project, caller=caller
        )

    @property
    def clock(self) -> Callable[[], datetime]:
        """The one clock of every part (UTC now; tests and time-travel checks set another)."""
        return self._clock

    @clock.setter
    def clock(self, clock: Callable[[], datetime]) -> None:
        self._clock = clock
        self.searcher.clock = clock
        if self._memories is not None:
            self._memories.clock = clock
        if self._operations is not None:
            self._operations.clock = clock
        if self.auditor is not None:  # audit stamps follow it too (time-safety checks compare them)
            self.auditor.clock = clock

    def in_background(self, work: Callable[[], None], *, name: str) -> None:
        """Run ``work`` in a thread that ``close`` waits for: a thread still reading the store
        when its connections close crashes the process (a segfault in sqlite3, seen when a
        server stopped during its start-up checks)."""
        import threading  # servers only: a one-shot command starts no thread

        thread = threading.Thread(target=work, name=name, daemon=True)
        self._background.append(thread)
        thread.start()

    def close(self) -> None:
        for thread in self._background:
            thread.join()
        self._background.clear()
        if self.vault is not None:
            self.vault.close()  # before the store: pending notes still need their Related search
        if self.vectors is not None:
            self.vectors.close()
        self.store.close()
        if self.auditor is not None:
            self.auditor.close()


__all__ = ["MemoryService"]
