"""SQLiteStore: memories, their keyword index and their vectors in one SQLite file.

A thin class: it holds the file's connections and write transactions (``database.py``) and the
in-process vector indexes, and hands each method of the store protocols (``store/base.py``) to
a module of plain SQL functions, one concern each:

- ``memory_writes.py``: add, update, soft delete, hit counts (a transaction each, its audit row
  inside); ``memory_reads.py``: by id, lists, stats;
- ``keyword_methods.py``: the keyword index's rows, re-index, ranked search, near duplicates;
- ``vector_methods.py``: vectors, the embedding queue, vector search;
- ``threads.py``: thread neighbours; ``insights.py``: the dashboard's browse and overview;
- ``maintenance.py``: integrity, probes, rebuild, bulk import and export, purge, vacuum;
  ``index_state.py``: the store's own named values.

``with_clear_faults`` turns a ``sqlite3`` error leaving any public method into a ``SQLiteFault``
that says what happened in words (``faults.py``).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memwarden.audit.write_audit import WriteAudit
from memwarden.models import Candidate, IndexText, KeywordQuery, Memory, VectorCounts, VectorSpace

# maintenance and insights are imported by the methods that use them: a search or a prompt
# hook with the daemon off never runs them, and every module it imports is start-up time.
from memwarden.store.sqlite import (
    index_state,
    keyword_methods,
    memory_reads,
    memory_writes,
    threads,
    vector_methods,
)
from memwarden.store.sqlite.database import SQLiteDatabase, migrate_if_behind
from memwarden.store.sqlite.faults import SQLiteFault, describe_fault, with_clear_faults

if TYPE_CHECKING:  # pragma: no cover - the vector index loads with the first vector search
    from memwarden.browsing import BrowseCursor, MemoryPage, MemoryQuery, StoreOverview
    from memwarden.store.sqlite.shm import ShmWatch
    from memwarden.store.sqlite.vectors import VectorSpaceIndex


@with_clear_faults()
class SQLiteStore:
    """The default backend. Safe to share between threads and with other processes."""

    backend = "sqlite"

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        synchronous: str = "FULL",
        vector_exact_max: int = 150_000,
        vector_snapshots: bool = True,
    ) -> None:
        # A string: a cold search does not import pathlib (settings_paths.py).
        self.path = os.fspath(path)
        self.synchronous = synchronous
        self.vector_exact_max = vector_exact_max
        self.vector_snapshots = vector_snapshots
        self._vector_indexes: dict[VectorSpace, VectorSpaceIndex] = {}
        self.db = SQLiteDatabase(self.path, synchronous)
        try:
            self.applied_migrations = migrate_if_behind(self.db.connection())
        except SQLiteFault:
            raise
        except sqlite3.Error as exc:
            raise SQLiteFault(describe_fault(self.path, exc)) from exc

    # -- connections -------------------------------------------------------------------------

    @property
    def shm(self) -> ShmWatch:
        """The file's ``-shm`` watch (health reports what it saw)."""
        return self.db.shm

    def connection(self) -> sqlite3.Connection:
        """This thread's connection (``SQLiteDatabase.connection``)."""
        return self.db.connection()

    def open_connections(self) -> int:
        return self.db.open_connections()

    def close_connections(self) -> int:
        return self.db.close_connections()

    def close(self) -> None:
        self.db.close()

    # -- memories ----------------------------------------------------------------------------

    def add(
        self, memory: Memory, index: IndexText, *, audit: WriteAudit | None = None
    ) -> tuple[Memory, bool]:
        return memory_writes.add(self.db, memory, index, audit)

    def update(
        self,
        memory: Memory,
        index: IndexText,
        *,
        expected_version: int,
        audit: WriteAudit | None = None,
    ) -> Memory:
        return memory_writes.update(self.db, memory, index, expected_version, audit)

    def soft_delete(
        self, tenant: str, memory_id: str, now: datetime, *, audit: WriteAudit | None = None
    ) -> Memory | None:
        return memory_writes.soft_delete(self.db, tenant, memory_id, now, audit)

    def record_hits(
        self, tenant: str, ids: Sequence[str], now: datetime, *, audit: WriteAudit | None = None
    ) -> None:
        memory_writes.record_hits(self.db, tenant, ids, now, audit)

    def get_many(self, tenant: str, ids: Sequence[str]) -> list[Memory]:
        return memory_reads.get_many(self.db, tenant, ids)

    def list_memories(
        self,
        tenant: str,
        *,
        project: str | None,
        tags: Sequence[str] = (),
        pinned_only: bool,
        include_expired: bool,
        now: datetime,
        limit: int,
        offset: int = 0,
    ) -> list[Memory]:
        return memory_reads.list_memories(
            self.db.connection(),
            tenant,
            project=project,
            tags=tags,
            pinned_only=pinned_only,
            include_expired=include_expired,
            now=now,
            limit=limit,
            offset=offset,
        )

    def stats(self, tenant: str, project: str | None, now: datetime) -> dict[str, Any]:
        return memory_reads.stats(self.db, tenant, project, now)

    # -- the keyword index -------------------------------------------------------------------

    def index_fingerprint(self) -> str | None:
        return keyword_methods.index_fingerprint(self.db.connection())

    def ensure_index(
        self,
        fingerprint: str,
        index_for: Callable[[Memory], IndexText],
        progress: Callable[[int, int], None] | None = None,
    ) -> int:
        return keyword_methods.ensure_index(self.db, fingerprint, index_for, progress)

    def index_agrees(self) -> bool:
        """True when the keyword index holds exactly the live memories (a consistency check)."""
        return keyword_methods.index_agrees(self.db.connection())

    def keyword_search(
        self,
        tenant: str,
        query: KeywordQuery,
        *,
        project: str | None,
        tags: Sequence[str],
        include_expired: bool,
        now: datetime,
        limit: int,
    ) -> list[Candidate]:
        return keyword_methods.keyword_search(
            self.db,
            tenant,
            query,
            project=project,
            tags=tags,
            include_expired=include_expired,
            now=now,
            limit=limit,
        )

    def near_duplicate_candidates(
        self, tenant: str, query: KeywordQuery, *, project: str, now: datetime, limit: int
    ) -> list[tuple[str, str, str | None]]:
        return keyword_methods.near_duplicate_candidates(
            self.db, tenant, query, project=project, now=now, limit=limit
        )

    # -- threads and the dashboard -----------------------------------------------------------

    def thread_neighbours(self, tenant: str, ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        return threads.thread_neighbours(self.db, tenant, ids)

    def indexed_memories(self, tenant: str, ids: Sequence[str]) -> list[Candidate]:
        return threads.indexed_memories(self.db, tenant, ids)

    def browse(
        self,
        tenant: str,
        query: MemoryQuery,
        *,
        now: datetime,
        limit: int,
        count_limit: int,
        after: BrowseCursor | None = None,
        before: BrowseCursor | None = None,
    ) -> MemoryPage:
        from memwarden.store.sqlite import insights

        return insights.browse(
            self.db.connection(),
            tenant,
            query,
            now=now,
            limit=limit,
            count_limit=count_limit,
            after=after,
            before=before,
        )

    def projects(self, tenant: str) -> list[str]:
        from memwarden.store.sqlite import insights

        return insights.projects(self.db.connection(), tenant)

    def overview(self, tenant: str, *, now: datetime, weeks_since: datetime, top: int) -> StoreOverview:
        from memwarden.store.sqlite import insights

        return insights.overview(self.db.connection(), tenant, now=now, weeks_since=weeks_since, top=top)

    # -- vectors -----------------------------------------------------------------------------

    def _vector_index(self, space: VectorSpace) -> VectorSpaceIndex:
        """The in-process index of ``space``, made on first use and kept for the store's life."""
        with self.db.lock:
            index = self._vector_indexes.get(space)
            if index is None:
                index = vector_methods.new_space_index(
                    self.path, space, exact_max=self.vector_exact_max, snapshots=self.vector_snapshots
                )
                self._vector_indexes[space] = index
        return index

    def put_vectors(self, space: VectorSpace, items: Sequence[tuple[str, int, bytes]]) -> int:
        return vector_methods.put_vectors(self.db, space, items)

    def record_embedding_failure(self, ids: Sequence[str], error: str) -> None:
        vector_methods.record_embedding_failure(self.db, ids, error)

    def memories_missing_vectors(
        self, space: VectorSpace, *, limit: int, tenant: str | None = None
    ) -> list[Memory]:
        return self.missing_vectors_page(space, None, limit=limit, tenant=tenant)[0]

    def missing_vectors_page(
        self, space: VectorSpace, cursor: Any, *, limit: int, tenant: str | None = None
    ) -> tuple[list[Memory], Any]:
        return vector_methods.missing_vectors_page(
            self.db.connection(), space, cursor, limit=limit, tenant=tenant
        )

    def embedding_queue(self, space: VectorSpace, mark: Any, *, limit: int) -> tuple[list[Memory], Any]:
        return vector_methods.embedding_queue(self.db.connection(), space, mark, limit=limit)

    def failed_embeddings(self, space: VectorSpace, *, limit: int) -> list[Memory]:
        return vector_methods.failed_embeddings(self.db.connection(), space, limit=limit)

    def vector_counts(self, tenant: str | None, space: VectorSpace) -> VectorCounts:
        return vector_methods.vector_counts(self.db.connection(), tenant, space)

    def holds_other_vectors(self, space: VectorSpace) -> bool:
        return vector_methods.holds_other_vectors(self.db.connection(), space)

    def warm_vectors(self, space: VectorSpace) -> None:
        vector_methods.warm_vectors(self._vector_index(space), self.connection)

    def maintain_vectors(self, space: VectorSpace) -> None:
        """Background upkeep of the space's index (graph, compaction, removal log, snapshot)."""
        self._vector_index(space).maintain(self.connection)

    def vector_search(
        self,
        tenant: str,
        space: VectorSpace,
        query: Any,
        *,
        project: str | None,
        tags: Sequence[str],
        include_expired: bool,
        now: datetime,
        limit: int,
    ) -> list[Candidate]:
        return vector_methods.vector_search(
            self._vector_index(space),
            self.db.connection(),
            tenant,
            query,
            project=project,
            tags=tags,
            include_expired=include_expired,
            now=now,
            limit=limit,
        )

    # -- whole-store operations --------------------------------------------------------------

    def integrity_problems(self) -> list[str]:
        from memwarden.store.sqlite import maintenance

        return maintenance.integrity_problems(self.db)

    def probe_keyword_index(self) -> str | None:
        from memwarden.store.sqlite import maintenance

        return maintenance.probe_keyword_index(self.db)

    def probe_vector_store(self) -> str | None:
        from memwarden.store.sqlite import maintenance

        return maintenance.probe_vector_store(self.db)

    def keyword_index_mismatch(self) -> str | None:
        from memwarden.store.sqlite import maintenance

        return maintenance.keyword_index_mismatch(self.db.connection())

    def rebuild_keyword_index(self, index_for: Callable[[Memory], IndexText]) -> int:
        from memwarden.store.sqlite import maintenance

        return maintenance.rebuild_keyword_index(self.db, index_for)

    def iter_memories(
        self, tenant: str, *, project: str | None, include_deleted: bool, batch: int = 2000
    ) -> Iterator[Memory]:
        from memwarden.store.sqlite import maintenance

        return maintenance.iter_memories(
            self.db, tenant, project=project, include_deleted=include_deleted, batch=batch
        )

    def iter_vectors(self, batch: int = 2000) -> Iterator[tuple[str, VectorSpace, bytes]]:
        from memwarden.store.sqlite import maintenance

        return maintenance.iter_vectors(self.db, batch)

    def tenants(self) -> list[str]:
        from memwarden.store.sqlite import maintenance

        return maintenance.tenants(self.db.connection())

    def table_counts(self) -> dict[str, int]:
        from memwarden.store.sqlite import maintenance

        return maintenance.table_counts(self.db.connection())

    def existing_ids(self, ids: Sequence[str]) -> set[str]:
        from memwarden.store.sqlite import maintenance

        return maintenance.existing_ids(self.db.connection(), ids)

    def import_memories(
        self, entries: Sequence[tuple[Memory, IndexText]], *, audit: WriteAudit | None = None
    ) -> list[str]:
        from memwarden.store.sqlite import maintenance

        return maintenance.import_memories(self.db, entries, audit=audit)

    def purge_expired(self, expired_before: datetime, *, audit: WriteAudit | None = None) -> list[str]:
        from memwarden.store.sqlite import maintenance

        return maintenance.purge_expired(self.db, expired_before, audit=audit)

    def vacuum(self) -> dict[str, int]:
        from memwarden.store.sqlite import maintenance

        return maintenance.vacuum(self.db)

    def put_state(self, key: str, value: str) -> None:
        index_state.put_state(self.db, key, value)

    def delete_state(self, key: str) -> None:
        index_state.delete_state(self.db, key)

    def states(self, prefix: str) -> dict[str, str]:
        return index_state.states(self.db.connection(), prefix)
