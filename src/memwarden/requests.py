"""One typed request per operation: what a caller may ask of memwarden, checked once.

The MCP tools, the daemon's call frames, the CLI and the Python API (``memwarden.open``) build
these and hand them to the service, so a field is declared (type, default, limits, description)
in one place. Each field is checked by the shape checks of ``validation`` (the same sentences
every route has always answered); what depends on settings or on redaction (content size, the
identifier character policy, which runs after the redaction check so a secret is refused
naming its rule, the future bound of ``occurred_at``) stays with the service's ``Intake``.

Bad input raises ``InvalidInput`` naming the field, never pydantic's ``ValidationError``:
adapters map memwarden's errors in one place. The parameter texts a model reads are the MCP
tool catalogue's (``tool_text.py``, plain data), so the published words stay one source.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, ClassVar, Self

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from memwarden import validation as v
from memwarden.errors import InvalidInput
from memwarden.tool_text import TOOLS

__all__ = [
    "AddRequest",
    "DeleteRequest",
    "ExportRequest",
    "GetRequest",
    "ImportRequest",
    "ListRequest",
    "Request",
    "SearchRequest",
    "StatsRequest",
    "UpdateRequest",
]


def _words(tool: str, param: str) -> str:
    return TOOLS[tool].params[param]


def _refusal(exc: ValidationError) -> InvalidInput:
    """pydantic's first complaint as memwarden's error: which field, what is wrong, what to send."""
    err = exc.errors(include_url=False)[0]
    field = ".".join(str(part) for part in err["loc"]) or "arguments"
    if err["type"] == "missing":
        return InvalidInput(f"{field} is required; send it", field=field)
    if err["type"] == "extra_forbidden":
        return InvalidInput(f"{field} is not a field of this request; leave it out", field=field)
    return InvalidInput(f"{field}: {err['msg'].lower()}", field=field)


class Request(BaseModel):
    """Base of every request: frozen, no unknown fields, memwarden's own errors."""

    # defer_build: a model is built on its first use, so a one-shot command pays for its own only.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, defer_build=True)
    # The MCP tool whose published parameter texts these fields carry (None: not a tool).
    tool: ClassVar[str | None] = None

    @model_validator(mode="wrap")
    @classmethod
    def _own_errors(cls, data: Any, handler: Any) -> Any:
        # Field checks raise InvalidInput themselves (pydantic lets it through); what pydantic
        # finds on its own (a missing or unknown field, a wrong type) is turned into one here.
        try:
            return handler(data)
        except ValidationError as exc:
            raise _refusal(exc) from None

    @classmethod
    def parse(cls, data: object) -> Self:
        """The request from a decoded JSON object (a daemon frame, an HTTP body)."""
        if not isinstance(data, dict):
            raise InvalidInput("the arguments must be a JSON object", field="arguments")
        return cls.model_validate(data)

    def given(self) -> dict[str, Any]:
        """The fields as keyword arguments (what the service's keyword form takes)."""
        return {name: getattr(self, name) for name in type(self).model_fields}


def _tags(value: object) -> list[str] | None:
    return None if value is None else list(v.check_tags(value, characters=False))


def _optional_text(field: str, value: object) -> str | None:
    return None if value is None else v.check_text(field, value, allow_empty=True)


def _occurred(value: object) -> object:
    # The date itself is read by the service (its future bound needs the service's clock).
    if value is None or isinstance(value, (str, datetime)):
        return value
    raise InvalidInput(
        "occurred_at must be an ISO 8601 string such as 2023-05-08T13:56:00Z", field="occurred_at"
    )


def _bool(field: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(f"{field} must be true or false, got {type(value).__name__}", field=field)
    return value


def _optional_bool(field: str, value: object) -> bool | None:
    return None if value is None else _bool(field, value)


# Fields several requests share, each with its check: declared once, used by every model.
OptionalProject = Annotated[
    str | None,
    BeforeValidator(lambda value: None if value is None else v.check_project(value, characters=False)),
]
Tags = Annotated[list[str] | None, BeforeValidator(_tags)]
TtlHours = Annotated[float | None, BeforeValidator(v.check_ttl_hours)]
Context = Annotated[str | None, BeforeValidator(lambda value: _optional_text("context", value))]
Thread = Annotated[
    str | None,
    BeforeValidator(lambda value: None if value is None else v.check_thread(value, characters=False)),
]
OccurredAt = Annotated[str | datetime | None, BeforeValidator(_occurred)]


class AddRequest(Request):
    """Store one memory (``memory_add``, ``memwarden add``, ``Memory.add``)."""

    tool: ClassVar[str | None] = "memory_add"

    content: str = Field(description=_words("memory_add", "content"))
    project: OptionalProject = Field(default=None, description=_words("memory_add", "project"))
    kind: str = Field(default="fact", description=_words("memory_add", "kind"))
    title: str = Field(default="", description=_words("memory_add", "title"))
    tags: Tags = Field(default=None, description=_words("memory_add", "tags"))
    pinned: bool = Field(default=False, description=_words("memory_add", "pinned"))
    ttl_hours: TtlHours = Field(default=None, description=_words("memory_add", "ttl_hours"))
    context: Context = Field(default=None, description=_words("memory_add", "context"))
    thread: Thread = Field(default=None, description=_words("memory_add", "thread"))
    occurred_at: OccurredAt = Field(default=None, description=_words("memory_add", "occurred_at"))

    @field_validator("content", mode="before")
    @classmethod
    def _content(cls, value: object) -> str:
        return v.check_text("content", value)

    @field_validator("kind", mode="before")
    @classmethod
    def _kind(cls, value: object) -> str:
        return v.check_kind(value)

    @field_validator("title", mode="before")
    @classmethod
    def _title(cls, value: object) -> str:
        return v.check_title(value)

    @field_validator("pinned", mode="before")
    @classmethod
    def _pinned(cls, value: object) -> bool:
        return _bool("pinned", value)


class UpdateRequest(Request):
    """Change fields of one memory in place; a field left as None keeps its value."""

    tool: ClassVar[str | None] = "memory_update"

    id: str = Field(description=_words("memory_update", "id"))
    content: str | None = Field(default=None, description=_words("memory_update", "content"))
    project: OptionalProject = Field(default=None, description=_words("memory_update", "project"))
    kind: str | None = Field(default=None, description=_words("memory_update", "kind"))
    title: str | None = Field(default=None, description=_words("memory_update", "title"))
    tags: Tags = Field(default=None, description=_words("memory_update", "tags"))
    pinned: bool | None = Field(default=None, description=_words("memory_update", "pinned"))
    ttl_hours: TtlHours = Field(default=None, description=_words("memory_update", "ttl_hours"))
    context: Context = Field(default=None, description=_words("memory_update", "context"))
    thread: Thread = Field(default=None, description=_words("memory_update", "thread"))
    occurred_at: OccurredAt = Field(default=None, description=_words("memory_update", "occurred_at"))
    if_version: int | None = Field(default=None, description=_words("memory_update", "if_version"))

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: object) -> str:
        return v.check_id(value)

    @field_validator("content", mode="before")
    @classmethod
    def _content(cls, value: object) -> str | None:
        return None if value is None else v.check_text("content", value)

    @field_validator("kind", mode="before")
    @classmethod
    def _kind(cls, value: object) -> str | None:
        return None if value is None else v.check_kind(value)

    @field_validator("title", mode="before")
    @classmethod
    def _title(cls, value: object) -> str | None:
        return None if value is None else v.check_title(value)

    @field_validator("pinned", mode="before")
    @classmethod
    def _pinned(cls, value: object) -> bool | None:
        return _optional_bool("pinned", value)

    @field_validator("if_version", mode="before")
    @classmethod
    def _if_version(cls, value: object) -> int | None:
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise InvalidInput("if_version must be a whole number", field="if_version")
        return value


class SearchRequest(Request):
    """Find memories, best first; an empty query lists the most recently updated ones."""

    tool: ClassVar[str | None] = "memory_search"

    query: str = Field(default="", description=_words("memory_search", "query"))
    project: OptionalProject = Field(default=None, description=_words("memory_search", "project"))
    tags: Tags = Field(default=None, description=_words("memory_search", "tags"))
    limit: int = Field(default=10, description=_words("memory_search", "limit"))
    include_expired: bool = Field(default=False, description=_words("memory_search", "include_expired"))
    max_tokens: int | None = Field(default=None, description=_words("memory_search", "max_tokens"))
    include_context: bool = Field(default=False, description=_words("memory_search", "include_context"))
    # Not offered to a model (the server decides); the CLI's --hybrid and the daemon send it.
    vector: bool = Field(default=True, description="Also search by meaning when an embedder is configured.")

    @field_validator("query", mode="before")
    @classmethod
    def _query(cls, value: object) -> str:
        return v.check_query(value)

    @field_validator("limit", mode="before")
    @classmethod
    def _limit(cls, value: object) -> int:
        return v.check_limit(value)

    @field_validator("max_tokens", mode="before")
    @classmethod
    def _max_tokens(cls, value: object) -> int | None:
        return v.check_max_tokens(value)

    @field_validator("include_expired", "include_context", "vector", mode="before")
    @classmethod
    def _flags(cls, value: object, info: Any) -> bool:
        return _bool(info.field_name, value)


class ListRequest(Request):
    """List memories, most recently updated first: all, one project's, or only pinned ones."""

    tool: ClassVar[str | None] = "memory_list"

    project: OptionalProject = Field(default=None, description=_words("memory_list", "project"))
    tags: Tags = Field(default=None, description=_words("memory_list", "tags"))
    pinned: bool = Field(default=False, description=_words("memory_list", "pinned"))
    limit: int = Field(default=20, description=_words("memory_list", "limit"))
    include_expired: bool = Field(default=False, description=_words("memory_list", "include_expired"))

    @field_validator("limit", mode="before")
    @classmethod
    def _limit(cls, value: object) -> int:
        return v.check_limit(value)

    @field_validator("pinned", "include_expired", mode="before")
    @classmethod
    def _flags(cls, value: object, info: Any) -> bool:
        return _bool(info.field_name, value)


class GetRequest(Request):
    """Read memories by id, in full."""

    tool: ClassVar[str | None] = "memory_get"

    ids: list[str] = Field(description=_words("memory_get", "ids"))
    include_context: bool = Field(default=False, description=_words("memory_get", "include_context"))

    @field_validator("ids", mode="before")
    @classmethod
    def _ids(cls, value: object) -> list[str]:
        return v.check_ids(value)

    @field_validator("include_context", mode="before")
    @classmethod
    def _flag(cls, value: object) -> bool:
        return _bool("include_context", value)


class DeleteRequest(Request):
    """Soft-delete one memory by id (again: nothing changes; an unknown id is an error)."""

    tool: ClassVar[str | None] = "memory_delete"

    id: str = Field(description=_words("memory_delete", "id"))

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: object) -> str:
        return v.check_id(value)


class StatsRequest(Request):
    """Count the caller's memories, all or one project's."""

    tool: ClassVar[str | None] = "memory_stats"

    project: OptionalProject = Field(default=None, description=_words("memory_stats", "project"))


class ExportRequest(Request):
    """Export memories as a memwarden export document (format version 1)."""

    tool: ClassVar[str | None] = "memory_export"

    project: OptionalProject = Field(default=None, description=_words("memory_export", "project"))
    include_deleted: bool = Field(default=False, description=_words("memory_export", "include_deleted"))

    @field_validator("include_deleted", mode="before")
    @classmethod
    def _flag(cls, value: object) -> bool:
        return _bool("include_deleted", value)


class ImportRequest(Request):
    """Import memories from export text: memwarden's own, mem0 or memorry JSON, MCP memory JSONL."""

    tool: ClassVar[str | None] = "memory_import"

    data: str = Field(description="The text to import (a whole export file's content).")
    format: str = Field(default="auto", description=_words("memory_import", "format"))
    project: OptionalProject = Field(default=None, description=_words("memory_import", "project"))

    @field_validator("data", mode="before")
    @classmethod
    def _data(cls, value: object) -> str:
        return v.check_text("data", value)

    @field_validator("format", mode="before")
    @classmethod
    def _format(cls, value: object) -> str:
        # Which names are formats is the import reader's to say (ops/transfer.py).
        return v.check_text("format", value)
