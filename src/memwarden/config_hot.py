"""Settings for the per-prompt paths, read without pydantic.

``memwarden search`` and the prompt hook run as a fresh process on every message. Importing
pydantic-settings costs more than their whole budget, so these paths read the environment with
this standard-library reader instead. It reads every setting of ``settings_table`` with the same
names, defaults, choices and bounds as ``config.Settings`` (both are built from that one table),
so the two cannot drift; ``tests/test_config.py`` checks that they parse values alike.

With ``config.py`` and ``settings_paths.py``, the only readers of the environment.
"""

from __future__ import annotations

import os

from memwarden.errors import ConfigError
from memwarden.settings_paths import (
    SettingsPaths,
    default_data_dir,
    default_data_dir_name,
    default_runtime_dir,
    is_postgres_url,
    sqlite_path,
)
from memwarden.settings_table import SETTINGS, SettingSpec

# Not typing's: the prompt hook asking the daemon never imports typing, whose import is a
# large share of that hook's CPU (docs/performance.md#cold-start). mypy reads it as True.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping
    from typing import Any

__all__ = [
    "HotSettings",
    "default_data_dir",
    "default_runtime_dir",
    "is_postgres_url",
    "load_hot_settings",
    "log_file_name",
    "sqlite_path",
    "unknown_setting_names",
]

_TRUE = {"1", "true", "yes", "on", "t", "y"}
_FALSE = {"0", "false", "no", "off", "f", "n"}


def terminal_columns() -> int | None:
    """``$COLUMNS`` when it holds a positive number (the width a terminal program is asked to use,
    as ``shutil.get_terminal_size`` reads it), else None."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        return None
    return columns if columns > 0 else None


def parse_optional_weight(raw: str) -> float | None:
    """MEMWARDEN_SEARCH_VECTOR_WEIGHT: empty means the model's own weight, else a number 0-1."""
    if not raw.strip():
        return None
    try:
        value = float(raw.strip())
    except ValueError:
        raise ConfigError(
            f"invalid settings: MEMWARDEN_SEARCH_VECTOR_WEIGHT: expected a number from 0 to 1 "
            f"or nothing, got {raw!r}"
        ) from None
    if not 0.0 <= value <= 1.0:
        raise ConfigError(
            f"invalid settings: MEMWARDEN_SEARCH_VECTOR_WEIGHT: must be from 0 to 1, got {value}"
        )
    return value


class HotSettings(SettingsPaths):
    """Every setting of ``settings_table``, parsed with the standard library; read-only."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_values", {spec.name: spec.default for spec in SETTINGS} | dict(values))

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["_values"][name]
        except KeyError:
            raise AttributeError(f"no setting named {name!r}") from None

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("settings are read-only")

    def __repr__(self) -> str:
        spec = {s.name: s for s in SETTINGS}
        shown = {k: ("***" if spec[k].secret and v else v) for k, v in self.__dict__["_values"].items()}
        return f"HotSettings({shown})"


def describe_problem(spec: SettingSpec, raw: str) -> str | None:
    """What is wrong with ``raw`` for this setting (``MEMWARDEN_X: …``), or None when it parses."""
    try:
        _parse(spec, raw)
    except ConfigError as exc:
        return exc.message.removeprefix("invalid settings: ")
    return None


def _parse(spec: SettingSpec, raw: str) -> Any:
    env = spec.env
    if spec.secret:
        return raw or None  # like Settings: an empty token means no token
    if spec.kind is bool:
        value = raw.strip().lower()
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        raise ConfigError(f"invalid settings: {env}: expected true or false, got {raw!r}")
    if spec.kind in (int, float):
        try:
            number = spec.kind(raw.strip())
        except ValueError:
            kind = "a whole number" if spec.kind is int else "a number"
            raise ConfigError(f"invalid settings: {env}: expected {kind}, got {raw!r}") from None
        ge, gt, le = spec.ge, spec.gt, spec.le
        if (
            (ge is not None and number < ge)
            or (gt is not None and number <= gt)
            or (le is not None and number > le)
        ):
            limits = (
                [f"at least {ge}" if ge is not None else f"more than {gt}"]
                if (ge, gt) != (None, None)
                else []
            )
            limits += [f"at most {le}"] if le is not None else []
            raise ConfigError(f"invalid settings: {env}: must be {' and '.join(limits)}, got {raw!r}")
        return number
    if spec.choices and raw not in spec.choices:
        raise ConfigError(f"invalid settings: {env}: must be one of {', '.join(spec.choices)}, got {raw!r}")
    shortest, longest = spec.min_length, spec.max_length
    if (shortest is not None and len(raw) < shortest) or (longest is not None and len(raw) > longest):
        raise ConfigError(f"invalid settings: {env}: must be {shortest}-{longest} characters long")
    return raw


def log_file_name() -> str:
    """The log file when the settings cannot be read (a bad value elsewhere): MEMWARDEN_LOG_FILE
    as given (any text is a valid path), else the default data folder's, so that the line
    saying which setting is wrong lands where the user looks."""
    return os.environ.get("MEMWARDEN_LOG_FILE") or os.path.join(default_data_dir_name(), "memwarden.log")


def unknown_setting_names() -> list[str]:
    """Each ``MEMWARDEN_*`` variable of the environment that names no setting, with the closest
    known name when one is near (``MEMWARDEN_DEMON (did you mean MEMWARDEN_DAEMON?)``).

    Both readers ignore such a variable, so a misspelt setting would otherwise change nothing,
    silently. ``serve`` and ``doctor`` call this; the per-prompt paths do not pay for it."""
    known = [spec.env for spec in SETTINGS]
    unknown = sorted(name for name in os.environ if name.startswith("MEMWARDEN_") and name not in known)
    if not unknown:
        return []
    import difflib

    # Compared without the shared prefix, which would make every name look close to every other.
    suffixes = [spec.name.upper() for spec in SETTINGS]
    found = []
    for name in unknown:
        close = difflib.get_close_matches(name.removeprefix("MEMWARDEN_"), suffixes, n=1, cutoff=0.6)
        found.append(f"{name} (did you mean MEMWARDEN_{close[0]}?)" if close else name)
    return found


def load_hot_settings(**overrides: Any) -> HotSettings:
    """Read every setting from the environment; bad values raise ConfigError like Settings."""
    values: dict[str, Any] = {}
    for spec in SETTINGS:
        if spec.name in overrides:
            values[spec.name] = overrides[spec.name]
            continue
        raw = os.environ.get(spec.env)
        if raw is not None:
            values[spec.name] = _parse(spec, raw)
    return HotSettings(values)
