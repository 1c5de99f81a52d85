"""How the dashboard's templates show values to a person: text cut at a word with an ellipsis,
sizes and times a person reads at a glance, the ``why`` of a hit as one stacked bar, and an
audit row's detail as short ``name: value`` pairs instead of raw JSON.

Each is a Jinja filter registered in ``app.build_ui_app``; each returns plain text or plain
values (the templates escape them), never markup.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import NamedTuple

from memwarden.models import format_time, parse_time

# Contributions of a hit's score, in the order the bar stacks them (search/ranking's names).
WHY_ORDER = ("relevance", "keyword", "vector", "coverage", "recency", "usage", "pinned", "thread")
UNITS = ("B", "KB", "MB", "GB", "TB")


def clip(value: object, limit: int = 120) -> str:
    """``value`` cut at the last word boundary within ``limit`` characters, with an ellipsis;
    unchanged when it fits. Line breaks become spaces: lists show one line per memory."""
    text = " ".join(str(value or "").split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    # A single long word (a URL, a hash, CJK without spaces) is cut where the limit falls.
    if space >= limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


def is_clipped(value: object, limit: int = 120) -> bool:
    return len(" ".join(str(value or "").split())) > limit


def human_size(value: object) -> str:
    """``196608`` -> ``192 KB`` (binary multiples, as file managers show them)."""
    if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
        return "" if value is None else str(value)
    size, unit = float(value), 0
    while size >= 1024 and unit < len(UNITS) - 1:
        size, unit = size / 1024, unit + 1
    return f"{int(size)} {UNITS[unit]}" if unit == 0 or size >= 100 else f"{size:.1f} {UNITS[unit]}"


def _moment(value: datetime | str | None) -> datetime | None:
    try:
        moment = value if value is None or isinstance(value, datetime) else parse_time(value)
    except (ValueError, TypeError, AttributeError):
        return None
    if moment is not None and moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)  # stored times are UTC; a foreign row may omit the zone
    return moment


def relative(value: datetime | str | None, now: datetime | None = None) -> str:
    """``5 min ago``, ``3 h ago``, ``yesterday``, ``12 days ago``, or ``in 2 days`` for a time to
    come; empty when the value is not a time (a foreign writer's text is shown as it is elsewhere)."""
    moment = _moment(value)
    if moment is None:
        return ""
    seconds = ((now or datetime.now(UTC)) - moment).total_seconds()
    ahead, seconds = seconds < 0, abs(seconds)
    if seconds < 60:
        text = "just now" if not ahead else "in under a minute"
        return text
    for size, unit in (
        (86400 * 365, "year"),
        (86400 * 30, "month"),
        (86400, "day"),
        (3600, "h"),
        (60, "min"),
    ):
        if seconds >= size:
            n = int(seconds // size)
            if unit == "day" and n == 1 and not ahead:
                return "yesterday"
            label = unit if unit in ("h", "min") else unit + ("s" if n > 1 else "")
            return f"in {n} {label}" if ahead else f"{n} {label} ago"
    return ""


def iso_time(value: datetime | str | None) -> str:
    """The machine-readable form for ``<time datetime>``; empty when the value is not a time."""
    moment = _moment(value)
    return "" if moment is None else format_time(moment) or ""


class Segment(NamedTuple):
    """One contribution of a hit's score as the stacked bar draws it: its name, its value and
    its share of the bar in whole percent (a CSS class ``pN`` sets the width: no inline style,
    which the Content-Security-Policy forbids)."""

    name: str
    value: float
    percent: int


def why_segments(why: object) -> list[Segment]:
    """The positive contributions of ``why`` as shares of their sum, in ``WHY_ORDER`` (names the
    ranking adds later follow); negative ones (a penalty) stay in the numbers table only."""
    if not isinstance(why, dict):
        return []
    names = [n for n in WHY_ORDER if n in why] + sorted(n for n in why if n not in WHY_ORDER)
    values = [(n, float(why[n])) for n in names if isinstance(why[n], int | float) and why[n] > 0]
    total = sum(v for _, v in values)
    if total <= 0:
        return []
    return [Segment(n, v, max(1, round(100 * v / total))) for n, v in values]


def detail_pairs(detail: object) -> list[tuple[str, str]]:
    """An audit row's ``detail`` as (name, value) pairs when it is a JSON object; else one pair
    with an empty name holding the stored text as it is (tampered or foreign rows stay visible)."""
    if not isinstance(detail, str) or detail in ("", "{}"):
        return []
    try:
        decoded = json.loads(detail)
    except ValueError:
        return [("", detail)]
    if not isinstance(decoded, dict):
        return [("", detail)]
    pairs = []
    for name, value in decoded.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        pairs.append((str(name), shown))
    return pairs


def memory_ids(value: object) -> list[str]:
    """The memory ids an audit row names (a JSON list of strings), [] for anything else."""
    if not isinstance(value, str) or not value.startswith("["):
        return []
    try:
        decoded = json.loads(value)
    except ValueError:
        return []
    return [str(i) for i in decoded if isinstance(i, str)] if isinstance(decoded, list) else []


FILTERS = {
    "clip": clip,
    "is_clipped": is_clipped,
    "human_size": human_size,
    "relative": relative,
    "iso_time": iso_time,
    "why_segments": why_segments,
    "detail_pairs": detail_pairs,
    "memory_ids": memory_ids,
}
