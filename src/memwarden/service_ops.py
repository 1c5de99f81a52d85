"""The operations half of ``MemoryService``: health, repair, review, export/import, maintenance.

Kept apart from ``service.py`` so each file stays readable; ``MemoryService`` inherits these
methods, and adapters call them on the service like any other operation. The heavy work lives in
``ops/``; these methods choose the caller, audit, and mirror the results.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from memwarden.audit import operations as audit_ops
from memwarden.audit.operations import audited
from memwarden.errors import InvalidInput, StorageError
from memwarden.models import Caller, IndexText, Memory
from memwarden.store.base import MaintainableStore

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.ops.options import OpsOptions
    from memwarden.search.vector_path import VectorPath
    from memwarden.store.base import Store
    from memwarden.vault.mirror import VaultMirror

SYNC_PAGE = 500


class OperationsMixin:
    """Whole-store operations of the service (see ``MemoryService`` for the attributes used)."""

    store: Store
    ops: OpsOptions
    vectors: VectorPath | None
    vault: VaultMirror | None
    purge_grace: timedelta
    clock: Callable[[], datetime]
    _caller: Callable[[Caller | None], Caller]
    _project: Callable[[object | None], str | None]
    _index_text: Callable[[Memory], IndexText]

    def health(self, *, repair: bool = True, caller: Caller | None = None) -> dict[str, Any]:
        """Integrity, a real keyword-index write, vectors, backups, vault; repairs the keyword index."""
        from memwarden.ops.health import check_health

        return check_health(self, repair=repair, caller=caller)

    def maintainable(self, operation: str) -> MaintainableStore:
        """The store's whole-store operations, or a clear error on a backend without them."""
        if not isinstance(self.store, MaintainableStore):
            raise StorageError(f"{operation} is not available on the {self.store.backend} backend yet")
        return self.store

    def rebuild_keyword_index(self) -> int:
        """Rebuild the keyword index from the memories table; the number of memories indexed."""
        return self.maintainable("rebuilding the keyword index").rebuild_keyword_index(self._index_text)

    def review(self, *, project: object | None = None, stale_days: object = 90, limit: object = 50,
               caller: Caller | None = None) -> dict[str, Any]:
        """Clean-up proposals (likely duplicates, never retrieved, stale, expired); deletes nothing."""
        from memwarden.ops.review import review_memories

        return review_memories(self, self._caller(caller), project=self._project(project),
                               stale_days=stale_days, limit=limit)

    @audited("export", audit_ops.count_summary)
    def export_to(self, out: IO[str], *, project: object | None = None, include_deleted: bool = False,
                  caller: Caller | None = None) -> int:
        """Write a memwarden export (format version 1) to ``out``; the number of memories."""
        from memwarden.ops.exchange import export_stream

        return export_stream(self, out, caller=caller, project=project, include_deleted=include_deleted)

    @audited("export", audit_ops.export_summary)
    def export(self, *, project: object | None = None, include_deleted: bool = False,
               caller: Caller | None = None) -> dict[str, Any]:
        """A memwarden export as one object (small exports; larger ones go to a file)."""
        from memwarden.ops.exchange import export_document

        return export_document(self, caller=caller, project=project, include_deleted=include_deleted)

    @audited("import", audit_ops.import_summary)
    def import_text(self, text: str, *, fmt: str = "auto", project: object | None = None,
                    caller: Caller | None = None, progress: Callable[[int, int], None] | None = None,
                    ) -> dict[str, Any]:
        """Import a memwarden export or another tool's file; dedups, keeps ids and times, redacts."""
        from memwarden.ops.exchange import import_records
        from memwarden.ops.importers import read_records

        found, records = read_records(text, fmt)
        who = self._caller(caller)
        report = import_records(self, found, records, caller=who, project=project, progress=progress)
        result = report.to_dict()
        if self.vectors is not None:
            result["embedded"] = self.vectors.embed_backlog()
        for start in range(0, len(report.ids) if self.vault is not None else 0, SYNC_PAGE):
            for memory in self.store.get_many(who.tenant, report.ids[start : start + SYNC_PAGE]):
                if memory.deleted_at is None and self.vault is not None:
                    self.vault.upserted(memory)
        return result

    def export_file(self, name: object, *, project: object | None = None, include_deleted: bool = False,
                    caller: Caller | None = None) -> dict[str, Any]:
        """Write an export to ``name`` in the exchange folder (a plain name; never overwrites)."""
        from memwarden.ops.transfer import safe_file_name

        target = self._exchange_dir() / safe_file_name(name)
        try:
            handle = target.open("x", encoding="utf-8")
        except FileExistsError:
            raise InvalidInput(f"{target.name} exists in the export folder; choose a new name", field="name") from None
        try:
            with handle:
                count = self.export_to(handle, project=project, include_deleted=include_deleted, caller=caller)
        except BaseException:
            target.unlink(missing_ok=True)
            raise
        return {"file": str(target), "count": count}

    def import_file(self, name: object, *, fmt: str = "auto", project: object | None = None,
                    caller: Caller | None = None) -> dict[str, Any]:
        """Import the file ``name`` from the exchange folder (a plain name; size-checked first)."""
        from memwarden.ops.transfer import read_limited, safe_file_name

        text = read_limited(self._exchange_dir() / safe_file_name(name), self.ops.import_max_bytes)
        return self.import_text(text, fmt=fmt, project=project, caller=caller)

    def _exchange_dir(self) -> Path:
        if self.ops.exchange_dir is None:
            raise InvalidInput("file export and import are not available here; pass the data inline", field="name")
        self.ops.exchange_dir.mkdir(parents=True, exist_ok=True)
        return self.ops.exchange_dir

    def purge_expired(self) -> list[str]:
        """Remove for good the memories that expired more than the grace period ago; their ids."""
        purged = self.maintainable("purging expired memories").purge_expired(self.clock() - self.purge_grace)
        if self.vault is not None:
            for memory_id in purged:  # ids of any tenant; a folder only holds the mirrored tenant's
                self.vault.removed(self.vault.tenant, memory_id)
        return purged

    def vacuum(self) -> dict[str, Any]:
        """Purge expired memories past the grace period, then compact the database."""
        purged = self.purge_expired()
        return {"purged": len(purged), **self.maintainable("vacuum").vacuum()}

