"""Settings: one reader (settings_reader) parses and checks every value, from the environment or
from explicit values; the typed model (config.Settings) and HotSettings carry what it read."""

from __future__ import annotations

import typing

import pytest

from memwarden.config import Settings, explicit_settings, load_settings
from memwarden.errors import ConfigError
from memwarden.settings_reader import load_hot_settings, unknown_setting_names
from memwarden.settings_table import BY_NAME, SETTINGS


def test_both_settings_types_are_built_from_the_one_settings_table() -> None:
    assert set(Settings.model_fields) == {spec.name for spec in SETTINGS}
    assert set(load_hot_settings().__dict__["_values"]) == set(BY_NAME)


def test_building_a_service_from_the_hot_reader_never_loads_pydantic(tmp_path) -> None:
    """The per-prompt paths: settings and service without the pydantic model (its import cost)."""
    import subprocess
    import sys

    code = (
        "import sys; from memwarden.settings_reader import load_hot_settings;"
        "from memwarden.app import build_service;"
        f"build_service(load_hot_settings(db={str(tmp_path / 'x.db')!r}), embeddings=False).close();"
        "print('LOADED', 'memwarden.config' in sys.modules, 'pydantic_settings' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "LOADED False False" in result.stdout


def test_settings_fields_carry_the_tables_defaults_and_choices_and_check_nothing_themselves() -> None:
    """How a value is checked is known in one place: the model's fields declare no bounds."""
    for spec in SETTINGS:
        model_field = Settings.model_fields[spec.name]
        assert spec.default == model_field.default, spec.name
        annotation = model_field.annotation
        choices = typing.get_args(annotation) if typing.get_origin(annotation) is typing.Literal else ()
        assert spec.choices == tuple(choices), spec.name
        bounds = [
            k
            for m in model_field.metadata
            for k in ("ge", "gt", "le", "min_length", "max_length")
            if getattr(m, k, None) is not None
        ]
        assert bounds == [], spec.name


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
        ("languages", " English, german,english"),
        ("search_vector_weight", " 0.4 "),
        ("embed_timeout_s", "5"),
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
        ("languages", "english,klingon"),
        ("search_vector_weight", "1.5"),
        ("search_vector_weight", "half"),
    ],
)
def test_both_settings_types_reject_the_same_bad_values(
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


def test_a_bad_value_is_one_line_naming_the_variable_and_what_it_takes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMWARDEN_HOOK_LIMIT", "99")
    with pytest.raises(ConfigError) as refused:
        load_settings()
    assert str(refused.value) == (
        "invalid settings: MEMWARDEN_HOOK_LIMIT: must be at least 1 and at most 20, got '99'"
    )
    monkeypatch.setenv("MEMWARDEN_LANGUAGES", "english,klingon")
    monkeypatch.delenv("MEMWARDEN_HOOK_LIMIT")
    with pytest.raises(ConfigError) as refused:
        load_hot_settings()
    assert "\n" not in str(refused.value) and "'klingon'" in str(refused.value)


def test_languages_are_read_alike_by_both_settings_types(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMWARDEN_LANGUAGES", " English, german,english")
    assert load_hot_settings().languages == load_settings().languages == "english,german"


def test_an_override_replaces_a_bad_variable_unread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMWARDEN_HOOK_LIMIT", "99")
    assert load_settings(hook_limit=3).hook_limit == 3 == load_hot_settings(hook_limit="3").hook_limit


def test_overrides_are_checked_like_the_variables() -> None:
    with pytest.raises(ConfigError, match="MEMWARDEN_MAX_CONTENT_BYTES: must be at least 64"):
        load_settings(max_content_bytes=12)
    with pytest.raises(ConfigError, match="MEMWARDEN_AUDIT: expected true or false"):
        load_hot_settings(audit=3)
    with pytest.raises(ConfigError, match=r"unknown setting\(s\) hook_limt \(did you mean hook_limit\?\)"):
        load_settings(hook_limt=3)


def test_explicit_settings_never_read_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.setenv("MEMWARDEN_TENANT", "from-the-environment")
    monkeypatch.setenv("MEMWARDEN_HOOK_LIMIT", "99")  # a bad variable does not matter either
    settings = explicit_settings(db=str(tmp_path / "m.db"), audit="off", backup_keep=4)
    assert settings.tenant == "default"
    assert (settings.audit, settings.backup_keep, settings.hook_limit) == (False, 4, 5)


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({"redaction": "sometimes"}, "redaction: must be one of enforce, dry-run, off, got 'sometimes'"),
        ({"max_content_bytes": 12}, "max_content_bytes: must be at least 64"),
        ({"max_content_bytes": True}, "max_content_bytes: expected a whole number, got True"),
        ({"backup_keep": 2.5}, "backup_keep: expected a whole number, got 2.5"),
        ({"audit": "maybe"}, "audit: expected true or false, got 'maybe'"),
        ({"tenant": ""}, "tenant: must be 1-100 characters long"),
        ({"languages": "klingon"}, "unknown language 'klingon'"),
        ({"langauges": "english"}, "unknown setting(s) langauges (did you mean languages?)"),
        ({"colour": "blue"}, "unknown setting(s) colour"),
    ],
)
def test_explicit_settings_are_checked_by_the_same_reader_naming_the_keyword(
    values: dict[str, object], words: str, tmp_path
) -> None:
    with pytest.raises(ConfigError) as refused:
        explicit_settings(db=str(tmp_path / "m.db"), **values)
    assert words in str(refused.value)
    if "language" not in words:
        assert "MEMWARDEN_" not in str(refused.value)


def test_explicit_typed_values_are_kept(tmp_path) -> None:
    settings = explicit_settings(
        db=str(tmp_path / "m.db"), embed_timeout_s=5, http_token="tok", embed_api_key="", audit=False
    )
    assert settings.embed_timeout_s == 5.0 and isinstance(settings.embed_timeout_s, float)
    assert settings.http_token is not None and settings.http_token.get_secret_value() == "tok"
    assert settings.embed_api_key is None and settings.audit is False


def test_a_misspelt_variable_is_reported_with_the_closest_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMWARDEN_DAEMON", raising=False)
    monkeypatch.setenv("MEMWARDEN_DEMON", "off")
    monkeypatch.setenv("MEMWARDEN_ZZZ_NOTHING_LIKE_IT", "1")
    assert unknown_setting_names() == [
        "MEMWARDEN_DEMON (did you mean MEMWARDEN_DAEMON?)",
        "MEMWARDEN_ZZZ_NOTHING_LIKE_IT",
    ]
    assert load_settings().daemon == "auto"  # ignored, as the report says
