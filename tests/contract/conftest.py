"""The contract suite's fixtures: every test here runs once per store backend.

``store_url`` names a fresh database at the current schema (a copy of the session's migrated
SQLite file, or a PostgreSQL database made from the session's migrated template); tests marked
``migrations`` (upgrades, the first open) get an empty database instead. ``store`` opens it through ``open_store`` exactly as the app does, and
``service`` builds the whole app on it with ``build_service``. A backend is done when this
suite passes on it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from db_templates import copy_migrated

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.service import MemoryService
from memwarden.store import open_store
from memwarden.store.base import Store

BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    empty = request.node.get_closest_marker("migrations") is not None
    if request.param == "sqlite":
        path = tmp_path / "contract.db"
        if not empty:
            copy_migrated(request.getfixturevalue("migrated_sqlite"), path)
        return str(path)
    return str(request.getfixturevalue("pg_url" if empty else "pg_migrated_url"))


@pytest.fixture
def open_url(store_url: str) -> Iterator[Callable[[], Store]]:
    """Open more stores on the same database (another process or replica, as far as it knows)."""
    opened: list[Store] = []

    def opener() -> Store:
        opened.append(open_store(store_url))
        return opened[-1]

    yield opener
    for s in opened:
        s.close()


@pytest.fixture
def store(open_url: Callable[[], Store]) -> Store:
    return open_url()


@pytest.fixture
def service(store_url: str, tmp_path: Path) -> Iterator[MemoryService]:
    settings = load_settings(
        db=store_url, log_file=str(tmp_path / "memwarden.log"), backup_dir=str(tmp_path / "backups")
    )
    svc = build_service(settings)
    yield svc
    svc.close()
