"""Settings for the per-prompt paths, read without pydantic.

``memwarden search`` and the prompt hook run as a fresh process on every message, with a
150 ms budget. Importing pydantic-settings alone costs ~120 ms here, so these paths read the
environment with this stdlib reader instead. It covers the settings those paths use, with the
same names, defaults, choices and bounds as ``config.Settings`` (the authority everywhere
else); ``tests/test_config.py`` fails if the two ever disagree. Any other attribute is loaded
through ``config.Settings`` on first use, so nothing can silently differ: it is only slower.

This module and ``config.py`` are the only readers of the environment.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from memwarden.errors import ConfigError

_TRUE = {"1", "true", "yes", "on", "t", "y"}
_FALSE = {"0", "false", "no", "off", "f", "n"}


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/memwarden`` or ``~/.local/share/memwarden``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "memwarden"


def sqlite_path(url: str) -> Path:
    """The file behind a SQLite database URL (a plain path, ``sqlite:///relative`` or ``sqlite:////absolute``)."""
    if url.startswith("sqlite:///"):
        return Path(url[len("sqlite:///") :])
    if url.startswith("sqlite://"):
        raise ConfigError(f"MEMWARDEN_DB={url!r}: use sqlite:///relative/path or sqlite:////absolute/path")
    return Path(url).expanduser()


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


class SettingsPaths:
    """Derived locations, shared by ``Settings`` and ``HotSettings``."""

    db: str
    log_file: str
    vault_dirs: str

    def database_url(self) -> str:
        """The configured database, or the default SQLite file in the data directory."""
        return self.db or str(default_data_dir() / "memwarden.db")

    def data_dir(self) -> Path:
        url = self.database_url()
        return default_data_dir() if is_postgres_url(url) else sqlite_path(url).parent

    def log_path(self) -> Path:
        return Path(self.log_file) if self.log_file else self.data_dir() / "memwarden.log"

    def vault_folders(self) -> list[Path]:
        """The folders of ``MEMWARDEN_VAULT_DIRS`` (split on the OS path separator), in order."""
        parts = (part.strip() for part in self.vault_dirs.split(os.pathsep))
        return list(dict.fromkeys(Path(part).expanduser() for part in parts if part))


def _spec(
    default: Any, *, choices: tuple[str, ...] = (), ge: float | None = None, gt: float | None = None,
    le: float | None = None, min_length: int | None = None, max_length: int | None = None,
    secret: bool = False,
) -> Any:
    meta = {"choices": choices, "ge": ge, "gt": gt, "le": le, "min_length": min_length, "max_length": max_length,
            "secret": secret}
    return field(default=default, metadata=meta, repr=not secret)


@dataclass(frozen=True)
class HotSettings(SettingsPaths):
    """The subset of ``Settings`` the per-prompt paths read, parsed with the standard library."""

    db: str = _spec("")
    tenant: str = _spec("default", min_length=1, max_length=100)
    actor: str = _spec("local", min_length=1, max_length=200)
    languages: str = _spec("english,turkish")
    embedder: str = _spec("builtin", choices=("builtin", "ollama", "openai", "none"))
    vector_timeout_ms: int = _spec(250, ge=1, le=60_000)
    embed_model: str = _spec("")
    embed_url: str = _spec("")
    embed_dimension: int = _spec(0, ge=0, le=16_384)
    embed_api_key: str | None = _spec(None, secret=True)
    embed_timeout_s: float = _spec(30.0, gt=0, le=600)
    vector_exact_max: int = _spec(150_000, ge=0, le=100_000_000)
    embed_backfill_interval_s: float = _spec(60.0, ge=1, le=86_400)
    redaction: str = _spec("enforce", choices=("enforce", "dry-run", "off"))
    redaction_rules: str = _spec("")
    audit: bool = _spec(True)
    audit_query_plain: bool = _spec(False)
    max_content_bytes: int = _spec(16 * 1024, ge=64, le=16 * 1024 * 1024)
    sqlite_synchronous: str = _spec("FULL", choices=("FULL", "NORMAL"))
    pg_pool_size: int = _spec(10, ge=1, le=1000)
    log_level: str = _spec("WARNING", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    log_file: str = _spec("")
    recency_half_life_days: float = _spec(90.0, gt=0, le=36_500)
    vault_dirs: str = _spec("")
    # The hooks' own settings, and the bearer token they send to MEMWARDEN_HOOK_SERVER.
    http_token: str | None = _spec(None, secret=True)
    hook_server: str = _spec("")
    hook_timeout_ms: int = _spec(80, ge=1, le=10_000)
    hook_max_tokens: int = _spec(600, ge=50, le=20_000)
    hook_limit: int = _spec(5, ge=1, le=20)

    def __getattr__(self, name: str) -> Any:
        # Only reached for settings this reader does not carry: load them the full way.
        if name.startswith("_"):
            raise AttributeError(name)
        from memwarden.config import load_settings

        return getattr(load_settings(db=self.db) if self.db else load_settings(), name)


def _parse(name: str, raw: str, default: Any, meta: dict[str, Any]) -> Any:
    env = f"MEMWARDEN_{name.upper()}"
    if meta["secret"]:
        return raw or None  # like Settings: an empty token means no token
    if isinstance(default, bool):
        value = raw.strip().lower()
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        raise ConfigError(f"invalid settings: {env}: expected true or false, got {raw!r}")
    if isinstance(default, (int, float)):
        kind = type(default)
        try:
            number = kind(raw.strip())
        except ValueError:
            raise ConfigError(f"invalid settings: {env}: expected a {kind.__name__} number, got {raw!r}") from None
        ge, gt, le = meta["ge"], meta["gt"], meta["le"]
        if (ge is not None and number < ge) or (gt is not None and number <= gt) or (le is not None and number > le):
            low = f"at least {ge}" if ge is not None else f"more than {gt}"
            raise ConfigError(f"invalid settings: {env}: must be {low} and at most {le}")
        return number
    if meta["choices"] and raw not in meta["choices"]:
        raise ConfigError(f"invalid settings: {env}: must be one of {', '.join(meta['choices'])}, got {raw!r}")
    low, high = meta["min_length"], meta["max_length"]
    if (low is not None and len(raw) < low) or (high is not None and len(raw) > high):
        raise ConfigError(f"invalid settings: {env}: must be {low}-{high} characters long")
    return raw


def load_hot_settings(**overrides: Any) -> HotSettings:
    """Read the hot-path settings from the environment; bad values raise ConfigError like Settings."""
    values: dict[str, Any] = {}
    for spec in fields(HotSettings):
        if spec.name in overrides:
            values[spec.name] = overrides[spec.name]
            continue
        raw = os.environ.get(f"MEMWARDEN_{spec.name.upper()}")
        if raw is not None:
            values[spec.name] = _parse(spec.name, raw, spec.default, dict(spec.metadata))
    return HotSettings(**values)
