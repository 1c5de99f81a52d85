"""The HTTP answer to each error the core raises: one status per kind, a JSON body that says why.

The JSON routes (``/hooks/recall``, ``/hooks/prompt``) answer every ``MemwardenError`` here, so
a client can tell its own mistake (4xx: fix the request) from the server's storage being
unable to serve (503: the body's ``reason`` names the condition and ``message`` what to do)
without reading prose. A 500 is left for what nobody planned for: a bug, logged with its
traceback by the server.

    InvalidInput          400  the body's ``field`` names what to fix
    PolicyBlocked         403
    NotFound              404
    Conflict              409
    RateLimited           429  Retry-After: the wait the limit names
    StorageError          503  ``reason``: disk_full, read_only, database_busy (Retry-After: 1),
                               database_damaged, cannot_open, storage_unavailable
    EmbeddingUnavailable  503  ``reason``: embedding_unavailable
    anything else         500  (ConfigError: the server is set up wrong)
"""

from __future__ import annotations

import logging

from starlette.responses import JSONResponse

from memwarden.errors import (
    Conflict,
    EmbeddingUnavailable,
    InvalidInput,
    MemwardenError,
    NotFound,
    PolicyBlocked,
    StorageError,
)
from memwarden.rate_limits import OncePerInterval, RateLimited

logger = logging.getLogger(__name__)

_STATUS: tuple[tuple[type[MemwardenError], int], ...] = (
    (InvalidInput, 400),
    (PolicyBlocked, 403),
    (NotFound, 404),
    (Conflict, 409),
    (RateLimited, 429),
    (StorageError, 503),
    (EmbeddingUnavailable, 503),
)

#: The store's word for a failed SQLite call (``store.sqlite.faults.fault_condition``) as the
#: ``reason`` a client reads; a backend that names no condition gives ``storage_unavailable``.
STORAGE_REASONS = {
    "full": "disk_full",
    "readonly": "read_only",
    "busy": "database_busy",
    "corrupt": "database_damaged",
    "cantopen": "cannot_open",
}

#: Seconds a client may wait before asking again, for the one storage condition that passes
#: by itself (another process holding the write lock); a full disk or a read-only file waits
#: for a person, so no time is promised for those.
BUSY_RETRY_AFTER_S = 1


def refusal_log() -> OncePerInterval:
    """Where one server logs its 503 answers (see ``error_response``)."""
    return OncePerInterval(logger)


def status_for(exc: MemwardenError) -> int:
    """The HTTP status of ``exc`` (see the module docstring)."""
    return next((status for kind, status in _STATUS if isinstance(exc, kind)), 500)


def error_response(exc: MemwardenError, *, route: str, refusals: OncePerInterval) -> JSONResponse:
    """The JSON answer to ``exc`` raised while serving ``route``: ``exc.to_dict()`` plus, on a
    503, the ``reason`` a client can act on without parsing the message. A 503 is logged
    through ``refusals`` (once a minute per route and reason, with a count): a full disk
    refuses every call until someone frees space, and the log file is usually on that disk."""
    status = status_for(exc)
    body = exc.to_dict()
    headers: dict[str, str] = {}
    if isinstance(exc, RateLimited) and "retry_after_s" in exc.fields:
        headers["retry-after"] = str(exc.fields["retry_after_s"])
    elif isinstance(exc, StorageError):
        body["reason"] = STORAGE_REASONS.get(str(exc.fields.get("condition")), "storage_unavailable")
        if body["reason"] == "database_busy":
            body["retry_after_s"] = BUSY_RETRY_AFTER_S
            headers["retry-after"] = str(BUSY_RETRY_AFTER_S)
        refusals.warn(
            f"{route} {body['reason']}",
            "%s answered 503 (%s): %s [%d such answers since the last line like this]",
            route,
            body["reason"],
            exc.message,
        )
    elif isinstance(exc, EmbeddingUnavailable):
        body["reason"] = "embedding_unavailable"
    elif status == 500:
        logger.error("%s failed: %s: %s", route, exc.code, exc.message)
    return JSONResponse(body, status_code=status, headers=headers)
