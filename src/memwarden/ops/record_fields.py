"""Shape checks for the fields of foreign import files (mcp-memory, mem0, memorry records).

Each check names the record (``where``) and the field; content rules (size, redaction, limits)
are the service's, run on every imported record.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from memwarden.errors import InvalidInput
from memwarden.models import parse_time


def field_value(
    record: dict[str, Any],
    key: str,
    where: str,
    kinds: tuple[type, ...],
    *,
    required: bool = False,
    default: Any = None,
) -> Any:
    if key not in record or record[key] is None:
        if required:
            raise InvalidInput(f"{where}: missing field {key!r}", field=key)
        return default
    value = record[key]
    if isinstance(value, bool) and bool not in kinds:
        raise InvalidInput(f"{where}: {key} must be {kinds[0].__name__}, got a boolean", field=key)
    if not isinstance(value, kinds):
        raise InvalidInput(
            f"{where}: {key} must be {kinds[0].__name__}, got {type(value).__name__}", field=key
        )
    return value


def time_value(record: dict[str, Any], key: str, where: str, *, required: bool = False) -> datetime | None:
    value = field_value(record, key, where, (str,), required=required)
    if value is None:
        return None
    try:
        parsed = parse_time(value)
    except ValueError:
        raise InvalidInput(f"{where}: {key} is not an ISO 8601 time: {value!r}", field=key) from None
    assert parsed is not None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
