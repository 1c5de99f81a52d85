"""Reading the dashboard's query parameters and form fields: each bad value becomes an
``InvalidInput`` naming the field and what to send, shown on the page; nothing is changed."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from memwarden import validation as v
from memwarden.audit.base import ACTIONS, AuditQuery
from memwarden.browsing import BrowseCursor, MemoryQuery
from memwarden.errors import InvalidInput
from memwarden.models import KINDS, Memory, format_time
from memwarden.ui.audit_timeline import AUDIT_ROUTES

MAX_FIELD_CHARS = 200
CHOICES = {"": None, "yes": True, "no": False}


def _text(params: Mapping[str, str], name: str) -> str | None:
    value = params.get(name, "")
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be text", field=name)
    value = value.strip()
    return value or None


def _short(params: Mapping[str, str], name: str, label: str) -> str | None:
    value = _text(params, name)
    if value is not None and (len(value) > MAX_FIELD_CHARS or any(ord(c) < 32 for c in value)):
        raise InvalidInput(f"{label} must be 1-{MAX_FIELD_CHARS} printable characters", field=name)
    return value


def _choice(params: Mapping[str, str], name: str, label: str) -> bool | None:
    value = params.get(name, "") or ""
    if value not in CHOICES:
        raise InvalidInput(f"{label} must be yes, no or empty (either); got {value[:40]!r}", field=name)
    return CHOICES[value]


def day(params: Mapping[str, str], name: str, label: str, *, end: bool = False) -> datetime | None:
    """A date (YYYY-MM-DD) as the UTC midnight starting it, or ending it with ``end``."""
    value = _text(params, name)
    if value is None:
        return None
    try:
        parsed = date.fromisoformat(value)
    except ValueError:
        raise InvalidInput(
            f"{label} must be a date such as 2026-03-01; got {value[:40]!r}", field=name
        ) from None
    moment = datetime.combine(parsed, time(), tzinfo=UTC)
    return moment + timedelta(days=1) if end else moment


def whole(
    params: Mapping[str, str], name: str, label: str, *, default: int | None, low: int, high: int
) -> int | None:
    value = _text(params, name)
    if value is None:
        return default
    # ASCII digits only ("²" is a digit to isdigit, not to int), and no longer than the bound:
    # int() refuses more than 4,300 digits with a ValueError.
    if (
        not (value.isascii() and value.isdigit())
        or len(value) > len(str(high))
        or not low <= int(value) <= high
    ):
        raise InvalidInput(
            f"{label} must be a whole number from {low} to {high}; got {value[:40]!r}", field=name
        )
    return int(value)


def cursor(params: Mapping[str, str], name: str) -> BrowseCursor | None:
    """A page link's place in the table: ``<updated_at>_<memory id>`` (see ``cursor_text``)."""
    value = _text(params, name)
    if value is None:
        return None
    stamp, _, ident = value.partition("_")
    try:
        at = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
        return BrowseCursor(at, v.check_id(ident).upper())
    except (ValueError, InvalidInput):
        raise InvalidInput(
            f"{name} must be a place in the table as the page links give it "
            f"(2026-03-01T12:00:00.000000Z_<memory id>); got {value[:60]!r}: start again from the first page",
            field=name,
        ) from None


def cursor_text(memory: Memory) -> str:
    """The ``after``/``before`` value of a page link starting after or before ``memory``."""
    return f"{format_time(memory.updated_at)}_{memory.id}"


def memory_query(
    params: Mapping[str, str],
) -> tuple[MemoryQuery, BrowseCursor | None, BrowseCursor | None, str]:
    """The memories table's filters, the place to page from (``after`` or ``before``), and
    the search text."""
    project = _text(params, "project")
    kind = _text(params, "kind")
    if kind is not None and kind not in KINDS:
        raise InvalidInput(f"kind must be one of {', '.join(KINDS)}; got {kind[:40]!r}", field="kind")
    tag = _text(params, "tag")
    since = day(params, "from", "from")
    until = day(params, "to", "to", end=True)
    if since is not None and until is not None and since >= until:
        raise InvalidInput("from must be on or before to", field="from")
    query = MemoryQuery(
        project=None if project is None else v.check_project(project),
        kind=kind,
        tag=None if tag is None else v.check_tags([tag])[0],
        pinned=_choice(params, "pinned", "pinned"),
        flagged=_choice(params, "flagged", "flagged"),
        created_since=since,
        created_until=until,
    )
    after, before = cursor(params, "after"), cursor(params, "before")
    if after is not None and before is not None:
        raise InvalidInput("send after or before, not both: follow one page link", field="before")
    text = v.check_query(params.get("q", ""))
    return query, after, before, text.strip()


def audit_query(params: Mapping[str, str]) -> tuple[AuditQuery, int | None]:
    """The audit timeline's filters and the seq to page below."""
    action = _text(params, "action")
    if action is not None and action not in ACTIONS:
        raise InvalidInput(f"action must be one of {', '.join(ACTIONS)}; got {action[:40]!r}", field="action")
    since = day(params, "from", "from")
    until = day(params, "to", "to", end=True)
    if since is not None and until is not None and since >= until:
        raise InvalidInput("from must be on or before to", field="from")
    query = AuditQuery(
        actor=_short(params, "actor", "actor"),
        tenant=_short(params, "tenant", "tenant"),
        action=action,
        since=since,
        until=until,
    )
    return query, whole(params, "before", "before", default=None, low=1, high=2**62)


def audit_scope(params: Mapping[str, str]) -> tuple[str | None, str | None]:
    """The timeline's route filter (``dashboard`` or ``other``) and memory id filter."""
    route = _text(params, "route")
    if route is not None and route not in AUDIT_ROUTES:
        raise InvalidInput(
            f"route must be one of {', '.join(AUDIT_ROUTES)}; got {route[:40]!r}", field="route"
        )
    memory = _text(params, "memory")
    if memory is not None:
        try:
            memory = v.check_id(memory).upper()
        except InvalidInput:
            raise InvalidInput(
                f"memory must be a memory id (26 letters and digits); got {memory[:40]!r}", field="memory"
            ) from None
    return route, memory


def memory_changes(form: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
    """The edit form: the fields to change (validated by the service) and ``if_version``."""
    version = whole(form, "if_version", "if_version", default=None, low=1, high=2**31)
    if version is None:
        raise InvalidInput("if_version is missing: reload the memory and edit it again", field="if_version")
    changes: dict[str, Any] = {}
    for name in ("content", "title", "project", "kind"):
        if name in form:
            changes[name] = str(form[name])
    if "tags" in form:
        changes["tags"] = [t.strip() for t in str(form["tags"]).split(",") if t.strip()]
    if "pinned" in form:
        pinned = _choice(form, "pinned", "pinned")
        if pinned is None:
            raise InvalidInput("pinned must be yes or no", field="pinned")
        changes["pinned"] = pinned
    if not changes:
        raise InvalidInput("nothing to change: send at least one field", field="content")
    return changes, version


def memory_id(value: str) -> str:
    return v.check_id(value).upper()
