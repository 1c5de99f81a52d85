"""Settings: the pydantic-settings authority and the stdlib hot-path reader agree."""

from __future__ import annotations

import typing

import pytest

from memwarden.config import Settings, load_settings
from memwarden.config_hot import load_hot_settings
from memwarden.errors import ConfigError
from memwarden.settings_table import BY_NAME, SETTINGS


def test_both_readers_are_built_from_the_one_settings_table() -> None:
    assert set(Settings.model_fields) == {spec.name for spec in SETTINGS}
    assert set(load_hot_settings().__dict__["_values"]) == set(BY_NAME)


def test_building_a_service_from_the_hot_reader_never_loads_pydantic(tmp_path) -> None:
    """The per-prompt paths: settings and service without pydantic-settings (its import cost)."""
    import subprocess
    import sys

    code = (
        "import sys; from memwarden.config_hot import load_hot_settings; from memwarden.app import build_service;"
        f"build_service(load_hot_settings(db={str(tmp_path / 'x.db')!r}), embeddings=False).close();"
        "print('PYDANTIC_SETTINGS', 'pydantic_settings' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "PYDANTIC_SETTINGS False" in result.stdout


def test_settings_fields_carry_the_tables_defaults_choices_and_bounds() -> None:
    for spec in SETTINGS:
        model_field = Settings.model_fields[spec.name]
        assert spec.default == model_field.default, spec.name
        annotation = model_field.annotation
        choices = typing.get_args(annotation) if typing.get_origin(annotation) is typing.Literal else ()
        assert spec.choices == tuple(choices), spec.name
        bounds = {
            k: getattr(m, k)
            for m in model_field.metadata
            for k in ("ge", "gt", "le", "min_length", "max_length")
            if getattr(m, k, None) is not None
        }
        assert spec.bounds() == bounds, spec.name


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("audit", "0"),
        ("audit", "yes"),
        ("audit", "TRUE"),
        ("max_content_bytes", "2048"),
        ("tenant", "acme"),
        ("sqlite_synchronous", "NORMAL"),
        ("redaction", "dry-run"),
        ("languages", "english"),
        ("db", "/tmp/x.db"),
        ("vector_timeout_ms", "60000"),
        ("embedder", "ollama"),
        ("recency_half_life_days", "7.5"),
        ("hook_limit", "3"),
        ("hook_server", "http://127.0.0.1:8765"),
        ("hook_timeout_ms", "100"),
        ("daemon", "off"),
        ("daemon", "only"),
        ("daemon_idle_s", "30"),
    ],
)
def test_hot_reader_parses_values_like_settings(monkeypatch: pytest.MonkeyPatch, name: str, raw: str) -> None:
    monkeypatch.setenv(f"MEMWARDEN_{name.upper()}", raw)
    assert getattr(load_hot_settings(), name) == getattr(load_settings(), name)


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("audit", "maybe"),
        ("max_content_bytes", "12"),
        ("max_content_bytes", "lots"),
        ("tenant", ""),
        ("sqlite_synchronous", "OFF"),
        ("redaction", "sometimes"),
        ("vector_timeout_ms", "0"),
        ("actor", "x" * 201),
        ("recency_half_life_days", "0"),
        ("recency_half_life_days", "soon"),
        ("hook_limit", "21"),
        ("hook_max_tokens", "10"),
        ("daemon", "always"),
        ("daemon_idle_s", "0"),
    ],
)
def test_both_readers_reject_the_same_bad_values(
    monkeypatch: pytest.MonkeyPatch, name: str, raw: str
) -> None:
    monkeypatch.setenv(f"MEMWARDEN_{name.upper()}", raw)
    env = f"MEMWARDEN_{name.upper()}"
    with pytest.raises(ConfigError, match=env):
        load_hot_settings()
    with pytest.raises(ConfigError, match=env):
        load_settings()


def test_the_hot_reader_reads_server_settings_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMWARDEN_BACKUP_KEEP", "7")
    assert load_hot_settings().backup_keep == 7 == load_settings().backup_keep


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
