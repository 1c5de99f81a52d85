"""Settings: the only module that reads the environment.

Every field is read from ``MEMWARDEN_<NAME>`` once, at the composition root (``app.py`` or the
CLI), and passed down. docs/configuration.md documents each one; tests/test_docs.py fails when a
setting is missing there.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from memwarden.errors import ConfigError
from memwarden.settings_paths import SettingsPaths, default_data_dir, sqlite_path
from memwarden.settings_table import BY_NAME

__all__ = [
    "ExplicitSettings",
    "Settings",
    "default_data_dir",
    "explicit_settings",
    "load_settings",
    "sqlite_path",
]


def _field(name: str, description: str | None = None) -> Any:
    """The pydantic field of a setting, with the default and bounds of ``settings_table``."""
    spec = BY_NAME[name]
    return Field(default=spec.default, description=description, **spec.bounds())


class Settings(SettingsPaths, BaseSettings):
    """memwarden's settings; each field is ``MEMWARDEN_<FIELD>`` in the environment."""

    model_config = SettingsConfigDict(env_prefix="MEMWARDEN_", extra="ignore", frozen=True)

    db: str = _field("db", description="Database: a file path or sqlite:///path (SQLite), or postgresql://…")
    tenant: str = _field("tenant")
    actor: str = _field("actor")
    tools: Literal["core", "all"] = _field("tools")
    embedder: Literal["builtin", "ollama", "openai", "none"] = _field("embedder")
    embed_model: str = _field("embed_model")
    embed_url: str = _field("embed_url")
    embed_dimension: int = _field("embed_dimension")
    embed_api_key: SecretStr | None = _field("embed_api_key")
    embed_timeout_s: float = _field("embed_timeout_s")
    vector_timeout_ms: int = _field("vector_timeout_ms")
    vector_warmup_wait_ms: int = _field("vector_warmup_wait_ms")
    vector_exact_max: int = _field("vector_exact_max")
    embed_backfill_interval_s: float = _field("embed_backfill_interval_s")
    languages: str = _field("languages")
    recency_half_life_days: float = _field("recency_half_life_days")
    search_vector_weight: str = _field(
        "search_vector_weight", description="Vector share of fused relevance, 0-1; empty: the model's"
    )
    search_thread_weight: float = _field("search_thread_weight")
    redaction: Literal["enforce", "dry-run", "off"] = _field("redaction")
    redaction_rules: str = _field("redaction_rules")
    audit: bool = _field("audit")
    audit_query_plain: bool = _field("audit_query_plain")
    audit_key_file: str = _field(
        "audit_key_file", description="Key file of a keyed audit chain (HMAC-SHA256)"
    )
    audit_anchor_file: str = _field(
        "audit_anchor_file", description="File that remembers the newest audit head"
    )
    audit_reads_fail_open: bool = _field("audit_reads_fail_open")
    http: str = _field("http")
    http_token: SecretStr | None = _field("http_token")
    tokens_file: str = _field("tokens_file")
    http_allowed_hosts: str = _field(
        "http_allowed_hosts", description="Extra Host names the HTTP server answers to"
    )
    http_allowed_origins: str = _field(
        "http_allowed_origins", description="Web origins allowed to call the HTTP server"
    )
    http_max_body_bytes: int = _field("http_max_body_bytes")
    http_health_interval_s: float = _field("http_health_interval_s")
    http_sessions_per_caller: int = _field(
        "http_sessions_per_caller", description="Open MCP sessions one caller may hold over HTTP"
    )
    http_session_idle_s: float = _field(
        "http_session_idle_s", description="An MCP session over HTTP unused this long is closed"
    )
    rate_writes_per_minute: int = _field(
        "rate_writes_per_minute", description="Writes one actor may make a minute in a server; 0: no limit"
    )
    rate_searches_per_minute: int = _field(
        "rate_searches_per_minute",
        description="Searches one actor may make a minute in a server; 0: no limit",
    )
    vault_dirs: str = _field("vault_dirs")
    backup_dir: str = _field("backup_dir")
    backup_keep: int = _field("backup_keep")
    export_dir: str = _field("export_dir")
    import_max_bytes: int = _field("import_max_bytes")
    purge_grace_days: float = _field("purge_grace_days")
    max_content_bytes: int = _field("max_content_bytes")
    sqlite_synchronous: Literal["FULL", "NORMAL"] = _field("sqlite_synchronous")
    pg_pool_size: int = _field("pg_pool_size")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = _field("log_level")
    log_file: str = _field("log_file")
    hook_server: str = _field(
        "hook_server", description="URL of a memwarden HTTP server on loopback for the hooks"
    )
    hook_timeout_ms: int = _field("hook_timeout_ms")
    hook_max_tokens: int = _field("hook_max_tokens")
    hook_limit: int = _field("hook_limit")
    hook_stop: Literal["nudge", "block", "off"] = _field(
        "hook_stop", description="When the Stop hook asks the agent to store durable facts"
    )
    daemon: Literal["auto", "off", "only"] = _field("daemon")
    daemon_idle_s: float = _field("daemon_idle_s")

    @field_validator("languages")
    @classmethod
    def _snowball_languages(cls, value: str) -> str:
        """Unknown names stop start-up with the list of valid ones (see text/languages.py)."""
        from memwarden.text.languages import parse_languages

        return ",".join(parse_languages(value))

    @field_validator("search_vector_weight")
    @classmethod
    def _weight_or_empty(cls, value: str) -> str:
        from memwarden.config_hot import parse_optional_weight

        parse_optional_weight(value)
        return value.strip()

    @field_validator("http_token", "embed_api_key", mode="before")
    @classmethod
    def _empty_token_is_none(cls, value: object) -> object:
        return None if value == "" else value


class ExplicitSettings(Settings):
    """Settings from the values given alone: no ``MEMWARDEN_*`` variable and no file is read.

    The Python API (``memwarden.open``) builds these: a library must do what its caller's code
    says, whatever the environment of the process that imports it holds."""

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)


def explicit_settings(**values: object) -> ExplicitSettings:
    """``ExplicitSettings`` of ``values``; a bad value raises a ConfigError naming the setting."""
    from pydantic import ValidationError

    try:
        return ExplicitSettings(**values)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'settings'}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(f"invalid settings: {problems}") from None


def load_settings(**overrides: object) -> Settings:
    """Read the environment once; a bad value stops start-up with a ConfigError naming it."""
    from pydantic import ValidationError

    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = "; ".join(_problem(err, overrides) for err in exc.errors())
        raise ConfigError(f"invalid settings: {problems}") from None


def _problem(err: Any, overrides: dict[str, object]) -> str:
    """One bad setting in the words of ``config_hot`` (the CLI's reader), so that ``serve`` and
    the commands describe the same mistake the same way; pydantic's words for the rest."""
    import os

    from memwarden.config_hot import describe_problem

    name = str(err["loc"][0]) if err["loc"] else ""
    env = f"MEMWARDEN_{'_'.join(str(p) for p in err['loc']).upper()}"
    raw = overrides.get(name, os.environ.get(env)) if name in BY_NAME else None
    described = describe_problem(BY_NAME[name], str(raw)) if raw is not None else None
    return described or f"{env}: {err['msg']}"
