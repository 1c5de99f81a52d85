"""The audit log of a database as the export shows it: one dict per row, oldest first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memwarden.store.audit_logs import open_audit_log


def audit_rows(database: str | Path) -> list[dict[str, Any]]:
    """Every row of the audit log of ``database`` (a path or a database URL), read-only."""
    log = open_audit_log(str(database), readonly=True)
    try:
        return [r.to_dict() for r in log.records()]
    finally:
        log.close()
