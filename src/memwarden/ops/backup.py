"""Verified backups: take, verify, record, keep N, restore.

Every backup is verified right after it is written (opened, integrity check, row counts equal
to the source at the instant of the copy, audit chain verifies); the result is recorded next to
the file (``<file>.verify.json``) and as the last backup of the backup directory
(``last-backup.json``), which is what health reports.

The database-specific work is a ``BackupBackend``: SQLite's lives in
``store/sqlite/backup.py``; another backend registers its own in ``backend_for``.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from memwarden.errors import InvalidInput, MemwardenError, StorageError
from memwarden.models import Caller, format_time, parse_time
from memwarden.ops.markers import mark_file, restore_marker
from memwarden.os_error_words import nearest_existing, os_error_words

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.audit.anchor import AnchorFile
    from memwarden.audit.auditor import Auditor
    from memwarden.audit.keys import AuditKey

logger = logging.getLogger(__name__)
PREFIX = "memwarden-"
LAST = "last-backup.json"
SIDECAR = ".verify.json"
REASONS = ("start", "manual", "timer", "pre-restore")


class BackupBackend(Protocol):
    """What a database backend provides for backups."""

    suffix: str
    database_url: str
    # False where a backup per start would be wrong (a shared database behind several replicas).
    automatic: bool

    def has_data(self) -> bool:
        """True when there is a database to back up."""
        ...

    def needs_migration(self) -> bool:
        """True when opening the database will change its schema."""
        ...

    def snapshot(self, dest: Path) -> dict[str, int]:
        """Write a consistent copy to the new file ``dest``; row counts at the copy's instant."""
        ...

    def verify(self, path: Path, expected: dict[str, int] | None) -> dict[str, Any]:
        """Check a backup: ``{"ok", "problems", "counts", "audit"}``."""
        ...

    def compare(self, path: Path) -> dict[str, Any]:
        """What restoring ``path`` would change."""
        ...

    def restore(self, path: Path, expected: dict[str, int]) -> dict[str, Any]:
        """Replace the live database's content with the backup's, then check the live database
        against ``expected`` row counts (same shape as ``verify``)."""
        ...


def backend_for(database_url: str) -> BackupBackend | None:
    """The backup backend of a database URL; None for a backend that has none (yet)."""
    if database_url.startswith(("postgresql://", "postgres://")):
        from memwarden.store.postgres.backup import PostgresBackupBackend

        return PostgresBackupBackend(database_url)
    from memwarden.config import sqlite_path
    from memwarden.store.sqlite.backup import SQLiteBackupBackend

    return SQLiteBackupBackend(sqlite_path(database_url))


@dataclass
class BackupRecord:
    """One backup and what its verification found."""

    path: str
    reason: str
    taken_at: str
    bytes: int
    seconds: float
    verified: bool
    problems: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    audit: str = "absent"
    failed: bool = False  # the backup could not even be written (no file)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _write_json(path: Path, value: dict[str, Any]) -> None:
    tmp = path.with_name(
        f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp"
    )  # servers may start together
    tmp.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _alive(pid: int) -> bool:
    """Whether a process with this id exists on this machine."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, owned by someone else
        return True
    return True


class BackupManager:
    """Backups of one database into one directory, keeping the newest ``keep`` automatic ones."""

    def __init__(self, backend: BackupBackend, directory: Path, *, keep: int) -> None:
        self.backend = backend
        self.directory = Path(directory)
        self.keep = keep
        # The start-up backup of a server with no migration pending runs in the background
        # (``start_backup_in_background``); its state is shown by health.
        self.startup: dict[str, Any] | None = None
        self._startup_done = threading.Event()
        # With an auditor, every backup (but the one a restore takes first: the restore row
        # names it) gets a ``backup`` row naming ``caller``: a backup copies every memory.
        self.auditor: Auditor | None = None
        self.caller = Caller("memwarden", "-")

    # -- taking ------------------------------------------------------------------------------

    def _new_name(self, reason: str) -> Path:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
        return self.directory / f"{PREFIX}{stamp}-{reason}{self.backend.suffix}"

    def backup(
        self, *, reason: str = "manual", out: Path | None = None, auditor: Auditor | None = None
    ) -> BackupRecord:
        """Write a backup (to ``out``, never over an existing file), verify it, record the result.

        With ``auditor`` set, one ``backup`` row follows: the file, whether it verified and how
        many memories it holds, or the error of a backup that could not be written. The row is
        best effort: a backup is how a damaged database is saved, so it is kept even when its
        row cannot be written (logged as an error)."""
        try:
            record = self._backup(reason, out)
        except MemwardenError as exc:
            self._audit(reason, auditor, outcome=exc.code, detail={"error": exc.message[:200]})
            raise
        self._audit(
            reason,
            auditor,
            result_count=int(record.counts.get("memories", 0)),
            detail={
                "file": record.path,
                "reason": reason,
                "verified": record.verified,
                "audit": record.audit,
                "bytes": record.bytes,
            },
        )
        return record

    def _audit(self, reason: str, auditor: Auditor | None, **fields: Any) -> None:
        """The backup row, in ``auditor`` (a thread's own) or the manager's; best effort."""
        log = auditor or self.auditor
        if log is None or reason == "pre-restore":
            return
        try:
            log.record("backup", self.caller, **fields)
        except MemwardenError as exc:
            logger.error("backup not recorded in the audit log: %s", exc.message)

    def _backup(self, reason: str, out: Path | None) -> BackupRecord:
        if reason not in REASONS:
            raise InvalidInput(f"backup reason must be one of {', '.join(REASONS)}", field="reason")
        self.clean_stale_partials()
        target = Path(out) if out is not None else self._new_name(reason)
        if target.exists():
            raise InvalidInput(
                f"{target} exists; backups never overwrite a file: choose a new name", field="out"
            )
        partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
        started = time.perf_counter()
        unusable = self._unusable_folder(target, out)
        if unusable is not None:
            self._record_failure(target, reason, unusable, 0.0)
            raise StorageError(f"backup failed: {unusable}")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            expected = self.backend.snapshot(partial)
            try:
                os.link(partial, target)  # fails if target appeared meanwhile: never overwrite
            except FileExistsError:
                raise InvalidInput(f"{target} exists; backups never overwrite a file", field="out") from None
        except (OSError, StorageError) as exc:
            message = exc.message if isinstance(exc, StorageError) else self._os_failure(target, exc, out)
            self._record_failure(target, reason, message, time.perf_counter() - started)
            raise StorageError(f"backup failed: {message}") from None
        finally:
            try:
                partial.unlink(missing_ok=True)
            except OSError:  # its folder is what failed
                pass
        check = self.backend.verify(target, expected)
        record = BackupRecord(
            path=str(target.resolve()),
            reason=reason,
            taken_at=format_time(datetime.now(UTC)) or "",
            bytes=target.stat().st_size,
            seconds=round(time.perf_counter() - started, 3),
            verified=bool(check["ok"]),
            problems=list(check["problems"]),
            counts=dict(check["counts"]),
            audit=str(check["audit"]),
        )
        self._record(target, record)
        if not record.verified:
            logger.error("backup %s failed verification: %s", target, "; ".join(record.problems))
        if out is None:
            self.prune()
        return record

    def clean_stale_partials(self) -> list[Path]:
        """Remove what killed backups left behind (``.<name>.partial-<pid>`` and its journal) when
        the process that wrote them is gone; what was removed. Runs before every backup, so at
        the next start (whose backup comes first) at the latest."""
        removed: list[Path] = []
        if not self.directory.is_dir():
            return removed
        for path in self.directory.glob(".*.partial-*"):
            pid_text = path.name.rpartition(".partial-")[2].partition("-")[0]
            if not pid_text.isdigit() or _alive(int(pid_text)):
                continue
            path.unlink(missing_ok=True)
            removed.append(path)
        if removed:
            logger.warning("removed %d partial backup files left by killed processes", len(removed))
        return removed

    def start_backup(self, auditor: Auditor | None = None) -> BackupRecord | None:
        """The backup taken when a server starts, before migrations; None when there is nothing
        to back up yet or automatic backups are off (``MEMWARDEN_BACKUP_KEEP=0``)."""
        self.clean_stale_partials()
        if self.keep == 0 or not self.backend.automatic or not self.backend.has_data():
            return None
        return self.backup(reason="start", auditor=auditor)

    def start_backup_in_background(
        self, *, needed: bool = True, open_auditor: Callable[[], Auditor | None] | None = None
    ) -> None:
        """Take the start-up backup in a thread, so a server answers at once whatever the size of
        its database (at 1M memories a verified backup delayed the first answer by minutes,
        issue 21; docs/performance.md#storage). Only when no migration is pending: a migration
        waits for its backup.

        ``open_auditor`` gives the thread an audit log of its own for the backup's row, closed
        when it is done: the server's may be closed under it (a server that stops while its
        start-up backup runs; sharing it crashed SQLite)."""
        if not needed:
            self.startup = {"state": "not_needed"}
            self._startup_done.set()
            return
        self.startup = {"state": "running", "started_at": format_time(datetime.now(UTC))}

        def run() -> None:
            auditor = None
            try:
                auditor = open_auditor() if open_auditor is not None else None
            except MemwardenError as exc:
                logger.error("the start-up backup is not recorded in the audit log: %s", exc.message)
            try:
                record = self.start_backup(auditor)
            except StorageError as exc:
                logger.error("start-up backup failed (%s); see memwarden health", exc.message)
                self.startup = {"state": "failed", "error": exc.message}
            else:
                if record is None:
                    self.startup = {"state": "not_needed"}
                else:
                    self.startup = {
                        "state": "verified" if record.verified else "failed_verification",
                        "path": record.path,
                        "seconds": record.seconds,
                    }
                    if not record.verified:
                        logger.error(
                            "start-up backup %s failed verification; see memwarden health", record.path
                        )
            finally:
                if auditor is not None:
                    auditor.close()
                self._startup_done.set()

        threading.Thread(target=run, name="memwarden-start-backup", daemon=True).start()

    def wait_for_start_backup(self, timeout: float) -> bool:
        """Block until the background start-up backup finished; False on timeout."""
        return self._startup_done.wait(timeout)

    def _setting(self, out: Path | None) -> str:
        """Where the backup's place came from, for the fix a failure line names."""
        return (
            "choose another --out"
            if out is not None
            else "set MEMWARDEN_BACKUP_DIR to a folder you can write"
        )

    def _unusable_folder(self, target: Path, out: Path | None) -> str | None:
        """Why ``target``'s folder cannot take the backup, said before trying: a file where the
        folder should be, or a folder this user may not write (the attempt itself would fail
        with "File exists" naming only that file, or name a temporary file)."""
        existing = nearest_existing(target.parent)
        if not os.path.isdir(existing):
            return (
                f"cannot write the backup {target}: {existing} is a file, not a folder: {self._setting(out)}"
            )
        if not os.access(existing, os.W_OK | os.X_OK):
            return (
                f"cannot write the backup {target}: this user may not write in {existing}: make it writable, "
                f"or {self._setting(out)}"
            )
        return None

    def _os_failure(self, target: Path, exc: OSError, out: Path | None) -> str:
        """An OS error of writing the backup as one clause: what happened, and the fix."""
        happened, fix = os_error_words(exc)
        if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            fix = f"make {target.parent} writable for this user"
        return f"cannot write the backup {target}: {happened}; {fix}, or {self._setting(out)}"

    def _record_failure(self, target: Path, reason: str, message: str, seconds: float) -> None:
        """Remember a backup that could not even be written, for health; best effort (the
        folder itself may be what failed)."""
        # No file was written: the record says so (``failed``, no path), never a 0-byte backup.
        record = BackupRecord(
            path="",
            reason=reason,
            taken_at=format_time(datetime.now(UTC)) or "",
            bytes=0,
            seconds=round(seconds, 3),
            verified=False,
            problems=[f"no backup was written to {target}: {message}"],
            failed=True,
        )
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            _write_json(self.directory / LAST, record.to_dict())
        except OSError:
            # The folder that failed is most often the backup folder itself: the raised error
            # already says so, and the caller (a command, health, the start-up thread) shows it.
            logger.debug("backup failed and could not be recorded in %s: %s", self.directory, message)

    def _record(self, target: Path, record: BackupRecord) -> None:
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            _write_json(target.with_name(target.name + SIDECAR), record.to_dict())
            _write_json(self.directory / LAST, record.to_dict())
        except OSError as exc:
            raise StorageError(
                f"backup written to {target}, but its verification could not be recorded beside it "
                f"({os_error_words(exc)[0]}): make {target.parent} and {self.directory} writable for this user"
            ) from exc

    # -- reading -----------------------------------------------------------------------------

    def kept(self) -> list[Path]:
        """Backups in the directory, oldest first (the names sort by time)."""
        if not self.directory.is_dir():
            return []
        return sorted(p for p in self.directory.glob(f"{PREFIX}*{self.backend.suffix}") if p.is_file())

    def prune(self) -> list[Path]:
        """Remove all but the newest ``keep`` backups (and their records); what was removed."""
        if self.keep <= 0:
            return []
        removed = self.kept()[: -self.keep]
        for path in removed:
            path.unlink(missing_ok=True)
            path.with_name(path.name + SIDECAR).unlink(missing_ok=True)
        return removed

    def last(self) -> dict[str, Any] | None:
        """The last backup's record with its age in seconds; None when none was taken."""
        path = self.directory / LAST
        try:
            record: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        taken = parse_time(record.get("taken_at"))
        if taken is not None:
            record["age_seconds"] = round((datetime.now(UTC) - taken).total_seconds(), 1)
        record["exists"] = bool(record.get("path")) and Path(record["path"]).exists()
        return record

    # -- restoring ---------------------------------------------------------------------------

    def plan_restore(self, path: Path) -> dict[str, Any]:
        """Verify ``path`` and say what restoring it would change; changes nothing."""
        source = Path(path)
        if not source.is_file():
            raise InvalidInput(
                f"{source} is not a file; list backups with `memwarden backup --list`", field="file"
            )
        check = self.backend.verify(source, None)
        if not check["ok"]:
            raise InvalidInput(
                f"{source} is not a usable backup ({'; '.join(check['problems'][:5])}): give the path of a "
                "backup memwarden wrote (`memwarden backup --list` lists them)",
                field="file",
            )
        return {"file": str(source.resolve()), "verification": check, **self.backend.compare(source)}

    def restore(
        self,
        path: Path,
        *,
        by: Caller | None = None,
        key: AuditKey | None = None,
        anchor: AnchorFile | None = None,
    ) -> dict[str, Any]:
        """Restore ``path`` after keeping the current database as a verified backup.

        The restored chain then gets a ``restore`` row naming the backup, the head the database
        had before (so the rewind is visible in the log itself) and who restored (``by``);
        ``key`` signs it on a keyed chain, and ``anchor`` is moved back to it on purpose."""
        plan = self.plan_restore(path)
        kept = self.backup(reason="pre-restore") if self.backend.has_data() else None
        if kept is not None and not kept.verified:
            raise StorageError(
                f"the current database could not be backed up cleanly ({'; '.join(kept.problems[:3])}); "
                "nothing was restored"
            )
        previous = self._audit_head() if kept is not None else None
        live = getattr(self.backend, "path", None)  # a SQLite file: mark it until the restore is recorded
        marker = restore_marker(Path(live)) if live is not None else None
        if marker is not None:
            mark_file(marker, "restore", backup=str(plan["file"]))
        after = self.backend.restore(Path(path), plan["verification"]["counts"])
        row = self._record_restore(
            Path(plan["file"]), previous, kept, by or Caller("memwarden", "-"), key, anchor
        )
        if marker is not None:
            marker.unlink(missing_ok=True)
        return {
            **plan,
            "restored": True,
            "previous_saved_as": None if kept is None else kept.path,
            "after": after,
            "matches_backup": bool(after["ok"]),
            "audit_row": row,
        }

    def _audit_head(self) -> dict[str, Any] | None:
        from memwarden.store.audit_logs import open_audit_log

        try:
            log = open_audit_log(self.backend.database_url, readonly=True)
        except StorageError:  # a database from before the audit log
            return None
        try:
            head = log.head()
            return {"seq": head.seq, "hash": head.hash}
        finally:
            log.close()

    def _record_restore(
        self,
        source: Path,
        previous: dict[str, Any] | None,
        kept: BackupRecord | None,
        by: Caller,
        key: AuditKey | None,
        anchor: AnchorFile | None,
    ) -> dict[str, Any]:
        from memwarden.audit.base import AuditEvent
        from memwarden.store import open_store
        from memwarden.store.audit_logs import open_audit_log

        url = self.backend.database_url
        open_store(url).close()  # an older backup is migrated first: it may predate the audit log
        log = open_audit_log(url, key=key)
        try:
            restored = log.head()
            event = AuditEvent(
                actor=by.actor,
                tenant=by.tenant,
                action="restore",
                result_count=0,
                detail={
                    "backup": str(source),
                    "backup_head": {"seq": restored.seq, "hash": restored.hash},
                    "previous_head": previous,
                    "previous_saved_as": None if kept is None else kept.path,
                },
            )
            record = log.append(event, datetime.now(UTC))
        finally:
            log.close()
        if anchor is not None:  # the rewind is recorded: the anchor follows it back
            anchor.write(int(record.seq), str(record.hash), str(record.at), force=True)
        return {"seq": record.seq, "hash": record.hash, "previous_head": previous}
