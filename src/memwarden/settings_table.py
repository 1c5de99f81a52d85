"""Every memwarden setting, once: name, type, default, bounds, choices, secrecy, meaning.

The one settings reader (``settings_reader.py``) parses and checks every value by these rows,
whether it comes from the environment or from the library API; ``config.Settings`` (the typed
pydantic model of servers) and ``settings_reader.HotSettings`` (the per-prompt paths') carry what
it read. Adding a setting means adding one row here and one typed field in ``config.Settings``;
``tests/test_config.py`` fails when the two disagree. Each setting is ``MEMWARDEN_<NAME>`` in
the environment. Standard library only.
"""

from __future__ import annotations

# Not typing's: the prompt hook asking the daemon never imports typing, whose import is a
# large share of that hook's CPU (docs/performance.md#cold-start). mypy reads it as True.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any


class SettingSpec:
    """One setting: its Python type (str, int, float or bool) and what values it takes."""

    __slots__ = ("choices", "default", "ge", "gt", "kind", "le", "max_length", "min_length", "name", "secret")

    def __init__(
        self,
        name: str,
        kind: type,
        default: Any,
        choices: tuple[str, ...] = (),
        ge: float | None = None,
        gt: float | None = None,
        le: float | None = None,
        min_length: int | None = None,
        max_length: int | None = None,
        secret: bool = False,
    ) -> None:
        self.name = name
        self.kind = kind
        self.default = default
        self.choices = choices
        self.ge = ge
        self.gt = gt
        self.le = le
        self.min_length = min_length
        self.max_length = max_length
        self.secret = secret

    def __repr__(self) -> str:
        return f"SettingSpec({self.name!r}, {self.kind.__name__}, {self.default!r})"

    @property
    def env(self) -> str:
        return f"MEMWARDEN_{self.name.upper()}"

    def bounds(self) -> dict[str, Any]:
        """The numeric and length bounds that are set, as pydantic ``Field`` keywords."""
        found = {
            "ge": self.ge,
            "gt": self.gt,
            "le": self.le,
            "min_length": self.min_length,
            "max_length": self.max_length,
        }
        return {key: value for key, value in found.items() if value is not None}


def _s(name: str, kind: type, default: Any, **extra: Any) -> SettingSpec:
    return SettingSpec(name, kind, default, **extra)


SETTINGS: tuple[SettingSpec, ...] = (
    _s("db", str, ""),
    _s("tenant", str, "default", min_length=1, max_length=100),
    _s("actor", str, "local", min_length=1, max_length=200),
    _s("tools", str, "core", choices=("core", "all")),
    _s("embedder", str, "builtin", choices=("builtin", "ollama", "openai", "none")),
    _s("embed_model", str, ""),
    _s("embed_url", str, ""),
    _s("embed_dimension", int, 0, ge=0, le=16_384),
    _s("embed_api_key", str, None, secret=True),
    _s("embed_timeout_s", float, 30.0, gt=0, le=600),
    _s("vector_timeout_ms", int, 250, ge=1, le=60_000),
    _s("vector_warmup_wait_ms", int, 3_000, ge=0, le=60_000),
    _s("vector_exact_max", int, 150_000, ge=0, le=100_000_000),
    _s("embed_backfill_interval_s", float, 60.0, ge=1, le=86_400),
    _s("languages", str, "english,turkish"),
    _s("recency_half_life_days", float, 90.0, gt=0, le=36_500),
    _s("search_vector_weight", str, ""),
    _s("search_thread_weight", float, 0.3, ge=0, le=1),
    _s("redaction", str, "enforce", choices=("enforce", "dry-run", "off")),
    _s("redaction_rules", str, ""),
    _s("audit", bool, True),
    _s("audit_query_plain", bool, False),
    _s("audit_key_file", str, ""),
    _s("audit_anchor_file", str, ""),
    _s("audit_reads_fail_open", bool, False),
    _s("http", str, ""),
    _s("http_token", str, None, secret=True),
    _s("tokens_file", str, ""),
    _s("http_allowed_hosts", str, ""),
    _s("http_allowed_origins", str, ""),
    _s("http_max_body_bytes", int, 1024 * 1024, ge=4096, le=256 * 1024 * 1024),
    _s("http_health_interval_s", float, 10.0, ge=0, le=3600),
    _s("http_sessions_per_caller", int, 32, ge=1, le=10_000),
    _s("http_session_idle_s", float, 1800.0, ge=1, le=7 * 86_400),
    _s("rate_writes_per_minute", int, 600, ge=0, le=1_000_000),
    _s("rate_searches_per_minute", int, 1200, ge=0, le=1_000_000),
    _s("vault_dirs", str, ""),
    _s("backup_dir", str, ""),
    _s("backup_keep", int, 30, ge=0, le=100_000),
    _s("export_dir", str, ""),
    _s("import_max_bytes", int, 64 * 1024 * 1024, ge=1024, le=4 * 1024 * 1024 * 1024),
    _s("purge_grace_days", float, 30.0, ge=0, le=36_500),
    _s("max_content_bytes", int, 16 * 1024, ge=64, le=16 * 1024 * 1024),
    _s("sqlite_synchronous", str, "FULL", choices=("FULL", "NORMAL")),
    _s("pg_pool_size", int, 10, ge=1, le=1000),
    _s("log_level", str, "WARNING", choices=("DEBUG", "INFO", "WARNING", "ERROR")),
    _s("log_file", str, ""),
    _s("hook_server", str, ""),
    _s("hook_timeout_ms", int, 80, ge=1, le=10_000),
    _s("hook_max_tokens", int, 600, ge=50, le=20_000),
    _s("hook_limit", int, 5, ge=1, le=20),
    _s("hook_stop", str, "nudge", choices=("nudge", "block", "off")),
    _s("daemon", str, "auto", choices=("auto", "off", "only")),
    _s("daemon_idle_s", float, 900.0, ge=1, le=7 * 86_400),
)

BY_NAME: dict[str, SettingSpec] = {spec.name: spec for spec in SETTINGS}
