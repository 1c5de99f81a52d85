"""The daemon's call operations: what ``memwarden search``, ``add`` and the prompt hook ask for.

Each request is ``{"id": ..., "op": ..., "args": {...}}``. Arguments are checked here for shape
(a clear error names the argument) and then by the service exactly as in-process; the answer
is what the same call returns in-process, as JSON. Every call runs as the connection's caller.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memwarden.daemon.protocol import ProtocolError
from memwarden.errors import MemwardenError
from memwarden.rate_limits import SEARCH, WRITE
from memwarden.search.recall import parse_recall_request, recall
from memwarden.version import __version__

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.models import Caller
    from memwarden.rate_limits import ActorRateLimits
    from memwarden.service import MemoryService

logger = logging.getLogger(__name__)

_STR = (str,)
_OPT_STR = (str, type(None))
_INT = (int,)
_OPT_INT = (int, type(None))
_OPT_NUM = (int, float, type(None))
_BOOL = (bool,)
_TAGS = (list, str, type(None))

SEARCH_ARGS: dict[str, tuple[type, ...]] = {
    "query": _STR,
    "project": _OPT_STR,
    "tags": _TAGS,
    "limit": _INT,
    "include_expired": _BOOL,
    "max_tokens": _OPT_INT,
    "vector": _BOOL,
    "include_context": _BOOL,
}
ADD_ARGS: dict[str, tuple[type, ...]] = {
    "content": _STR,
    "project": _OPT_STR,
    "kind": _STR,
    "title": _STR,
    "tags": _TAGS,
    "pinned": _BOOL,
    "ttl_hours": _OPT_NUM,
    "context": _OPT_STR,
    "thread": _OPT_STR,
    "occurred_at": _OPT_STR,
}


def checked(args: object, spec: dict[str, tuple[type, ...]], required: tuple[str, ...]) -> dict[str, Any]:
    """``args`` if every key is known and of the right JSON type; ProtocolError naming the first bad one."""
    if not isinstance(args, dict):
        raise ProtocolError("bad_call", "args must be a JSON object")
    unknown = sorted(str(k) for k in args if k not in spec)
    if unknown:
        raise ProtocolError("bad_call", f"unknown argument(s) {', '.join(unknown)}; known: {', '.join(spec)}")
    for name in required:
        if name not in args:
            raise ProtocolError("bad_call", f"missing argument {name}")
    for name, value in args.items():
        kinds = spec[name]
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            names = " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
            raise ProtocolError("bad_call", f"argument {name} must be {names}, not {type(value).__name__}")
    return args


class CallHandler:
    """Turns one request line into one answer frame, for one connection's caller."""

    def __init__(
        self,
        service: MemoryService,
        *,
        started: float,
        clients: Callable[[], int],
        limits: ActorRateLimits | None = None,
    ) -> None:
        self.service = service
        self.started = started
        self.clients = clients
        self.limits = limits

    @staticmethod
    def request_id(frame: object) -> object:
        """The id to answer with (None when the frame has none)."""
        return frame.get("id") if isinstance(frame, dict) else None

    @staticmethod
    def parse(frame: object) -> tuple[str, dict[str, Any]]:
        """(op, args) of a decoded request; ProtocolError for a malformed one."""
        if not isinstance(frame, dict):
            raise ProtocolError("bad_call", 'send {"id": 1, "op": "search", "args": {...}}')
        op, args = frame.get("op"), frame.get("args", {})
        if not isinstance(op, str) or op not in OPS:
            raise ProtocolError("unknown_op", f"op must be one of {', '.join(OPS)}, not {op!r}")
        if not isinstance(args, dict):
            raise ProtocolError("bad_call", "args must be a JSON object")
        return op, args

    def run(self, op: str, args: dict[str, Any], caller: Caller) -> Any:
        """The result of one checked call (runs in a worker thread: the service blocks); a call
        past the actor's rate limit raises ``RateLimited`` before anything runs."""
        kind = RATE_LIMITED_OPS.get(op)
        if kind is not None and self.limits is not None:
            self.limits.take(caller.actor, kind, tenant=caller.tenant)
        return getattr(self, f"op_{op}")(args, caller)

    def op_ping(self, args: dict[str, Any], caller: Caller) -> dict[str, Any]:
        checked(args, {}, ())
        return {
            "pid": os.getpid(),
            "version": __version__,
            "clients": self.clients(),
            "uptime_s": round(time.monotonic() - self.started, 3),
            "vectors": self.service.searcher.vector_status(probe=False, caller=caller),
        }

    def op_search(self, args: dict[str, Any], caller: Caller) -> dict[str, Any]:
        given = checked(args, SEARCH_ARGS, ("query",))
        result: dict[str, Any] = self.service.searcher.search(
            given.pop("query"), caller=caller, **given
        ).to_dict()
        return result

    def op_add(self, args: dict[str, Any], caller: Caller) -> dict[str, Any]:
        given = checked(args, ADD_ARGS, ("content",))
        # Only `memwarden add` sends this call (hooks never add): the CLI is the route it records.
        result: dict[str, Any] = self.service.memories.add(
            given.pop("content"), caller=caller.via("cli"), **given
        ).to_dict()
        return result

    def op_recall(self, args: dict[str, Any], caller: Caller) -> dict[str, Any]:
        query, projects, limit = parse_recall_request(args)
        return {"hits": recall(self.service, query, projects, limit, caller=caller)}

    def op_hook_prompt(self, args: dict[str, Any], caller: Caller) -> dict[str, Any]:
        """A whole prompt hook (``hooks.quick``): its JSON in, the line it prints out (or null).

        The hook process then needs none of the parsing, searching and rendering modules: the
        daemon runs the same ``prompt_answer`` the hook runs in its own process."""
        from memwarden.hooks.prompt_request import answer_request, parse_prompt_request

        return answer_request(self.service, parse_prompt_request(args), caller)

    def op_stop(self, args: dict[str, Any], caller: Caller) -> dict[str, Any]:
        checked(args, {}, ())
        return {"stopping": True, "pid": os.getpid()}


OPS = ("ping", "search", "add", "recall", "hook_prompt", "stop")
RATE_LIMITED_OPS = {"add": WRITE, "search": SEARCH, "recall": SEARCH, "hook_prompt": SEARCH}


def error_frame(request_id: object, exc: BaseException) -> dict[str, Any]:
    """The answer for a failed call: the memwarden error's code and message, or an internal error."""
    if isinstance(exc, ProtocolError):
        return exc.frame(request_id)
    if isinstance(exc, MemwardenError):
        return {"id": request_id, "ok": False, "error": {"code": exc.code, "message": exc.message}}
    logger.error("daemon call failed: %s", type(exc).__name__, exc_info=exc)
    return {
        "id": request_id,
        "ok": False,
        "error": {"code": "internal", "message": f"the daemon failed ({type(exc).__name__}); see its log"},
    }
