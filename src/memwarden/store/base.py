"""The Store protocol: what the service needs from a database. Imports no backend.

A method that changes memories (or counts a search's uses) takes ``audit``: the row the service
built for the operation (``audit/write_audit.py``). The store appends it on the write's own
connection, inside its transaction, so both commit or neither does; when the row cannot be
appended the method raises and nothing stored changes. ``audit=None`` writes no row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from memwarden.models import Candidate, IndexText, KeywordQuery, Memory, VectorCounts, VectorSpace

if TYPE_CHECKING:  # pragma: no cover - only browsing builds these (memwarden/browsing.py)
    from memwarden.audit.write_audit import WriteAudit
    from memwarden.browsing import BrowseCursor, MemoryPage, MemoryQuery, StoreOverview


@runtime_checkable
class Store(Protocol):
    """A tenant-scoped memory store with a keyword index kept in the same transaction.

    Every method takes the tenant explicitly; no method returns another tenant's rows.
    """

    backend: str

    def add(
        self, memory: Memory, index: IndexText, *, audit: WriteAudit | None = None
    ) -> tuple[Memory, bool]:
        """Insert ``memory`` unless a live one with the same tenant+project+hash exists.

        Returns ``(stored, duplicate)``: the existing memory and True on a duplicate. The
        ``audit`` row names the stored (or existing) id, ``duplicate`` in its detail.
        """
        ...

    def get_many(self, tenant: str, ids: Sequence[str]) -> list[Memory]:
        """Memories with these ids (deleted ones included), in the order asked."""
        ...

    def thread_neighbours(self, tenant: str, ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
        """For each of ``ids`` that has a thread, the ids of the live memories just before and
        after it in that thread (by ``occurred_at``, then storing order); others are absent."""
        ...

    def indexed_memories(self, tenant: str, ids: Sequence[str]) -> list[Candidate]:
        """The live memories with these ids, each with its analyzed index text (score 0)."""
        ...

    def near_duplicate_candidates(
        self, tenant: str, query: KeywordQuery, *, project: str, now: datetime, limit: int
    ) -> list[tuple[str, str, str | None]]:
        """(id, content, analyzed content or None) of live memories of ``project`` holding any
        word of ``query``, most similar first, for the near-duplicate check of every add: only
        the columns that check reads, so it stays cheap. When the words are common, only the
        newest matches are ranked (a bound on the add's cost)."""
        ...

    def update(
        self,
        memory: Memory,
        index: IndexText,
        *,
        expected_version: int,
        audit: WriteAudit | None = None,
    ) -> Memory:
        """Replace the row if its version is still ``expected_version``; bumps the version.
        The ``audit`` row gets the new version in its detail.

        Raises Conflict on a stale version or when the new content duplicates another memory.
        """
        ...

    def soft_delete(
        self, tenant: str, memory_id: str, now: datetime, *, audit: WriteAudit | None = None
    ) -> Memory | None:
        """Mark deleted and drop from the indexes; None when the id is unknown. The ``audit``
        row is written only when this call deleted the memory."""
        ...

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
        """Live memories matching any term, best first; score is higher-is-better."""
        ...

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
        """Live memories, most recently updated first; only pinned ones with ``pinned_only``."""
        ...

    def record_hits(
        self, tenant: str, ids: Sequence[str], now: datetime, *, audit: WriteAudit | None = None
    ) -> None:
        """Count one use of each memory and stamp ``last_used_at``; the search's ``audit`` row
        (naming ``ids``) commits in the same transaction. Nothing happens without ids."""
        ...

    def stats(self, tenant: str, project: str | None, now: datetime) -> dict[str, Any]:
        """Counts and sizes for one tenant (optionally one project)."""
        ...

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
        """Live, unexpired memories matching ``query``, most recently updated first (then by id,
        descending), one page: the first, or the one just older than ``after``, or the one
        just newer than ``before`` (keyset paging: an indexed range, no OFFSET).

        ``total`` counts matches up to ``count_limit`` (``total_is_lower_bound`` when there are
        more), so a page costs the same on a large database as on a small one.
        """
        ...

    def projects(self, tenant: str) -> list[str]:
        """The projects holding live memories of ``tenant``, sorted (the dashboard's pickers)."""
        ...

    def overview(self, tenant: str, *, now: datetime, weeks_since: datetime, top: int) -> StoreOverview:
        """Counts per project and kind, memories added per week (since ``weeks_since``) per
        project, the ``top`` most recalled memories and redactions per rule, for live memories."""
        ...

    def ensure_index(
        self,
        fingerprint: str,
        index_for: Callable[[Memory], IndexText],
        progress: Callable[[int, int], None] | None = None,
    ) -> int:
        """Re-index every live memory unless the keyword index was built by ``fingerprint``.

        ``fingerprint`` names the analyzer (version and languages); ``index_for`` analyzes one
        memory; ``progress(done, total)`` is called as the work proceeds. Returns how many
        memories were re-indexed (0 when the index was current). Safe when several processes
        start at once: one re-indexes, the others find the index current.
        """
        ...

    def close(self) -> None: ...


@runtime_checkable
class MaintainableStore(Protocol):
    """Whole-store operations used by health, self-repair, export/import, review and purge.

    A backend provides these beside ``Store``; the service reports an operation as not
    available on a backend that does not (``tests/contract/test_maintenance.py``).
    """

    def integrity_problems(self) -> list[str]:
        """What the database's own integrity check finds (empty when sound)."""
        ...

    def probe_keyword_index(self) -> str | None:
        """Write a probe row into the keyword index, commit, read it back, remove it: None when
        all of that worked, else what failed."""
        ...

    def keyword_index_mismatch(self) -> str | None:
        """None when the keyword index holds exactly the live memories, else what differs."""
        ...

    def rebuild_keyword_index(self, index_for: Callable[[Memory], IndexText]) -> int:
        """Build the keyword index again from the memories table; the number of rows indexed."""
        ...

    def iter_memories(self, tenant: str, *, project: str | None, include_deleted: bool) -> Iterator[Memory]:
        """Every memory of a tenant (optionally one project), oldest first, in batches."""
        ...

    def existing_ids(self, ids: Sequence[str]) -> set[str]:
        """Which of these ids are stored, in any tenant, deleted or not (ids are unique)."""
        ...

    def import_memories(
        self, entries: Sequence[tuple[Memory, IndexText]], *, audit: WriteAudit | None = None
    ) -> list[str]:
        """Insert memories keeping their ids and times; per entry ``inserted``, ``same_id`` or
        ``duplicate`` (same tenant+project+content as a live memory). Each batch transaction
        appends its own ``audit`` row (the ids it inserted, ``batch`` in its detail)."""
        ...

    def purge_expired(self, expired_before: datetime, *, audit: WriteAudit | None = None) -> list[str]:
        """Remove for good the memories that expired before ``expired_before``; their ids. The
        ``audit`` row (``write_audit.append_purge_row``) is written only when something went."""
        ...

    def vacuum(self) -> dict[str, int]:
        """Compact the database: ``{"bytes_before", "bytes_after"}``."""
        ...


@runtime_checkable
class VectorStore(Protocol):
    """The vector half of a store: vectors kept with their space (model id + dimension).

    A search only ever compares vectors of one space. A backend offers vector search by
    implementing these methods next to ``Store`` (SQLite: ``store/sqlite/vectors.py``); the
    service checks ``isinstance(store, VectorStore)`` and, when a backend lacks them, searches
    by keywords with ``degrade_reason="vector_error"`` instead of failing.
    """

    def put_vectors(self, space: VectorSpace, items: Sequence[tuple[str, int, bytes]]) -> int:
        """Store ``(memory_id, version, float32 bytes)`` rows; clears their embedding error.

        A row is skipped when the memory was deleted or changed (its version moved on) since
        it was read for embedding. Returns how many were stored.
        """
        ...

    def record_embedding_failure(self, ids: Sequence[str], error: str) -> None:
        """Remember that embedding these memories failed (the backfill retries them)."""
        ...

    def memories_missing_vectors(
        self, space: VectorSpace, *, limit: int, tenant: str | None = None
    ) -> list[Memory]:
        """Live memories (of every tenant unless given) that have no vector in ``space``."""
        ...

    def missing_vectors_page(
        self, space: VectorSpace, cursor: Any, *, limit: int, tenant: str | None = None
    ) -> tuple[list[Memory], Any]:
        """The next ``limit`` of ``memories_missing_vectors`` after ``cursor`` (``None`` at
        first), and the cursor after them: a backfill walks the table once, in key order, however
        many batches it embeds (an empty page: done)."""
        ...

    def embedding_queue(self, space: VectorSpace, mark: Any, *, limit: int) -> tuple[list[Memory], Any]:
        """Up to ``limit`` live memories without a vector in ``space`` whose embedding has not
        failed, found from the backend's watermark ``mark`` (``None`` at first), and the next mark.
        The background embedder drains this queue; its cost follows what changed."""
        ...

    def failed_embeddings(self, space: VectorSpace, *, limit: int) -> list[Memory]:
        """Live memories whose last embedding failed and that still lack a vector in ``space``."""
        ...

    def vector_counts(self, tenant: str | None, space: VectorSpace) -> VectorCounts:
        """How many live memories there are, how many have a vector in ``space``, how many failed."""
        ...

    def holds_other_vectors(self, space: VectorSpace) -> bool:
        """Whether any vector of another space is stored: an earlier model's, after a change of
        model (the server then says that it embeds every memory again)."""
        ...

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
        """Live memories nearest to ``query`` (unit float32) in ``space``; score is the cosine."""
        ...

    def warm_vectors(self, space: VectorSpace) -> None:
        """Load what the first vector search of ``space`` needs (called in the background)."""
        ...


@runtime_checkable
class VectorStoreProbe(Protocol):
    """A backend that can test its vector table with a real write and read-back (health)."""

    def probe_vector_store(self) -> str | None:
        """None when a vector row could be written, read back and removed; the problem otherwise."""
        ...


# The state row that remembers a user's clear of a memory's screening flags: this prefix and the
# memory id, valued by a digest of the text screening read (``memories.Memories.clear_flags``).
# The row follows its memory: a purge deletes it in the purge's transaction, a migrate copies it.
CLEARED_FLAGS_STATE = "screening-cleared:"


@runtime_checkable
class StateStore(Protocol):
    """Small named values a store keeps about itself (``index_state``), committed on write.

    Markers of operations that have not finished live here (``ops/markers.py``), so every
    process and replica using the database sees them.
    """

    def put_state(self, key: str, value: str) -> None: ...

    def delete_state(self, key: str) -> None: ...

    def states(self, prefix: str) -> dict[str, str]:
        """The state rows whose key starts with ``prefix``, by key."""
        ...


@runtime_checkable
class CopySource(MaintainableStore, Protocol):
    """What ``memwarden migrate`` reads from the store it copies."""

    def tenants(self) -> list[str]:
        """Every tenant with a memory (deleted ones included), sorted."""
        ...

    def table_counts(self) -> dict[str, int]:
        """Rows per table."""
        ...

    def iter_vectors(self) -> Iterator[tuple[str, VectorSpace, bytes]]:
        """Every stored vector as ``(memory_id, space, float32 bytes)``."""
        ...


@runtime_checkable
class CopyTarget(MaintainableStore, StateStore, Protocol):
    """What ``memwarden migrate`` writes into: memories, vectors, and its unfinished-copy marker."""

    def table_counts(self) -> dict[str, int]:
        """Rows per table."""
        ...

    def get_many(self, tenant: str, ids: Sequence[str]) -> list[Memory]:
        """Memories with these ids (deleted ones included): a resumed copy compares them."""
        ...

    def load_vectors(
        self, space: VectorSpace, rows: Iterable[tuple[str, bytes]], *, skip_existing: bool = False
    ) -> int:
        """Store vectors copied from another store; how many were stored. ``skip_existing`` keeps
        vectors already stored (a resumed copy) instead of failing on them."""
        ...
