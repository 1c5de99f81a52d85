"""memwarden's export format (version 1), described once as pydantic models.

``ExportDocument`` validates a memwarden export on import (every record, before anything is
written; the first bad record is named with its number and field) and is the source of
docs/export-format.schema.json (``python scripts/generate_export_schema.py``; a test fails when
the file differs). Field checks here are about shape; the content rules (size, redaction,
project and tag limits) are the service's, run on every imported record.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator

from memwarden.errors import InvalidInput
from memwarden.models import KINDS, parse_time
from memwarden.ops.transfer import FORMAT, VERSION, ImportRecord

SCHEMA_ID = "https://memwarden.invalid/export-format/1"
_TIME_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"


def _time(value: object) -> object:
    """An ISO 8601 string as an aware datetime (UTC when it names no offset)."""
    if not isinstance(value, str):
        return value  # pydantic reports the wrong type
    try:
        parsed = parse_time(value)
    except ValueError:
        raise ValueError(f"not an ISO 8601 time: {value!r}") from None
    assert parsed is not None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


Time = Annotated[
    datetime, BeforeValidator(_time), Field(json_schema_extra={"type": "string", "pattern": _TIME_PATTERN})
]


class ExportedMemory(BaseModel):
    """One memory of an export. Unknown fields are ignored (a newer memwarden may add some)."""

    model_config = ConfigDict(extra="ignore", strict=True, frozen=True)

    id: str = Field(
        description="ULID; kept on import", json_schema_extra={"pattern": "^[0-9A-HJKMNP-TV-Z]{26}$"}
    )
    content: str = Field(min_length=1, description="Already redacted; redacted again on import")
    project: str | None = Field(default=None, min_length=1, max_length=100)
    kind: Literal["fact", "preference", "episode", "note"] = "fact"
    title: str = Field(default="", max_length=300)
    tags: list[Annotated[str, Field(min_length=1, max_length=64)]] = Field(
        default_factory=list, max_length=32
    )
    pinned: bool = False
    created_at: Time
    updated_at: Time
    expires_at: Time | None = None
    deleted_at: Time | None = None
    version: int = Field(default=1, ge=1)
    hit_count: int = Field(default=0, ge=0)
    last_used_at: Time | None = None
    redactions: list[str] = Field(
        default_factory=list, description="Names of redaction rules that fired, never the values"
    )
    context: str = Field(
        default="",
        description="Text explaining the memory (e.g. the message it replies to); "
        "already redacted, redacted again on import",
    )
    thread: str = Field(default="", description="Groups memories of one conversation, session or task")
    occurred_at: Time | None = Field(
        default=None, description="When the remembered thing happened; null means created_at"
    )
    source: str | None = Field(
        default=None,
        description="The route that wrote the memory where it was exported (cli, dashboard, mcp, import, "
        "hook, library, unknown); informational: an imported memory's source is import",
    )
    actor: str | None = Field(
        default=None,
        description="Who wrote the memory where it was exported; informational: an imported memory's "
        "actor is the importing caller",
    )

    screening_cleared: str | None = Field(
        default=None,
        description="Present when a user cleared the memory's screening flags: the SHA-256 (64 hex "
        "digits) of the text screening read when they did. `memwarden import` run by the local operator "
        "keeps the clear when the imported text has this digest; every other import screens the memory "
        "like any write",
        json_schema_extra={"pattern": "^[0-9a-f]{64}$"},
    )

    @field_validator("screening_cleared")
    @classmethod
    def _digest(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch("[0-9a-f]{64}", value):
            raise ValueError(f"not a SHA-256 digest (64 lowercase hex digits): {value[:80]!r}")
        return value

    @field_validator("id")
    @classmethod
    def _memory_id(cls, value: str) -> str:
        if len(value) != 26 or not value.isalnum():
            raise ValueError(f"{value!r} is not a memory id (a 26-character ULID)")
        return value.upper()


class ExportDocument(BaseModel):
    """A whole export: a header and the memories."""

    model_config = ConfigDict(
        extra="ignore", strict=True, frozen=True, title="memwarden export, format version 1"
    )

    format: Literal["memwarden.export"]
    version: Literal[1]
    exported_at: Time | None = None
    memwarden_version: str | None = None
    tenant: str | None = Field(
        default=None,
        description="The exporting tenant; informational: an import "
        "always goes to the importing caller's tenant.",
    )
    project: str | None = Field(default=None, description="The project exported, or null for all projects.")
    count: int | None = Field(default=None, ge=0)
    memories: list[ExportedMemory]


assert set(KINDS) == {"fact", "preference", "episode", "note"}  # the Literal above must follow models.KINDS


def _message(error: Any, where: str) -> str:
    location = [part for part in error["loc"] if not isinstance(part, int)]
    key = location[-1] if location else "memory"
    if error["type"] == "missing":
        return f"{where}: missing field {key!r}"
    if error["type"] == "value_error":
        return f"{where}: {key} is {str(error['msg']).removeprefix('Value error, ')}"
    if error["type"] == "literal_error" and key == "kind":
        return f"{where}: kind must be one of {', '.join(KINDS)}; got {error['input']!r}"
    return f"{where}: {key}: {error['msg']}"


def read_export(document: Any) -> ExportDocument:
    """A memwarden export checked whole; InvalidInput naming the first problem otherwise."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise InvalidInput(
            f'not a memwarden export: the top level must be an object with "format": "{FORMAT}" '
            "(for other tools' files pass --format mcp-memory, mem0 or memorry)",
            field="format",
        )
    if document.get("version") != VERSION:
        raise InvalidInput(
            f"export format version {document.get('version')!r} is not supported; this memwarden reads version "
            f"{VERSION}",
            field="version",
        )
    memories = document.get("memories")
    if not isinstance(memories, list):
        raise InvalidInput('the export has no "memories" list', field="memories")
    for number, raw in enumerate(memories, start=1):
        where = f"memory #{number}"
        if not isinstance(raw, dict):
            raise InvalidInput(f"{where} is not an object", field="memories")
    try:
        return ExportDocument.model_validate(document)
    except ValidationError as exc:
        first = exc.errors()[0]
        numbers = [part for part in first["loc"] if isinstance(part, int)]
        where = f"memory #{numbers[0] + 1}" if first["loc"][:1] == ("memories",) and numbers else "the export"
        field = next((str(p) for p in reversed(first["loc"]) if isinstance(p, str)), "data")
        raise InvalidInput(_message(first, where), field=field) from None


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the export format, as published in docs/export-format.schema.json."""
    schema = ExportDocument.model_json_schema(mode="serialization")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        **schema,
        "description": "Written by `memwarden export` and the memory_export MCP tool; read by "
        "`memwarden import` and memory_import.",
    }


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


def memwarden_records(document: Any) -> list[ImportRecord]:
    """Records of a memwarden export (version 1), checked whole by ``export_format.ExportDocument``."""
    return [
        ImportRecord(
            id=m.id,
            content=m.content,
            project=m.project,
            kind=m.kind,
            title=m.title,
            tags=tuple(m.tags),
            pinned=m.pinned,
            created_at=m.created_at,
            updated_at=m.updated_at,
            expires_at=m.expires_at,
            deleted_at=m.deleted_at,
            version=m.version,
            hit_count=m.hit_count,
            last_used_at=m.last_used_at,
            redactions=tuple(m.redactions),
            context=m.context,
            thread=m.thread,
            occurred_at=m.occurred_at,
            screening_cleared=m.screening_cleared,
        )
        for m in read_export(document).memories
    ]
