"""Settings: the only module that reads the environment.

Every field is read from ``MEMWARDEN_<NAME>`` once, at the composition root (``app.py`` or the
CLI), and passed down. docs/configuration.md documents each one; tests/test_docs.py fails when a
setting is missing there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from memwarden.config_hot import SettingsPaths, default_data_dir, sqlite_path
from memwarden.errors import ConfigError

__all__ = ["Settings", "default_data_dir", "load_settings", "sqlite_path"]


class Settings(SettingsPaths, BaseSettings):
    """memwarden's settings; each field is ``MEMWARDEN_<FIELD>`` in the environment."""

    model_config = SettingsConfigDict(env_prefix="MEMWARDEN_", extra="ignore", frozen=True)

    db: str = Field(default="", description="Database: a file path or sqlite:///path (SQLite), or postgresql://…")
    tenant: str = Field(default="default", min_length=1, max_length=100)
    actor: str = Field(default="local", min_length=1, max_length=200)
    tools: Literal["core", "all"] = "core"
    embedder: Literal["builtin", "ollama", "openai", "none"] = "builtin"
    embed_model: str = ""
    embed_url: str = ""
    embed_dimension: int = Field(default=0, ge=0, le=16_384)
    embed_api_key: SecretStr | None = None
    embed_timeout_s: float = Field(default=30.0, gt=0, le=600)
    vector_timeout_ms: int = Field(default=250, ge=1, le=60_000)
    vector_exact_max: int = Field(default=150_000, ge=0, le=100_000_000)
    embed_backfill_interval_s: float = Field(default=60.0, ge=1, le=86_400)
    languages: str = "english,turkish"
    recency_half_life_days: float = Field(default=90.0, gt=0, le=36_500)
    redaction: Literal["enforce", "dry-run", "off"] = "enforce"
    redaction_rules: str = ""
    audit: bool = True
    audit_query_plain: bool = False
    audit_key_file: str = Field(default="", description="Key file of a keyed audit chain (HMAC-SHA256)")
    audit_anchor_file: str = Field(default="", description="File that remembers the newest audit head")
    http: str = ""
    http_token: SecretStr | None = None
    tokens_file: str = ""
    vault_dirs: str = ""
    backup_dir: str = ""
    backup_keep: int = Field(default=30, ge=0, le=100_000)
    export_dir: str = ""
    import_max_bytes: int = Field(default=64 * 1024 * 1024, ge=1024, le=4 * 1024 * 1024 * 1024)
    purge_grace_days: float = Field(default=30, ge=0, le=36_500)
    max_content_bytes: int = Field(default=16 * 1024, ge=64, le=16 * 1024 * 1024)
    sqlite_synchronous: Literal["FULL", "NORMAL"] = "FULL"
    pg_pool_size: int = Field(default=10, ge=1, le=1000)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "WARNING"
    log_file: str = ""
    hook_server: str = Field(default="", description="URL of a memwarden HTTP server on loopback for the hooks")
    hook_timeout_ms: int = Field(default=80, ge=1, le=10_000)
    hook_max_tokens: int = Field(default=600, ge=50, le=20_000)
    hook_limit: int = Field(default=5, ge=1, le=20)

    @field_validator("languages")
    @classmethod
    def _snowball_languages(cls, value: str) -> str:
        """Unknown names stop start-up with the list of valid ones (see text/languages.py)."""
        from memwarden.text.languages import parse_languages

        return ",".join(parse_languages(value))

    @field_validator("http_token", "embed_api_key", mode="before")
    @classmethod
    def _empty_token_is_none(cls, value: object) -> object:
        return None if value == "" else value

    def backup_path(self) -> Path:
        return Path(self.backup_dir).expanduser() if self.backup_dir else self.data_dir() / "backups"

    def export_path(self) -> Path:
        """The only folder MCP tools read imports from and write exports to."""
        return Path(self.export_dir).expanduser() if self.export_dir else self.data_dir() / "exports"


def load_settings(**overrides: object) -> Settings:
    """Read the environment once; a bad value stops start-up with a ConfigError naming it."""
    from pydantic import ValidationError

    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = "; ".join(
            f"MEMWARDEN_{'_'.join(str(p) for p in err['loc']).upper()}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigError(f"invalid settings: {problems}") from None
