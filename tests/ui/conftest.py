"""Fixtures of the dashboard tests: a real SQLite database with memories, searches, redactions,
a flagged memory and near-duplicates, served by the real HTTP app (``build_http_app``)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient
from ui_helpers import CHROMIUM, HOST, TOKEN, WAIT_MS, Server, fill

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
def site(settings_for: Any) -> Iterator[tuple[Server, MemoryService, dict[str, str]]]:
    """(a real uvicorn server, service, ids) with MEMWARDEN_HTTP_TOKEN set: what a browser opens."""
    settings = settings_for(http_token=TOKEN)
    service = build_service(settings, ops=True)
    ids = fill(service)
    server = Server(build_http_app(service, settings))
    yield server, service, ids
    server.stop()
    service.close()


@pytest.fixture
def client(served: tuple[Any, MemoryService, dict[str, str]]) -> Iterator[httpx.Client]:
    yield TestClient(served[0], base_url=HOST, follow_redirects=False)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium through Playwright; skipped on a workstation without it, a failure in
    CI (``CI=true``), where ``make test`` installs it."""
    if not Path(CHROMIUM).exists():
        message = f"{CHROMIUM} is missing: apt-get install -y chromium (make test does)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as play:
        launched = play.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], timeout=WAIT_MS)
        yield launched
        launched.close()
