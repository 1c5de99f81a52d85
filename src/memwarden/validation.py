"""Argument checks shared by every adapter; each error names the field and what to send."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from memwarden.errors import InvalidInput
from memwarden.identifiers import MAX_PROJECT_CHARS, MAX_TAG_CHARS, MAX_THREAD_CHARS, check_identifier
from memwarden.models import KINDS

MAX_LIMIT = 100
MAX_TAGS = 32
MAX_TITLE_CHARS = 300
MAX_QUERY_CHARS = 4000
MAX_IDS = 100
MAX_TTL_HOURS = 24 * 365 * 100
# occurred_at may lie this far ahead of the clock (a plan for next week, clocks out of step);
# further out is more likely a typo or a unit mix-up than a memory.
MAX_FUTURE = timedelta(days=366)
EARLIEST_OCCURRED = datetime(1, 1, 2, tzinfo=UTC)
_ID = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")


def check_text(field: str, value: object, *, max_bytes: int | None = None, allow_empty: bool = False) -> str:
    """A well-formed string: no NUL or control bytes, no lone surrogates, not blank."""
    if not isinstance(value, str):
        raise InvalidInput(f"{field} must be a string, got {type(value).__name__}", field=field)
    if "\x00" in value:
        raise InvalidInput(f"{field} contains a NUL byte; remove it", field=field)
    try:
        encoded = value.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(
            f"{field} is not valid Unicode (a lone surrogate); send UTF-8 text", field=field
        ) from None
    if not allow_empty and not value.strip():
        raise InvalidInput(f"{field} is empty; send some text", field=field)
    if max_bytes is not None and len(encoded) > max_bytes:
        raise InvalidInput(
            f"{field} is {len(encoded)} bytes, over the limit of {max_bytes} "
            "(MEMWARDEN_MAX_CONTENT_BYTES); split it into smaller memories",
            field=field,
            limit=max_bytes,
        )
    return value


def check_visible(field: str, text: str) -> str:
    """``text``, refused when it shows nothing: only spaces and characters a reader never sees
    (zero-width, bidi, variation selectors …: what the normalisation in front of redaction
    removes). Identifiers (project, tags, thread) get the same check in ``Intake``."""
    if not text.isascii():
        from memwarden.govern.normalization import normalize_text

        if not normalize_text(text).strip():
            raise InvalidInput(
                f"{field} is empty once invisible characters are removed; send some text", field=field
            )
    return text


def normalize_content(content: str) -> str:
    """The stored form of content: NFC, unified newlines, no surrounding blank space."""
    text = unicodedata.normalize("NFC", content.replace("\r\n", "\n").replace("\r", "\n"))
    return text.strip()


# Identifiers (project, kind, tags, thread): the character policy is identifiers.py's; the
# lengths and shapes are checked here. ``characters=False`` leaves the policy to the caller:
# Intake checks it after its redaction check, so an identifier hiding a secret behind an
# invisible character is refused naming the rule that protects it.


def _policy(field: str, value: str, characters: bool) -> str:
    return check_identifier(field, value) if characters else value


def check_project(value: object, *, characters: bool = True) -> str:
    project = check_text("project", value).strip()
    if len(project) > MAX_PROJECT_CHARS:
        raise InvalidInput(f"project must be 1-{MAX_PROJECT_CHARS} characters", field="project")
    return _policy("project", project, characters)


def check_kind(value: object) -> str:
    if value not in KINDS:
        shown = repr(value)[:40] if isinstance(value, str) else type(value).__name__
        raise InvalidInput(f"kind must be one of {', '.join(KINDS)}; got {shown}", field="kind")
    return str(value)


def check_title(value: object) -> str:
    title = " ".join(check_text("title", value, allow_empty=True).split())
    if len(title) > MAX_TITLE_CHARS:
        raise InvalidInput(f"title is longer than {MAX_TITLE_CHARS} characters", field="title")
    return title


def check_tags(value: object, *, characters: bool = True) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise InvalidInput("tags must be a list of strings", field="tags")
    tags: list[str] = []
    for raw in value:
        tag = check_text("tags", raw).strip()
        if len(tag) > MAX_TAG_CHARS:
            raise InvalidInput(f"each tag must be 1-{MAX_TAG_CHARS} characters", field="tags")
        tag = _policy("tags", tag, characters)
        if tag not in tags:
            tags.append(tag)
    if len(tags) > MAX_TAGS:
        raise InvalidInput(f"at most {MAX_TAGS} tags per memory", field="tags")
    return tuple(tags)


def check_ttl_hours(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInput("ttl_hours must be a number of hours", field="ttl_hours")
    if not value > 0 or value > MAX_TTL_HOURS:
        raise InvalidInput(
            f"ttl_hours must be more than 0 and at most {MAX_TTL_HOURS}; omit it to keep the memory",
            field="ttl_hours",
        )
    return float(value)


def check_limit(value: object, *, maximum: int = MAX_LIMIT) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput("limit must be a whole number", field="limit")
    if not 1 <= value <= maximum:
        raise InvalidInput(f"limit must be between 1 and {maximum}; got {value}", field="limit")
    return value


def check_id(value: object) -> str:
    if not isinstance(value, str) or not _ID.match(value.strip().upper()):
        raise InvalidInput(
            f"{value!r} is not a memory id (26-character ULID such as 01JD3Z5X9Q2W8E7R6T5Y4V3K2M)",
            field="id",
        )
    return value.strip().upper()


def check_ids(value: object) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value:
        raise InvalidInput("ids must be a non-empty list of memory ids", field="ids")
    if len(value) > MAX_IDS:
        raise InvalidInput(f"at most {MAX_IDS} ids per call", field="ids")
    return list(dict.fromkeys(check_id(v) for v in value))


def check_query(value: object) -> str:
    if value is None:
        return ""
    query = check_text("query", value, allow_empty=True)
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(f"query is longer than {MAX_QUERY_CHARS} characters; shorten it", field="query")
    return query


MAX_TOKENS_LIMIT = 1_000_000


def check_max_tokens(value: object) -> int | None:
    """A token budget: None (no budget) or a whole number from 1 to 1,000,000."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInput(f"max_tokens must be a whole number, got {value!r}", field="max_tokens")
    if not 1 <= value <= MAX_TOKENS_LIMIT:
        raise InvalidInput(
            f"max_tokens must be between 1 and {MAX_TOKENS_LIMIT}, got {value}", field="max_tokens"
        )
    return value


def check_context(value: object, *, max_bytes: int) -> str:
    """Optional text explaining a memory: "" when absent, else as content (same byte limit)."""
    if value is None:
        return ""
    text = check_text("context", value, max_bytes=max_bytes, allow_empty=True)
    return normalize_content(text)


def check_thread(value: object, *, characters: bool = True) -> str:
    """Optional id grouping memories of one conversation, session or task: "" when absent."""
    if value is None:
        return ""
    thread = check_text("thread", value, allow_empty=True).strip()
    if len(thread) > MAX_THREAD_CHARS:
        raise InvalidInput(f"thread must be at most {MAX_THREAD_CHARS} characters", field="thread")
    return _policy("thread", thread, characters)


def check_occurred_at(value: object, *, now: datetime) -> datetime | None:
    """When the remembered thing happened: an ISO 8601 date or date-time (UTC if no offset is
    given), or a datetime; None when absent (the caller then uses the time of storing)."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        when = value
    elif isinstance(value, str):
        text = value.strip()
        try:
            when = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
        except ValueError:
            # The value is not echoed: a refused field may hold anything (an e-mail, a card
            # number, whose digits and dashes look like a date's), and this message reaches
            # logs and audit rows; a cut of it would slip past the redaction that sees it.
            raise InvalidInput(
                f"occurred_at is not an ISO 8601 date or date-time (it has {len(value)} characters; "
                "send e.g. 2023-05-08 or 2023-05-08T13:56:00Z)",
                field="occurred_at",
            ) from None
    else:
        raise InvalidInput(
            "occurred_at must be an ISO 8601 string such as 2023-05-08T13:56:00Z", field="occurred_at"
        )
    when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    if when < EARLIEST_OCCURRED:
        raise InvalidInput("occurred_at is before year 1", field="occurred_at")
    if when > now + MAX_FUTURE:
        raise InvalidInput(
            f"occurred_at {when.date().isoformat()} lies more than {MAX_FUTURE.days} days in the future; "
            "send when the remembered thing happened",
            field="occurred_at",
        )
    return when
