"""The one settings reader: the environment, or explicit values, turned into checked settings.

Every way into memwarden gets its settings here. The server, the daemon, the CLI and the hooks
read ``MEMWARDEN_<NAME>`` variables (``read_environment``, ``load_hot_settings``); the library
API (``memwarden.open``) passes its values (``check_explicit``) and never reads the environment.
How a value is parsed and checked lives in this module alone, driven by the rows of
``settings_table``: ``config.Settings`` (the pydantic model of servers and full commands) takes
its values from here and checks nothing of its own, and ``HotSettings`` holds the same values
for the per-prompt paths (``memwarden search``, the hooks), which cannot afford pydantic's import.

A bad value raises one ``ConfigError`` line naming the variable (or, for explicit values, the
keyword) and what it takes; a ``MEMWARDEN_*`` variable that names no setting is reported with
the closest known name (``unknown_setting_names``). Standard library only.

With ``settings_paths.py`` (default folders) and ``vendor_env.py`` (third-party switches), the
only module that touches the environment.
"""

from __future__ import annotations

import os

from memwarden.errors import ConfigError
from memwarden.settings_paths import SettingsPaths, default_data_dir_name
from memwarden.settings_table import BY_NAME, SETTINGS, SettingSpec

# Not typing's: the prompt hook asking the daemon never imports typing, whose import is a
# large share of that hook's CPU (docs/performance.md#cold-start). mypy reads it as True.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping
    from typing import Any

__all__ = [
    "HotSettings",
    "check_explicit",
    "check_value",
    "load_hot_settings",
    "log_file_name",
    "parse_optional_weight",
    "read_environment",
    "terminal_columns",
    "unknown_setting_names",
]

_TRUE = {"1", "true", "yes", "on", "t", "y"}
_FALSE = {"0", "false", "no", "off", "f", "n"}


def read_environment(**overrides: object) -> dict[str, Any]:
    """Every setting that is set in the environment, parsed and checked, by its table name;
    ``overrides`` (the CLI's ``--db`` …) replace the variable of the same name unread.

    A bad value raises ConfigError naming its variable: ``invalid settings: MEMWARDEN_X: …``."""
    unknown = sorted(set(overrides) - set(BY_NAME))
    if unknown:
        raise ConfigError(f"invalid settings: {_unknown_names(unknown)}")
    values: dict[str, Any] = {}
    for spec in SETTINGS:
        if spec.name in overrides:
            values[spec.name] = check_value(spec, overrides[spec.name], spec.env)
            continue
        raw = os.environ.get(spec.env)
        if raw is not None:
            values[spec.name] = check_value(spec, raw, spec.env)
    return values


def check_explicit(values: Mapping[str, object]) -> dict[str, Any]:
    """``values`` given by code (the library API), checked as the environment's would be, with
    errors naming the keyword; an unknown name is refused with the closest known one."""
    unknown = sorted(set(values) - set(BY_NAME))
    if unknown:
        raise ConfigError(f"invalid settings: {_unknown_names(unknown)}")
    return {name: check_value(BY_NAME[name], value, name) for name, value in values.items()}


def check_value(spec: SettingSpec, value: object, label: str) -> Any:
    """One setting's value: text is parsed as a variable's would be, a typed value is checked
    against the same type, choices and bounds. ``label`` names it in the error."""
    if isinstance(value, str):
        return _refine(spec, _parse(spec, value, label), label)
    if spec.secret:
        if value is None:
            return None
        reveal = getattr(value, "get_secret_value", None)  # a pydantic SecretStr, handed back
        if callable(reveal):
            return reveal() or None
    elif spec.kind is bool and isinstance(value, bool):
        return value
    elif spec.kind is int and isinstance(value, int) and not isinstance(value, bool):
        return _check_bounds(spec, value, repr(value), label)
    elif spec.kind is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        return _check_bounds(spec, float(value), repr(value), label)
    raise ConfigError(f"invalid settings: {label}: expected {_kind_words(spec)}, got {value!r}")


def _kind_words(spec: SettingSpec) -> str:
    if spec.secret:
        return "text or nothing"
    if spec.kind is bool:
        return "true or false"
    if spec.kind is int:
        return "a whole number"
    if spec.kind is float:
        return "a number"
    return "text"


def _parse(spec: SettingSpec, raw: str, label: str) -> Any:
    if spec.secret:
        return raw or None  # an empty token means no token
    if spec.kind is bool:
        value = raw.strip().lower()
        if value in _TRUE:
            return True
        if value in _FALSE:
            return False
        raise ConfigError(f"invalid settings: {label}: expected true or false, got {raw!r}")
    if spec.kind in (int, float):
        try:
            number = spec.kind(raw.strip())
        except ValueError:
            raise ConfigError(
                f"invalid settings: {label}: expected {_kind_words(spec)}, got {raw!r}"
            ) from None
        return _check_bounds(spec, number, repr(raw), label)
    if spec.choices and raw not in spec.choices:
        raise ConfigError(f"invalid settings: {label}: must be one of {', '.join(spec.choices)}, got {raw!r}")
    shortest, longest = spec.min_length, spec.max_length
    if (shortest is not None and len(raw) < shortest) or (longest is not None and len(raw) > longest):
        raise ConfigError(f"invalid settings: {label}: must be {shortest}-{longest} characters long")
    return raw


def _check_bounds(spec: SettingSpec, number: Any, shown: str, label: str) -> Any:
    ge, gt, le = spec.ge, spec.gt, spec.le
    if (
        (ge is not None and number < ge)
        or (gt is not None and number <= gt)
        or (le is not None and number > le)
    ):
        limits = (
            [f"at least {ge}" if ge is not None else f"more than {gt}"] if (ge, gt) != (None, None) else []
        )
        limits += [f"at most {le}"] if le is not None else []
        raise ConfigError(f"invalid settings: {label}: must be {' and '.join(limits)}, got {shown}")
    return number


def _refine(spec: SettingSpec, value: Any, label: str) -> Any:
    """The settings whose text has a grammar of its own, past the table's type and bounds."""
    if spec.name == "search_vector_weight":
        parse_optional_weight(value, label)
        return value.strip()
    if spec.name == "languages" and value != spec.default:
        # Only a value other than the default pays for the Snowball list (PyStemmer and
        # text/languages.py, which knows the names): the hook asking the daemon never needs it.
        from memwarden.text.languages import parse_languages

        return ",".join(parse_languages(value))
    return value


def parse_optional_weight(raw: str, label: str = "MEMWARDEN_SEARCH_VECTOR_WEIGHT") -> float | None:
    """MEMWARDEN_SEARCH_VECTOR_WEIGHT: empty means the model's own weight, else a number 0-1."""
    if not raw.strip():
        return None
    try:
        value = float(raw.strip())
    except ValueError:
        raise ConfigError(
            f"invalid settings: {label}: expected a number from 0 to 1 or nothing, got {raw!r}"
        ) from None
    if not 0.0 <= value <= 1.0:
        raise ConfigError(f"invalid settings: {label}: must be from 0 to 1, got {value}")
    return value


def _closest(name: str) -> str | None:
    """The setting whose table name is nearest ``name`` (compared without ``MEMWARDEN_``, which
    would make every name look close to every other), or None when none is near."""
    import difflib

    close = difflib.get_close_matches(name.lower(), list(BY_NAME), n=1, cutoff=0.6)
    return close[0] if close else None


def _unknown_names(names: list[str]) -> str:
    described = []
    for name in names:
        close = _closest(name)
        described.append(f"{name} (did you mean {close}?)" if close else name)
    return f"unknown setting(s) {', '.join(described)}"


def unknown_setting_names() -> list[str]:
    """Each ``MEMWARDEN_*`` variable of the environment that names no setting, with the closest
    known name when one is near (``MEMWARDEN_DEMON (did you mean MEMWARDEN_DAEMON?)``).

    The reader ignores such a variable, so a misspelt setting would otherwise change nothing,
    silently. ``serve`` and ``doctor`` call this; the per-prompt paths do not pay for it."""
    known = {spec.env for spec in SETTINGS}
    found = []
    for name in sorted(name for name in os.environ if name.startswith("MEMWARDEN_") and name not in known):
        close = _closest(name.removeprefix("MEMWARDEN_"))
        found.append(f"{name} (did you mean {BY_NAME[close].env}?)" if close else name)
    return found


def terminal_columns() -> int | None:
    """``$COLUMNS`` when it holds a positive number (the width a terminal program is asked to use,
    as ``shutil.get_terminal_size`` reads it), else None."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        return None
    return columns if columns > 0 else None


def log_file_name() -> str:
    """The log file when the settings cannot be read (a bad value elsewhere): MEMWARDEN_LOG_FILE
    as given (any text is a valid path), else the default data folder's, so that the line
    saying which setting is wrong lands where the user looks."""
    return os.environ.get("MEMWARDEN_LOG_FILE") or os.path.join(default_data_dir_name(), "memwarden.log")


class HotSettings(SettingsPaths):
    """Every setting of ``settings_table``, as this module read it, without pydantic; read-only."""

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
        shown = {k: ("***" if BY_NAME[k].secret and v else v) for k, v in self.__dict__["_values"].items()}
        return f"HotSettings({shown})"


def load_hot_settings(**overrides: object) -> HotSettings:
    """``read_environment`` as ``HotSettings``: the per-prompt paths' settings, pydantic-free."""
    return HotSettings(read_environment(**overrides))
