"""Fixtures of the dashboard tests: a real SQLite database with memories, searches, redactions,
a flagged memory and near-duplicates, served by the real HTTP app (``build_http_app``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient
from ui_helpers import HOST, TOKEN, fill

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.http.app import build_http_app
from memwarden.service import MemoryService


@pytest.fixture
def settings_for(tmp_path: Path) -> Any:
    def make(**extra: Any) -> Any:
        return load_settings(
            db=str(tmp_path / "ui.db"),
            log_file=str(tmp_path / "memwarden.log"),
            backup_dir=str(tmp_path / "backups"),
            embedder="none",
            **extra,
        )

    return make


@pytest.fixture
def served(settings_for: Any) -> Iterator[tuple[Any, MemoryService, dict[str, str]]]:
    """(ASGI app, service, ids) with MEMWARDEN_HTTP_TOKEN set."""
    settings = settings_for(http_token=TOKEN)
    service = build_service(settings, ops=True)
    ids = fill(service)
    app = build_http_app(service, settings)
    yield app, service, ids
    service.close()


@pytest.fixture
def client(served: tuple[Any, MemoryService, dict[str, str]]) -> Iterator[httpx.Client]:
    yield TestClient(served[0], base_url=HOST, follow_redirects=False)
