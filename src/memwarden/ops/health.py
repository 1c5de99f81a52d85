"""Health that really writes: integrity, a committed write to the keyword index and back,
the vector path, the last backup and its verification, vault mirror errors.

``status`` is ``ok``, ``degraded`` (memwarden answers, but something needs attention: a backup
that failed verification, a vector path that is down, vault mirror errors) or ``failing``
(integrity problems, a keyword index that still cannot be written after a rebuild, or a long
operation that did not finish, with what to do). A clock jump seen in the newest audit rows,
an audit head behind the anchor file (acknowledged rows lost), or a trigger, rule, view or
policy on memwarden's tables that it did not create (``audit_guards``) makes it ``degraded``.
A keyword index that fails its write probe, or disagrees with the memories table, is rebuilt
from the memories table on the spot (``repair=False`` only reports).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memwarden.errors import StorageError
from memwarden.store.base import MaintainableStore, Store, VectorStoreProbe
from memwarden.version import __version__

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.ops.backup import BackupManager

logger = logging.getLogger(__name__)


def _keyword_index(store: MaintainableStore, rebuild: Callable[[], int], repair: bool) -> dict[str, Any]:
    started = time.perf_counter()
    problem = store.probe_keyword_index() or store.keyword_index_mismatch()
    result: dict[str, Any] = {"ok": problem is None, "problem": problem, "repaired": False}
    if problem is not None and repair:
        logger.warning("keyword index failed its health check (%s); rebuilding it", problem)
        try:
            result["rebuilt_rows"] = rebuild()
        except Exception as exc:  # noqa: BLE001 - report any rebuild failure instead of dying
            result["repair_error"] = str(exc)
        else:
            again = store.probe_keyword_index() or store.keyword_index_mismatch()
            result.update(ok=again is None, repaired=again is None, problem_after_repair=again)
    result["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return result


def _vectors(store: Store, vector_status: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The vector path's state (off, loading, ready, failed), memories without a current vector,
    and a real write and read-back of a vector in the store."""
    try:
        found = dict(vector_status())  # counts of the caller's tenant only
    except Exception as exc:  # noqa: BLE001 - a broken vector path is a finding, not a crash
        return {"state": "failed", "ok": False, "problem": str(exc)}
    probed = isinstance(store, VectorStoreProbe)
    problem = store.probe_vector_store() if isinstance(store, VectorStoreProbe) else None
    found["store_write"] = "ok" if probed and problem is None else (problem or "not_available")
    found["ok"] = bool(found.get("ok", found.get("state") != "failed")) and problem is None
    if problem is not None:
        found["problem"] = problem
    return found


def _backups(backups: BackupManager | None) -> dict[str, Any]:
    if backups is None:
        return {"state": "not_available", "ok": True, "note": "this database backend provides no backups"}
    last = backups.last()
    startup = {} if backups.startup is None else {"startup": backups.startup}
    if last is None:
        return {
            "state": "none_yet",
            "ok": True,
            "directory": str(backups.directory),
            "kept": len(backups.kept()),
            **startup,
        }
    state = "failed" if last.get("failed") else "verified" if last.get("verified") else "failed_verification"
    return {
        "state": state,
        "ok": bool(last.get("verified")),
        "last": last,
        "directory": str(backups.directory),
        "kept": len(backups.kept()),
        **startup,
    }


def _vault(status: dict[str, Any]) -> dict[str, Any]:
    if not status["enabled"]:
        return {"state": "not_configured", "ok": True}
    # Errors are counted since start; health is degraded while a folder's last write failed.
    failing = status["failing"]
    return {"state": "failing" if failing else "ok", "ok": not failing, **status}


def _operations(marked: list[dict[str, Any]]) -> dict[str, Any]:
    interrupted = [m for m in marked if m.get("state") != "running"]
    running = [m for m in marked if m.get("state") == "running"]
    state = "interrupted" if interrupted else "running" if running else "ok"
    return {"ok": not interrupted, "state": state, "interrupted": interrupted, "running": running}


def _connections(store: Store) -> dict[str, Any] | None:
    """SQLite: what happened to this process's connections when the WAL's shared-memory file was
    deleted or replaced under them (``store/sqlite/shm.py``): reopened (``ok``), or why they
    cannot be used (the -shm, or a damaged database file), named before any query. None when
    nothing happened."""
    watch = getattr(store, "shm", None)
    check = getattr(watch, "check", None)
    if callable(check):
        try:
            check()  # a -shm changed since the last use: reopen now (or fail, named below)
        except StorageError:
            pass
    status = getattr(watch, "status", None)
    found = status() if callable(status) else None
    return dict(found) if isinstance(found, dict) else None


def _audit_guards(store: Store) -> dict[str, Any]:
    """Triggers, views, rules and policies around memwarden's tables that it did not create, and
    its own audit triggers gone or changed (``audit/guards.py``): each can drop or hide rows
    without a trace in the chain. Read from the store's own connection."""
    from memwarden.audit.guards import as_problems, problem_kind

    try:
        if store.backend == "sqlite":
            from memwarden.store.sqlite.audit_guards import schema_findings

            findings = schema_findings(getattr(store, "connection")())  # noqa: B009 - not in the protocol
        elif store.backend == "postgresql":
            from memwarden.store.postgres.audit_guards import schema_findings as postgres_findings

            with getattr(store, "connection")() as conn:  # noqa: B009 - not in the protocol
                findings = postgres_findings(conn)
        else:
            return {"ok": True, "state": "not_available"}
    except Exception as exc:  # noqa: BLE001 - an unreadable catalog is a finding, not a crash
        return {"ok": False, "state": "unreadable", "message": str(exc)}
    # The state uses verify's words (problem_kind): "unguarded" when one of memwarden's own
    # triggers is gone, off or altered (the graver case, named first), else "foreign".
    kinds = {problem_kind(finding) for finding in findings}
    state = "ok" if not findings else "unguarded" if "unguarded" in kinds else "foreign"
    return {"ok": not findings, "state": state, "findings": as_problems(findings)}


def check_health(
    store: Store,
    *,
    rebuild_keyword_index: Callable[[], int],
    vector_status: Callable[[], dict[str, Any]],
    backups: BackupManager | None,
    vault_status: dict[str, Any],
    repair: bool = True,
    incomplete: list[dict[str, Any]] | None = None,
    clock: dict[str, Any] | None = None,
    anchor: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The health report; ``rebuild_keyword_index`` runs when the keyword index fails and
    ``repair`` is on."""
    started = time.perf_counter()
    connections = _connections(store)
    if connections is not None and not connections["ok"]:  # say why, touch nothing
        return {
            "status": "failing",
            "version": __version__,
            "backend": store.backend,
            "checks": {"connections": connections},
            "ms": round((time.perf_counter() - started) * 1000, 1),
        }
    if isinstance(store, MaintainableStore):
        integrity = store.integrity_problems()
        database = {"ok": not integrity, "problems": integrity[:20]}
        keyword = _keyword_index(store, rebuild_keyword_index, repair)
    else:
        database = keyword = {
            "ok": True,
            "state": "not_available",
            "note": f"the {store.backend} backend has no such check yet",
        }
    checks: dict[str, Any] = {
        "integrity": database,
        "keyword_index": keyword,
        "vectors": _vectors(store, vector_status),
        "backups": _backups(backups),
        "vault": _vault(vault_status),
        # A long operation (migrate, …) that did not finish: the database holds part of its work.
        # One whose process is alive on this host is running, reported but not a failure.
        "operations": _operations(incomplete or []),
        "clock": clock or {"ok": True, "state": "not_checked"},
        # The audit head against MEMWARDEN_AUDIT_ANCHOR_FILE: acknowledged rows lost (rolled_back).
        "audit_anchor": anchor or {"ok": True, "state": "not_checked"},
        # Foreign triggers, rules, views or policies on the audit and memory tables.
        "audit_guards": _audit_guards(store),
    }
    if connections is not None:  # reopened after the -shm was deleted or replaced: say when and why
        checks["connections"] = connections
    if not checks["integrity"]["ok"] or not checks["keyword_index"]["ok"] or not checks["operations"]["ok"]:
        status = "failing"
    elif all(check["ok"] for check in checks.values()):
        status = "ok"
    else:
        status = "degraded"
    return {
        "status": status,
        "version": __version__,
        "backend": store.backend,
        "checks": checks,
        "ms": round((time.perf_counter() - started) * 1000, 1),
    }
