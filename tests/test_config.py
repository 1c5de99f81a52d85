"""Settings: the pydantic-settings authority and the stdlib hot-path reader agree."""

from __future__ import annotations

import typing
from dataclasses import fields

import pytest

from memwarden.config import Settings, load_settings
from memwarden.config_hot import HotSettings, load_hot_settings
from memwarden.errors import ConfigError

HOT = {f.name: f for f in fields(HotSettings)}


def test_every_setting_the_service_is_built_from_is_carried_by_the_hot_reader(tmp_path) -> None:
    """build_service on HotSettings must not fall back to pydantic (the per-prompt budget)."""
    import sys

    from memwarden.app import build_service

    loaded: list[str] = []

    class Watching(HotSettings):
        def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
            loaded.append(name)
            return super().__getattr__(name)

    build_service(Watching(db=str(tmp_path / "x.db"))).close()
    assert loaded == [], f"add these settings to config_hot.HotSettings: {loaded}"
    assert "memwarden.config_hot" in sys.modules


def test_hot_reader_carries_the_same_defaults_choices_and_bounds_as_settings() -> None:
    for name, spec in HOT.items():
        model_field = Settings.model_fields[name]
        assert spec.default == model_field.default, name
        choices = typing.get_args(model_field.annotation) if typing.get_origin(model_field.annotation) is typing.Literal else ()
        assert tuple(spec.metadata["choices"]) == tuple(choices), name
        bounds = {k: getattr(m, k) for m in model_field.metadata for k in ("ge", "gt", "le", "min_length", "max_length")
                  if getattr(m, k, None) is not None}
        mine = {k: spec.metadata[k] for k in ("ge", "gt", "le", "min_length", "max_length") if spec.metadata[k] is not None}
        assert mine == bounds, name


@pytest.mark.parametrize(
    ("name", "raw"),
    [("audit", "0"), ("audit", "yes"), ("audit", "TRUE"), ("max_content_bytes", "2048"), ("tenant", "acme"),
     ("sqlite_synchronous", "NORMAL"), ("redaction", "dry-run"), ("languages", "english"), ("db", "/tmp/x.db"),
     ("vector_timeout_ms", "60000"), ("embedder", "ollama"), ("recency_half_life_days", "7.5"),
     ("hook_limit", "3"), ("hook_server", "http://127.0.0.1:8765"), ("hook_timeout_ms", "100")],
)
def test_hot_reader_parses_values_like_settings(monkeypatch: pytest.MonkeyPatch, name: str, raw: str) -> None:
    monkeypatch.setenv(f"MEMWARDEN_{name.upper()}", raw)
    assert getattr(load_hot_settings(), name) == getattr(load_settings(), name)


@pytest.mark.parametrize(
    ("name", "raw"),
    [("audit", "maybe"), ("max_content_bytes", "12"), ("max_content_bytes", "lots"), ("tenant", ""),
     ("sqlite_synchronous", "OFF"), ("redaction", "sometimes"), ("vector_timeout_ms", "0"), ("actor", "x" * 201),
     ("recency_half_life_days", "0"), ("recency_half_life_days", "soon"), ("hook_limit", "21"),
     ("hook_max_tokens", "10")],
)
def test_both_readers_reject_the_same_bad_values(monkeypatch: pytest.MonkeyPatch, name: str, raw: str) -> None:
    monkeypatch.setenv(f"MEMWARDEN_{name.upper()}", raw)
    env = f"MEMWARDEN_{name.upper()}"
    with pytest.raises(ConfigError, match=env):
        load_hot_settings()
    with pytest.raises(ConfigError, match=env):
        load_settings()


def test_settings_the_hot_reader_does_not_carry_are_loaded_the_full_way(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMWARDEN_BACKUP_KEEP", "7")
    assert "backup_keep" not in HOT
    assert load_hot_settings().backup_keep == 7


def test_database_paths(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    settings = load_settings()
    assert settings.database_url() == str(tmp_path / "memwarden" / "memwarden.db")
    assert load_settings(db="sqlite:////abs/x.db").data_dir().as_posix() == "/abs"
    assert load_hot_settings(db="sqlite:///rel/x.db").data_dir().as_posix() == "rel"
    with pytest.raises(ConfigError, match="sqlite:///"):
        load_settings(db="sqlite://host/x.db").data_dir()


def test_the_token_reads_like_settings_and_stays_out_of_reprs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMWARDEN_HTTP_TOKEN", "s3cret-token")
    hot, full = load_hot_settings(), load_settings()
    assert full.http_token is not None and hot.http_token == full.http_token.get_secret_value()
    assert "s3cret" not in repr(hot)
    monkeypatch.setenv("MEMWARDEN_HTTP_TOKEN", "")
    assert load_hot_settings().http_token is None and load_settings().http_token is None
