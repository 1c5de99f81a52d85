"""Operations: whole-store work on behalf of a caller or the operator.

Health (with keyword-index repair), review, export and import (inline and through the exchange
folder), purge and vacuum, the vault mirror, and audit rows for operations done elsewhere
(backups, restores). The heavy lifting lives in the sibling modules (``health``, ``review``,
``exchange``, ``transfer``); this class chooses the caller, audits, and mirrors the results.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from memwarden.audit import operations as audit_ops
from memwarden.audit.chain import CLOCK_AHEAD_TOLERANCE, PURGE_CLOCK_JUMP, recent_clock_jumps
from memwarden.audit.operations import AuditCall, audited
from memwarden.errors import ConfigError, Conflict, InvalidInput, MemwardenError, StorageError
from memwarden.intake import Intake
from memwarden.models import Caller, Memory, format_time, parse_time, utcnow
from memwarden.ops.health import check_health
from memwarden.ops.markers import incomplete_operations, marked
from memwarden.ops.options import OpsOptions
from memwarden.ops.review import review_memories
from memwarden.ops.transfer import read_limited, safe_file_name, tenant_folder_name
from memwarden.store.base import MaintainableStore, StateStore, Store

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.audit.auditor import Auditor
    from memwarden.search.searcher import Searcher
    from memwarden.search.vector_path import VectorPath
    from memwarden.vault.mirror import VaultMirror

logger = logging.getLogger(__name__)
# _EXCHANGE_IMPORTS: export and import load their modules when called. The export format's
# models pull in pydantic, and every `memwarden search` and prompt hook builds this class: they
# never export or import, and must not pay for it.

# Memories read per page when the vault mirror is synced or fed an import.
SYNC_PAGE = 500
# The ids a review or vault sync row names: at most this many (the count of all is in the row).
AUDIT_IDS_LISTED = 1000


def review_summary(report: Any) -> audit_ops.Summary:
    """The review row: the memories the review showed (each proposal's id; both of a pair)."""
    shown: dict[str, None] = {}
    for pair in report["duplicates"]:
        shown.update({pair["keep"]["id"]: None, pair["candidate"]["id"]: None})
    for key in ("never_retrieved", "stale", "expired", "flagged"):
        shown.update({item["id"]: None for item in report[key]})
    ids = list(shown)
    return {
        "memory_ids": ids[:AUDIT_IDS_LISTED],
        "result_count": len(ids),
        "detail": {"reviewed": report["reviewed"], "counts": report["counts"]},
    }


class Operations:
    """Whole-store operations; ``caller`` on each method as in ``Memories``."""

    def __init__(
        self,
        store: Store,
        intake: Intake,
        searcher: Searcher,
        *,
        default_caller: Caller,
        options: OpsOptions | None = None,
        clock: Callable[[], datetime] = utcnow,
        auditor: Auditor | None = None,
        vectors: VectorPath | None = None,
        vault: VaultMirror | None = None,
    ) -> None:
        self.store = store
        self.intake = intake
        self.searcher = searcher
        self.default_caller = default_caller
        self.options = options or OpsOptions()
        self.backups = self.options.backups
        self.clock = clock
        self.auditor = auditor
        self.vectors = vectors
        self.vault = vault

    def _caller(self, caller: Caller | None) -> Caller:
        return caller or self.default_caller

    def audit(
        self,
        action: str,
        *,
        caller: Caller | None = None,
        project: str | None = None,
        memory_ids: Sequence[str] = (),
        result_count: int = 0,
        degraded: bool = False,
        redaction_count: int = 0,
        outcome: str = "ok",
        query: str | None = None,
        detail: dict[str, Any] | None = None,
    ) -> None:
        """Record one audit row for an operation done outside the service (backups, restores…).

        ``action`` is one of ``audit.base.ACTIONS``; a no-op when auditing is off. The project
        and the detail's text may be what a caller typed (a dashboard filter, a file name, an
        error quoting either): they are redacted like any stored text.
        """
        if self.auditor is not None:
            self.auditor.record(
                action,
                self._caller(caller),
                project=None if project is None else self.intake.redact_text(project),
                memory_ids=memory_ids,
                result_count=result_count,
                degraded=degraded,
                redaction_count=redaction_count,
                outcome=outcome,
                query=query,
                detail=None if detail is None else self._redacted(detail),
            )

    def _redacted(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.intake.redact_text(value)
        if isinstance(value, dict):
            return {k: self._redacted(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self._redacted(v) for v in value]
        return value

    # -- health and the keyword index --------------------------------------------------------------

    def incomplete_operations(self) -> list[dict[str, Any]]:
        """Long operations that started on this database and did not finish, with what to do."""
        if not isinstance(self.store, StateStore):
            return []
        return incomplete_operations(self.store, self.options.database_file)

    def maintainable(self, operation: str) -> MaintainableStore:
        """The store's whole-store operations, or a clear error on a backend without them."""
        if not isinstance(self.store, MaintainableStore):
            raise StorageError(f"{operation} is not available on the {self.store.backend} backend yet")
        return self.store

    def ensure_index(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Re-index stored memories if the keyword index was built by another analyzer
        (an older version, or other MEMWARDEN_LANGUAGES); returns how many were re-indexed."""
        return self.store.ensure_index(self.intake.analyzer.fingerprint, self.intake.index_text, progress)

    def rebuild_keyword_index(self) -> int:
        """Rebuild the keyword index from the memories table; the number of memories indexed."""
        return self.maintainable("rebuilding the keyword index").rebuild_keyword_index(self.intake.index_text)

    def health(self, *, repair: bool = True, caller: Caller | None = None) -> dict[str, Any]:
        """Integrity, a real keyword-index write, vectors, backups, vault, operations that did not
        finish, clock jumps in the audit log; repairs the keyword index."""
        try:
            incomplete = self.incomplete_operations()
        except StorageError:  # the database cannot be read at all: check_health says why
            incomplete = []
        clock: dict[str, Any] | None
        anchor: dict[str, Any] | None
        try:
            clock, anchor = self.clock_status(), self.anchor_status()
        except StorageError as exc:  # the audit log cannot be read (a damaged page): its checks fail
            clock = {"ok": False, "state": "unreadable", "message": exc.message}
            anchor = None if self.auditor is None or self.auditor.anchor is None else dict(clock)
        report = check_health(
            self.store,
            rebuild_keyword_index=self.rebuild_keyword_index,
            vector_status=lambda: self.searcher.vector_status(caller=caller),
            backups=self.backups,
            vault_status=self.vault_status(probe=True),
            repair=repair,
            incomplete=incomplete,
            clock=clock,
            anchor=anchor,
        )
        # One ``health`` row per check. Best effort, unlike other reads: health is how a damaged
        # database (an audit table that refuses rows included) is diagnosed, so it answers
        # anyway; the lost row is logged as an error. Not on the target of a migrate that has not
        # finished: its audit log must stay the source's rows, in order, for the migrate to resume.
        if any(op.get("operation") == "migrate" for op in incomplete):
            return report
        try:
            self.audit(
                "health",
                caller=caller,
                detail={"status": report.get("status"), "repair": bool(repair)},
            )
        except MemwardenError as exc:
            logger.error("health answered without its audit row: %s", exc.message)
        return report

    def anchor_status(self) -> dict[str, Any]:
        """The audit chain against MEMWARDEN_AUDIT_ANCHOR_FILE: ``rolled_back`` when the database
        lost acknowledged rows the anchor recorded (a damaged -wal, a copied-back file)."""
        if self.auditor is None or self.auditor.anchor is None:
            return {"ok": True, "state": "not_configured"}
        problem = self.auditor.check_anchor()
        if problem is None:
            return {"ok": True, "state": "ok"}
        return {"ok": False, "state": problem["kind"], **problem}

    def clock_status(self) -> dict[str, Any]:
        """Clock jumps among the newest audit rows (a row stamped before the one ahead of it, or
        ahead of this clock); ``not_checked`` with auditing off."""
        if self.auditor is None:
            return {"ok": True, "state": "not_checked", "note": "auditing is off (MEMWARDEN_AUDIT=false)"}
        jumps = recent_clock_jumps(self.auditor.log, self.clock())
        return {
            "ok": not jumps,
            "state": "jumped" if jumps else "ok",
            "newest_audit_row": self.auditor.log.latest_stamp(),
            "jumps": [j.to_dict() for j in jumps[:10]],
        }

    def _purge_guard(self, force: bool) -> None:
        """Refuse to purge when this clock reads far after (or before) the newest audit row:
        on a clock set forward, a purge would remove memories before they really expired."""
        if force or self.auditor is None:
            return
        latest = parse_time(self.auditor.log.latest_stamp())
        now = self.clock()
        if latest is None:
            return
        if now - latest > PURGE_CLOCK_JUMP or latest - now > CLOCK_AHEAD_TOLERANCE:
            gap = now - latest
            raise Conflict(
                f"refusing to purge expired memories: this clock reads {format_time(now)}, "
                f"{abs(gap.total_seconds()) / 86400:.1f} days {'after' if gap.total_seconds() > 0 else 'before'} the "
                f"newest audit row ({format_time(latest)}). If the clock jumped, a purge could remove memories "
                "before they really expired. If the clock is right (memwarden was idle), run again with --force",
                field="force",
            )

    @audited("review", review_summary)
    def review(
        self,
        *,
        project: object | None = None,
        stale_days: object = 90,
        limit: object = 50,
        caller: Caller | None = None,
    ) -> dict[str, Any]:
        """Clean-up proposals (likely duplicates, never retrieved, stale, expired); deletes nothing."""
        who = self._caller(caller)
        scope = self.intake.clean_project(project)
        stored = self.maintainable("review").iter_memories(who.tenant, project=scope, include_deleted=False)
        return review_memories(
            stored,
            self.intake.analyzer,
            who,
            project=scope,
            stale_days=stale_days,
            limit=limit,
            now=self.clock(),
            purge_grace=self.options.purge_grace,
        )

    # -- export and import ---------------------------------------------------------------------

    @audited("export", audit_ops.count_summary)
    def export_to(
        self,
        out: IO[str],
        *,
        project: object | None = None,
        include_deleted: bool = False,
        caller: Caller | None = None,
    ) -> int:
        """Write a memwarden export (format version 1) to ``out``; the number of memories."""
        from memwarden.ops.exchange import export_stream  # see _EXCHANGE_IMPORTS

        return export_stream(
            self.maintainable("export"),
            out,
            caller=self._caller(caller),
            project=self.intake.clean_project(project),
            include_deleted=bool(include_deleted),
            now=self.clock(),
        )

    @audited("export", audit_ops.export_summary)
    def export(
        self, *, project: object | None = None, include_deleted: bool = False, caller: Caller | None = None
    ) -> dict[str, Any]:
        """A memwarden export as one object (small exports; larger ones go to a file)."""
        from memwarden.ops.exchange import export_document  # see _EXCHANGE_IMPORTS

        return export_document(
            self.maintainable("export"),
            caller=self._caller(caller),
            project=self.intake.clean_project(project),
            include_deleted=bool(include_deleted),
            now=self.clock(),
        )

    @audited("import", None)
    def import_text(
        self,
        text: str,
        *,
        fmt: str = "auto",
        project: object | None = None,
        caller: Caller | None = None,
        progress: Callable[[int, int], None] | None = None,
        audit: AuditCall | None = None,
    ) -> dict[str, Any]:
        """Import a memwarden export or another tool's file; dedups, keeps ids and times, redacts.

        Each batch commits with its own audit row; a summary row of the whole import follows."""
        from memwarden.ops.exchange import CHUNK as IMPORT_CHUNK  # see _EXCHANGE_IMPORTS
        from memwarden.ops.exchange import import_records
        from memwarden.ops.importers import read_records

        found, records = read_records(text, fmt, redact=self.intake.redact_text)
        who = self._caller(caller)
        # An import of several batches marks the database until its last batch is in (ops/markers.py);
        # the mark is named after the tenant and the file, so running the same import again clears it.
        digest = hashlib.sha256(f"{who.tenant}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()[:16]
        marker = f"import:{digest}" if len(records) > IMPORT_CHUNK else None
        store = self.maintainable("import")
        state = store if marker is not None and isinstance(store, StateStore) else None
        with marked(state, marker or "import", records=len(records)):
            report = import_records(
                store,
                self.intake,
                found,
                records,
                caller=who,
                now=self.clock(),
                project=project,
                progress=progress,
                operator=who.same_party(self.default_caller),
                # Only a person at the terminal: an agent's import (an MCP tool, HTTP) must not
                # be able to store hostile text unflagged by saying a user cleared it.
                keep_cleared=who.source == "cli" and who.same_party(self.default_caller),
                audit=audit.for_write() if audit is not None else None,
            )
        result = report.to_dict()
        if report.kept_cleared:  # audited like a clear: which memories came in unflagged, and why
            self.audit(
                "update",
                caller=who,
                memory_ids=report.kept_cleared,
                result_count=len(report.kept_cleared),
                detail={"kept_cleared_from_import": True},
            )
        if audit is not None:
            audit.record(
                audit_ops.import_summary(result),
                redaction_count=report.redaction_matches,
                after_rows=report.batches > 0,
            )
        if self.vectors is not None:
            result["embedded"] = self.vectors.embed_backlog()
        for start in range(0, len(report.ids) if self.vault is not None else 0, SYNC_PAGE):
            for memory in self.store.get_many(who.tenant, report.ids[start : start + SYNC_PAGE]):
                if memory.deleted_at is None and self.vault is not None:
                    self.vault.upserted(memory)
        return result

    def export_file(
        self,
        name: object,
        *,
        project: object | None = None,
        include_deleted: bool = False,
        caller: Caller | None = None,
    ) -> dict[str, Any]:
        """Write an export to ``name`` in the caller's exchange folder (a plain name; never overwrites)."""
        try:
            target = self.exchange_dir(caller) / safe_file_name(name)
            try:
                handle = target.open("x", encoding="utf-8")
            except FileExistsError:
                raise InvalidInput(
                    f"{target.name} exists in your export folder; choose a new name", field="name"
                ) from None
        except MemwardenError as exc:  # refused before the export ran: still one audit row
            self._failed("export", caller, exc, name)
            raise
        try:
            with handle:
                count = self.export_to(
                    handle, project=project, include_deleted=include_deleted, caller=caller
                )
        except BaseException:
            target.unlink(missing_ok=True)
            raise
        return {"file": str(target), "count": count}

    def import_file(
        self, name: object, *, fmt: str = "auto", project: object | None = None, caller: Caller | None = None
    ) -> dict[str, Any]:
        """Import the file ``name`` from the caller's exchange folder (a plain name; size-checked first)."""
        try:
            text = read_limited(
                self.exchange_dir(caller) / safe_file_name(name), self.options.import_max_bytes
            )
        except MemwardenError as exc:
            self._failed("import", caller, exc, name)
            raise
        return self.import_text(text, fmt=fmt, project=project, caller=caller)

    def _failed(self, action: str, caller: Caller | None, exc: MemwardenError, name: object = None) -> None:
        """Record an operation refused before it ran (its error code as the outcome)."""
        detail: dict[str, Any] = {"error": self.intake.redact_text(exc.message)[:200]}  # cut once redacted
        if name is not None:
            detail["file"] = name if isinstance(name, str) else None
        try:
            self.audit(action, caller=caller, outcome=exc.code, detail=detail)
        except MemwardenError as failed:  # the original error matters more; the failure is logged
            # Refused on the database (read-only, full): the row fails for the reason the
            # caller's error already gives, so a second line would only repeat it.
            if isinstance(exc, StorageError):
                logger.debug("a failed %s not recorded in the audit log: %s", action, failed.message)
                return
            logger.error("could not record a failed %s in the audit log: %s", action, failed.message)

    def refused(
        self, action: str, exc: MemwardenError, *, name: object = None, caller: Caller | None = None
    ) -> None:
        """Record ``action`` refused before it ran (an adapter's own checks: the CLI's
        ``export --out`` of an existing file, ``import`` of a file it cannot read)."""
        self._failed(action, caller, exc, name)

    def _record_read(self, what: str, action: str, caller: Caller | None, **fields: Any) -> None:
        """Write the row of a read before its results leave (fail closed, as ``@audited``)."""
        try:
            self.audit(action, caller=caller, **fields)
        except MemwardenError as exc:
            if self.auditor is None or not self.auditor.reads_fail_open:
                raise audit_ops.refused_read(what, exc) from exc  # the message of every refused read
            logger.error(
                "%s served without its audit row (MEMWARDEN_AUDIT_READS_FAIL_OPEN): %s", what, exc.message
            )

    def exchange_dir(self, caller: Caller | None = None) -> Path:
        """The folder file exports and imports of ``caller`` use: the exchange folder itself for the
        local operator, ``tenants/<tenant folder>/`` inside it for any other caller, so tenants
        never see, clash with or import each other's files."""
        if self.options.exchange_dir is None:
            raise InvalidInput(
                "file export and import are not available here; pass the data inline", field="name"
            )
        who = self._caller(caller)
        folder = self.options.exchange_dir
        if not who.same_party(self.default_caller):
            folder = folder / "tenants" / tenant_folder_name(who.tenant)
        folder.mkdir(parents=True, exist_ok=True)
        return folder

    # -- expiry and compaction -----------------------------------------------------------------

    def purge_expired(self, *, force: bool = False, caller: Caller | None = None) -> list[str]:
        """Remove for good the memories that expired more than the grace period ago; their ids.

        Refused (``Conflict``) when the clock reads more than a day after the newest audit row,
        or ahead of it, unless ``force``: see ``_purge_guard``.

        A purge that removed something writes one ``purge`` row in its own transaction (the
        count, the first ``PURGE_IDS_LISTED`` ids, the cutoff): when the row cannot be written
        nothing is removed. A purge that found nothing writes no row, so the purge at every
        server start does not fill the log; a refused or failed purge records its error."""
        try:
            self._purge_guard(force)
        except Conflict as exc:
            self._failed("purge", caller, exc)
            raise
        cutoff = self.clock() - self.options.purge_grace
        store = self.maintainable("purging expired memories")
        if self.auditor is None:
            purged = store.purge_expired(cutoff)
        else:
            try:
                purged = store.purge_expired(
                    cutoff, audit=self.auditor.for_write("purge", self._caller(caller))
                )
            except MemwardenError as exc:
                self._failed("purge", caller, exc)
                raise
        if self.vault is not None:
            for memory_id in purged:  # ids of any tenant; a folder only holds the mirrored tenant's
                self.vault.removed(self.vault.tenant, memory_id)
        return purged

    def vacuum(self, *, force: bool = False, caller: Caller | None = None) -> dict[str, Any]:
        """Purge expired memories past the grace period (``purge_expired``: one ``purge`` row
        when something was removed), then compact the database."""
        purged = self.purge_expired(force=force, caller=caller)
        return {"purged": len(purged), **self.maintainable("vacuum").vacuum()}

    # -- the vault mirror ------------------------------------------------------------------------

    def vault_status(self, *, probe: bool = False) -> dict[str, Any]:
        """The vault mirror's state for health checks: pending changes, errors, the last error,
        the folders failing now; ``probe=True`` first tries a real file write in each folder."""
        if self.vault is None:
            return {
                "enabled": False,
                "pending": 0,
                "errors": 0,
                "last_error": None,
                "failing": [],
                "folders": [],
            }
        if probe:
            self.vault.probe()
        return self.vault.status()

    def vault_flush(self, timeout: float = 10.0) -> bool:
        """Wait (bounded) until every change so far is in the vault folders; False on timeout."""
        return True if self.vault is None else self.vault.flush(timeout)

    def vault_sync(
        self, progress: Callable[[int, int], None] | None = None, *, caller: Caller | None = None
    ) -> dict[str, Any]:
        """Rebuild every vault note of the mirrored tenant; remove notes of deleted memories
        (``progress(done, total)`` as it goes).

        Every note is memory content leaving the database, so the ``vault_sync`` row (how many
        memories, the first ids, the folders) is written before the first note: when it cannot
        be written the sync is refused and no folder is touched, like any read (unless
        MEMWARDEN_AUDIT_READS_FAIL_OPEN)."""
        if self.vault is None:
            exc = ConfigError(
                "no vault folders are configured: set MEMWARDEN_VAULT_DIRS to one or more folders "
                "(separated by the OS path separator) and run again"
            )
            self._failed("vault_sync", caller, exc)
            raise exc
        vault = self.vault
        memories: list[Memory] = []
        while page := self.store.list_memories(
            vault.tenant,
            project=None,
            pinned_only=False,
            include_expired=False,
            now=self.clock(),
            limit=SYNC_PAGE,
            offset=len(memories),
        ):
            memories.extend(page)
        self._record_read(
            "vault sync",
            "vault_sync",
            caller,
            memory_ids=[m.id for m in memories[:AUDIT_IDS_LISTED]],
            result_count=len(memories),
            detail={"folders": [str(f.root) for f in vault.folders]},
        )
        # Marked until every folder was rewritten (ops/markers.py): a killed sync is reported by health.
        folders = "\0".join(str(f.root) for f in vault.folders)
        marker = "vault-sync:" + hashlib.sha256(f"{vault.tenant}\0{folders}".encode()).hexdigest()[:16]
        state = self.store if isinstance(self.store, StateStore) else None
        with marked(state, marker, tenant=vault.tenant, folders=folders.split("\0")) as block:
            report = vault.sync(memories, progress)
            if not report["ok"]:  # a folder could not be written: that folder is not in sync
                block.fail("; ".join(str(r["error"]) for r in report["folders"] if r["error"]))
        return report

    def reindex_embeddings(self, *, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        """``memwarden reindex --embeddings`` (``Searcher.reindex_embeddings``), marked on the
        database until it finished, so a killed or failed run is reported by health."""
        with marked(self.store if isinstance(self.store, StateStore) else None, "reindex-embeddings"):
            return self.searcher.reindex_embeddings(progress=progress)
