"""Settings as a typed pydantic model, for servers and full commands.

The values come from the one settings reader (``settings_reader.py``): ``load_settings`` and
``Settings(...)`` read the environment through it, ``explicit_settings`` checks the values a
library caller gives and reads nothing. This model only carries them typed (``Literal`` choices
that tests/test_config.py holds to the table, ``SecretStr`` tokens kept out of reprs, frozen)
and checks nothing of its own, so how a value is parsed and checked is known in one place. Settings are read once, at the
composition root (``app.py`` or the CLI), and passed down; tests/project/test_docs.py fails when a
setting is missing from docs/configuration.md.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from memwarden.settings_paths import SettingsPaths, default_data_dir, sqlite_path
from memwarden.settings_reader import check_explicit, read_environment
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
    """The pydantic field of a setting, with the default of ``settings_table`` (its bounds and
    choices are checked by the reader before the model sees a value)."""
    return Field(default=BY_NAME[name].default, description=description)


class Settings(SettingsPaths, BaseModel):
    """memwarden's settings; each field is ``MEMWARDEN_<FIELD>`` in the environment.

    ``Settings(db=…)`` reads the environment for every field not given, like ``load_settings``."""

    model_config = ConfigDict(frozen=True)

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

    def __init__(self, **values: Any) -> None:
        super().__init__(**self._read(values))

    @classmethod
    def _read(cls, values: dict[str, Any]) -> dict[str, Any]:
        return read_environment(**values)


class ExplicitSettings(Settings):
    """Settings from the values given alone: no ``MEMWARDEN_*`` variable and no file is read.

    The Python API (``memwarden.open``) builds these: a library must do what its caller's code
    says, whatever the environment of the process that imports it holds."""

    @classmethod
    def _read(cls, values: dict[str, Any]) -> dict[str, Any]:
        return check_explicit(values)


def explicit_settings(**values: object) -> ExplicitSettings:
    """``ExplicitSettings`` of ``values``; a bad value or an unknown name raises a ConfigError
    naming it."""
    # mypy types a subclass's constructor from its fields (pydantic's dataclass transform), not
    # from ``Settings.__init__``; the reader checks every value before the model sees it.
    return ExplicitSettings(**values)  # type: ignore[arg-type]


def load_settings(**overrides: object) -> Settings:
    """Read the environment once; a bad value stops start-up with a ConfigError naming it."""
    return Settings(**overrides)
