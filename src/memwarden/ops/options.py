"""What the service needs for operations, built from the settings by ``app.build_service``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.ops.backup import BackupManager

DEFAULT_IMPORT_MAX_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class OpsOptions:
    """``backups``: None when the backend has none (or on the per-prompt paths, which need none);
    ``exchange_dir``: the one folder MCP tools may export to and import from (None: no files)."""

    backups: BackupManager | None = None
    purge_grace: timedelta = timedelta(days=30)
    exchange_dir: Path | None = None
    import_max_bytes: int = DEFAULT_IMPORT_MAX_BYTES
    # The SQLite file (None on PostgreSQL): a restore leaves its unfinished-marker beside it.
    database_file: Path | None = None
