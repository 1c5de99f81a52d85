"""Errors raised by memwarden's core.

    MemwardenError
    ├── NotFound             an id that does not exist (for this tenant)
    ├── Conflict             a stale ``if_version``, or an update that would duplicate a memory
    ├── InvalidInput         bad arguments: the message names the field and what to send instead
    ├── PolicyBlocked        refused by policy (tenancy, redaction rules)
    ├── StorageError         the database failed; nothing was changed
    ├── EmbeddingUnavailable the embedding provider cannot answer
    └── ConfigError          a setting is wrong; start-up stops

The core never prints or exits; each adapter maps these in one place.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: its import is a large share of the prompt hook's budget (docs/performance.md#cold-start; mypy reads it as True)
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any


class MemwardenError(Exception):
    """Base of every error memwarden raises on purpose."""

    code = "error"

    def __init__(self, message: str, **fields: Any) -> None:
        super().__init__(message)
        self.message = message
        self.fields = fields

    def to_dict(self) -> dict[str, Any]:
        return {"error": self.code, "message": self.message, **self.fields}


class NotFound(MemwardenError):
    code = "not_found"


def about_an_id(exc: MemwardenError) -> bool:
    """True when ``exc`` is about a memory id (unknown or malformed): each adapter then says, in
    its own terms, where ids come from (the core's message names no tool or command)."""
    return (isinstance(exc, NotFound) and "id" in exc.fields) or (
        isinstance(exc, InvalidInput) and exc.fields.get("field") == "id"
    )


class Conflict(MemwardenError):
    code = "conflict"


class InvalidInput(MemwardenError):
    code = "invalid_input"


class PolicyBlocked(MemwardenError):
    code = "policy_blocked"


class StorageError(MemwardenError):
    code = "storage_error"


class EmbeddingUnavailable(MemwardenError):
    code = "embedding_unavailable"


class ConfigError(MemwardenError):
    code = "config_error"
