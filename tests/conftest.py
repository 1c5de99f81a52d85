"""Shared fixtures: real SQLite files in a temporary directory, settings built explicitly."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# Tests never read the developer's real configuration.
for _name in [n for n in os.environ if n.startswith("MEMWARDEN_")]:
    del os.environ[_name]

from memwarden.app import build_service  # noqa: E402
from memwarden.config import Settings, load_settings  # noqa: E402
from memwarden.service import MemoryService  # noqa: E402


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memwarden.db"


@pytest.fixture
def settings(db_path: Path, tmp_path: Path) -> Settings:
    return load_settings(db=str(db_path), log_file=str(tmp_path / "memwarden.log"), backup_dir=str(tmp_path / "backups"))


@pytest.fixture
def service(settings: Settings) -> Iterator[MemoryService]:
    svc = build_service(settings)
    yield svc
    svc.close()


@pytest.fixture
def cli_env(db_path: Path, tmp_path: Path) -> dict[str, str]:
    """Environment for running the real ``memwarden`` command in a subprocess."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMWARDEN_")}
    env.update(MEMWARDEN_DB=str(db_path), MEMWARDEN_LOG_FILE=str(tmp_path / "memwarden.log"),
               MEMWARDEN_BACKUP_DIR=str(tmp_path / "backups"))
    return env
