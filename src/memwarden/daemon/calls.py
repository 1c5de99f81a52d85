"""The daemon's call operations: what ``memwarden search``, ``add`` and the prompt hook ask for.

Each request is ``{"id": ..., "op": ..., "args": {...}}``. Arguments are checked here for their
JSON types (read from the op's request model, ``memwarden.requests``; a clear error names the
argument), then become that request, checked as every route checks it; the answer
is what the same call returns in-process, as JSON. Every call runs as the connection's caller.
"""

from __future__ import annotations

import logging
import os
import time
import types
import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memwarden.daemon.protocol import ProtocolError
from memwarden.errors import MemwardenError
from memwarden.rate_limits import SEARCH, WRITE
from memwarden.requests import AddRequest, Request, SearchRequest
from memwarden.search.recall import parse_recall_request, recall
from memwarden.version import __version__

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.models import Caller
    from memwarden.rate_limits import ActorRateLimits
    from memwarden.service import MemoryService

logger = logging.getLogger(__name__)

# The JSON types a field's Python type arrives as (a whole number is a float too; a datetime
# is not JSON and travels as text, which the request reads).
_JSON_TYPES: dict[object, tuple[type, ...]] = {
    str: (str,),
    int: (int,),
    float: (int, float),
    bool: (bool,),
    list: (list,),
    type(None): (type(None),),
}
_UNIONS = (types.UnionType, typing.Union)


def wire_spec(model: type[Request]) -> tuple[dict[str, tuple[type, ...]], tuple[str, ...]]:
    """Each field of ``model`` with the JSON types it takes, and the required fields: the frame
    check of an op, read from its request model."""
    spec: dict[str, tuple[type, ...]] = {}
    for name, field in model.model_fields.items():
        options = typing.get_args(field.annotation) if typing.get_origin(field.annotation) in _UNIONS else ()
        kinds: list[type] = []
        for option in options or (field.annotation,):
            kinds += _JSON_TYPES.get(typing.get_origin(option) or option, ())
        spec[name] = tuple(dict.fromkeys(kinds))
    required = tuple(name for name, field in model.model_fields.items() if field.is_required())
    return spec, required


SEARCH_ARGS, _SEARCH_REQUIRED = wire_spec(SearchRequest)
ADD_ARGS, _ADD_REQUIRED = wire_spec(AddRequest)


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
        request = SearchRequest.model_validate(checked(args, SEARCH_ARGS, _SEARCH_REQUIRED))
        result: dict[str, Any] = self.service.search(request, caller=caller).to_dict()
        return result

    def op_add(self, args: dict[str, Any], caller: Caller) -> dict[str, Any]:
        request = AddRequest.model_validate(checked(args, ADD_ARGS, _ADD_REQUIRED))
        # Only `memwarden add` sends this call (hooks never add): the CLI is the route it records.
        result: dict[str, Any] = self.service.memories.add(request, caller=caller.via("cli")).to_dict()
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


# ``dashboard`` (start the daemon's HTTP server, ``daemon/dashboard.py``) is answered by the
# daemon's event loop itself (``server.Daemon``), not by a worker thread here.
OPS = ("ping", "search", "add", "recall", "hook_prompt", "stop", "dashboard")
DASHBOARD_ARGS: dict[str, tuple[type, ...]] = {"port": (int, type(None))}
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
