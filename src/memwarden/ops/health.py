"""Health that really writes: integrity, a committed write to the keyword index and back,
the vector path, the last backup and its verification, vault mirror errors.

``status`` is ``ok``, ``degraded`` (memwarden answers, but something needs attention: a backup
that failed verification, a vector path that is down, vault mirror errors) or ``failing``
(integrity problems, or a keyword index that still cannot be written after a rebuild).
A keyword index that fails its write probe, or disagrees with the memories table, is rebuilt
from the memories table on the spot (``repair=False`` only reports).
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from memwarden import __version__
from memwarden.store.base import MaintainableStore

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.models import Caller
    from memwarden.service import MemoryService

logger = logging.getLogger(__name__)


def _keyword_index(service: MemoryService, store: MaintainableStore, repair: bool) -> dict[str, Any]:
    started = time.perf_counter()
    problem = store.probe_keyword_index() or store.keyword_index_mismatch()
    result: dict[str, Any] = {"ok": problem is None, "problem": problem, "repaired": False}
    if problem is not None and repair:
        logger.warning("keyword index failed its health check (%s); rebuilding it", problem)
        try:
            result["rebuilt_rows"] = service.rebuild_keyword_index()
        except Exception as exc:  # noqa: BLE001 - report any rebuild failure instead of dying
            result["repair_error"] = str(exc)
        else:
            again = store.probe_keyword_index() or store.keyword_index_mismatch()
            result.update(ok=again is None, repaired=again is None, problem_after_repair=again)
    result["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return result


def _vectors(service: MemoryService, caller: Caller | None = None) -> dict[str, Any]:
    """The vector path's state (off, loading, ready, failed), memories without a current vector,
    and a real write and read-back of a vector in the store."""
    status = getattr(service, "vector_status", None)
    found: dict[str, Any] = {"state": "not_available"}
    if status is not None:
        try:
            found = dict(status(caller=caller))  # counts of the caller's tenant only
        except Exception as exc:  # noqa: BLE001 - a broken vector path is a finding, not a crash
            return {"state": "failed", "ok": False, "problem": str(exc)}
    probe = getattr(service.store, "probe_vector_store", None)
    problem = probe() if probe is not None else None
    found["store_write"] = "ok" if probe is not None and problem is None else (problem or "not_available")
    found["ok"] = bool(found.get("ok", found.get("state") != "failed")) and problem is None
    if problem is not None:
        found["problem"] = problem
    return found


def _backups(service: MemoryService) -> dict[str, Any]:
    if service.backups is None:
        return {"state": "not_available", "ok": True, "note": "this database backend provides no backups"}
    last = service.backups.last()
    if last is None:
        return {"state": "none_yet", "ok": True, "directory": str(service.backups.directory),
                "kept": len(service.backups.kept())}
    return {"state": "verified" if last.get("verified") else "failed_verification",
            "ok": bool(last.get("verified")), "last": last, "directory": str(service.backups.directory),
            "kept": len(service.backups.kept())}


def _vault(service: MemoryService) -> dict[str, Any]:
    status = service.vault_status(probe=True)
    if not status["enabled"]:
        return {"state": "not_configured", "ok": True}
    # Errors are counted since start; health is degraded while a folder's last write failed.
    failing = status["failing"]
    return {"state": "failing" if failing else "ok", "ok": not failing, **status}


def check_health(service: MemoryService, *, repair: bool = True, caller: Caller | None = None) -> dict[str, Any]:
    started = time.perf_counter()
    store = service.store
    if isinstance(store, MaintainableStore):
        integrity = store.integrity_problems()
        database = {"ok": not integrity, "problems": integrity[:20]}
        keyword = _keyword_index(service, store, repair)
    else:
        database = keyword = {"ok": True, "state": "not_available",
                              "note": f"the {store.backend} backend has no such check yet"}
    checks: dict[str, Any] = {
        "integrity": database,
        "keyword_index": keyword,
        "vectors": _vectors(service, caller),
        "backups": _backups(service),
        "vault": _vault(service),
    }
    if not checks["integrity"]["ok"] or not checks["keyword_index"]["ok"]:
        status = "failing"
    elif all(check["ok"] for check in checks.values()):
        status = "ok"
    else:
        status = "degraded"
    return {
        "status": status,
        "version": __version__,
        "backend": service.store.backend,
        "checks": checks,
        "ms": round((time.perf_counter() - started) * 1000, 1),
    }
