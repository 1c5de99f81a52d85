"""The string forms of the settings' paths (the per-prompt paths use them, without pathlib)
name the same files as the Path forms, and the project of a session is found as before."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memwarden.errors import ConfigError
from memwarden.hooks.payload import project_for
from memwarden.settings_paths import (
    default_data_dir,
    default_data_dir_name,
    default_runtime_dir,
    default_runtime_dir_name,
    sqlite_file_name,
    sqlite_path,
)


@pytest.mark.parametrize(
    "url",
    [
        "m.db",
        "./data/m.db",
        "~/mem/m.db",
        "/tmp/a/m.db",
        "sqlite:///rel/m.db",
        "sqlite:////abs/m.db",
        "a//b/m.db",
    ],
)
def test_sqlite_file_name_names_the_file_sqlite_path_names(url: str) -> None:
    assert Path(sqlite_file_name(url)) == sqlite_path(url)
    assert os.path.realpath(sqlite_file_name(url)) == str(sqlite_path(url).resolve())


def test_a_bad_sqlite_url_is_refused_by_both() -> None:
    for parse in (sqlite_file_name, sqlite_path):
        with pytest.raises(ConfigError, match="sqlite:///relative"):
            parse("sqlite://host/m.db")


@pytest.mark.parametrize(
    "env",
    [
        {"XDG_DATA_HOME": "/x/data", "XDG_RUNTIME_DIR": "/run/user/7"},
        {"XDG_DATA_HOME": "", "XDG_RUNTIME_DIR": "", "TMPDIR": "/var/tmp"},
        {"XDG_DATA_HOME": "", "XDG_RUNTIME_DIR": "", "TMPDIR": ""},
    ],
)
def test_the_default_folders_agree(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert Path(default_data_dir_name()) == default_data_dir()
    assert Path(default_runtime_dir_name()) == default_runtime_dir()


def test_the_project_is_the_repository_holding_cwd(tmp_path: Path) -> None:
    repo = tmp_path / "acme-api"
    (repo / ".git").mkdir(parents=True)
    (repo / "src" / "deep").mkdir(parents=True)
    assert project_for(str(repo / "src" / "deep")) == "acme-api"
    assert project_for(str(repo / "src" / "deep") + "/") == "acme-api"
    assert project_for(str(repo)) == "acme-api"
    outside = tmp_path / "notes" / "today"
    outside.mkdir(parents=True)
    assert project_for(str(outside)) == "today"  # no repository: the folder's own name
    assert project_for(str(outside), "  override ") == "override"
    assert project_for("") is None
    assert project_for("/") is None


@pytest.mark.parametrize(
    "fields",
    [
        {"db": "/srv/m/m.db", "backup_dir": "", "export_dir": ""},
        {"db": "m.db", "backup_dir": "~/bk", "export_dir": "/x/ex"},
        {"db": "postgresql://u@h/db", "backup_dir": "", "export_dir": ""},
        {"db": "", "backup_dir": "", "export_dir": ""},
    ],
)
def test_the_settings_folders_agree(
    fields: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memwarden.settings_reader import load_hot_settings

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    settings = load_hot_settings(**fields)
    assert Path(settings.data_dir_name()) == settings.data_dir()
    assert Path(settings.export_dir_name()) == settings.export_path()
    assert Path(settings.backup_dir_name()) == settings.backup_path()
