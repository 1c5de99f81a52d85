"""Fresh databases at the current schema without running the migrations for every test.

The session makes one migrated SQLite file (``tests/conftest.py``: ``migrated_sqlite``) and each
test that wants a fresh database gets a copy; PostgreSQL does the same with
``CREATE DATABASE … TEMPLATE`` (``postgres_server.py``). Tests of the migrations themselves
(upgrades, the first open of an empty file) keep an empty database.
"""

from __future__ import annotations

import shutil
from pathlib import Path


def make_migrated_sqlite(path: Path) -> Path:
    """Create ``path`` and migrate it as memwarden's store does on first open."""
    from memwarden.store import open_store

    open_store(str(path)).close()  # closing checkpoints the WAL: the file alone is complete
    return path


def copy_migrated(template: Path, path: Path) -> None:
    """``path`` becomes a fresh database at the current schema, as a first open would leave it
    (mode 0600, as the store creates its file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(template, path)
    path.chmod(0o600)
