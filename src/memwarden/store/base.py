"""The Store protocol: what the service needs from a database. Imports no backend."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from memwarden.models import Candidate, IndexText, KeywordQuery, Memory


@runtime_checkable
class Store(Protocol):
    """A tenant-scoped memory store with a keyword index kept in the same transaction.

    Every method takes the tenant explicitly; no method returns another tenant's rows.
    """

    backend: str

    def add(self, memory: Memory, index: IndexText) -> tuple[Memory, bool]:
        """Insert ``memory`` unless a live one with the same tenant+project+hash exists.

        Returns ``(stored, duplicate)``: the existing memory and True on a duplicate.
        """
        ...

    def get_many(self, tenant: str, ids: Sequence[str]) -> list[Memory]:
        """Memories with these ids (deleted ones included), in the order asked."""
        ...

    def update(self, memory: Memory, index: IndexText, *, expected_version: int) -> Memory:
        """Replace the row if its version is still ``expected_version``; bumps the version.

        Raises Conflict on a stale version or when the new content duplicates another memory.
        """
        ...

    def soft_delete(self, tenant: str, memory_id: str, now: datetime) -> Memory | None:
        """Mark deleted and drop from the indexes; None when the id is unknown."""
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

    def record_hits(self, tenant: str, ids: Sequence[str], now: datetime) -> None:
        """Count one use of each memory and stamp ``last_used_at``."""
        ...

    def stats(self, tenant: str, project: str | None, now: datetime) -> dict[str, Any]:
        """Counts and sizes for one tenant (optionally one project)."""
        ...

    def close(self) -> None: ...
