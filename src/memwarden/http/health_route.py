"""``GET /healthz``: liveness for anyone the security layer lets in; ``?deep=1`` for operators.

The deep check (``ops.health``) runs the integrity check and commits a probe write to the
keyword index, so it is guarded three ways:

- who: with tokens configured, a valid bearer token (the container health check sends
  ``MEMWARDEN_HTTP_TOKEN``); without tokens, only a connection from this machine (its socket
  peer is a loopback address; the Host was already checked by ``guard``);
- what: absolute paths (database, backup folder, vault folders) appear only for the local
  operator, a loopback connection that is not a web page (no ``Origin``); anyone else gets
  the last path component;
- how often: at most one real check per ``MEMWARDEN_HTTP_HEALTH_INTERVAL_S`` per tenant;
  calls in between get the last report, marked ``"cached": true`` with its ``age_s``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import anyio
import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse

from memwarden.hidden_paths import hide_paths
from memwarden.http.auth import BearerAuth
from memwarden.http.guard import client_is_loopback
from memwarden.models import Caller
from memwarden.version import __version__

__all__ = ["DeepHealth", "hide_paths"]


class DeepHealth:
    """``respond`` is the ``/healthz`` endpoint; ``check(caller)`` runs the deep report in a worker thread."""

    def __init__(
        self,
        check: Callable[[Caller], dict[str, Any]],
        auth: BearerAuth,
        *,
        interval_s: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.check = check
        self.auth = auth
        self.interval_s = interval_s
        self.clock = clock
        self._last: dict[str, tuple[float, dict[str, Any]]] = {}
        self._lock = anyio.Lock()

    async def respond(self, request: Request) -> JSONResponse:
        if request.query_params.get("deep", "") not in ("1", "true", "yes"):
            return JSONResponse({"status": "ok", "version": __version__})
        loopback = client_is_loopback(request.scope)
        if self.auth.tokens:
            wait = self.auth.guess_wait_s(request.scope)
            if wait:
                return JSONResponse(
                    {
                        "error": "too_many_wrong_tokens",
                        "message": f"too many wrong tokens from here in the last minute: wait {wait} s",
                    },
                    status_code=429,
                    headers={"retry-after": str(wait)},
                )
            caller = self.auth.resolve(request.headers.get("authorization"))
            if caller is None:
                if request.headers.get("authorization"):
                    self.auth.wrong_token(request.scope)
                return JSONResponse(
                    {"error": "unauthorized", "message": "deep health needs Authorization: Bearer <token>"},
                    status_code=401,
                    headers={"www-authenticate": 'Bearer realm="memwarden"'},
                )
        elif loopback:
            caller = self.auth.default
        else:
            return JSONResponse(
                {
                    "error": "forbidden",
                    "message": "without a token, deep health answers only connections from "
                    "this machine; configure MEMWARDEN_HTTP_TOKEN to ask remotely",
                },
                status_code=403,
            )
        report = await self._report(caller)
        if not (loopback and "origin" not in request.headers):
            report = hide_paths(report)
        return JSONResponse(report, status_code=503 if report.get("status") == "failing" else 200)

    async def _report(self, caller: Caller) -> dict[str, Any]:
        async with self._lock:  # one probe at a time; callers that waited get its result
            last = self._last.get(caller.tenant)
            now = self.clock()
            if last is not None and now - last[0] < self.interval_s:
                return {**last[1], "cached": True, "age_s": round(now - last[0], 1)}
            report = await anyio.to_thread.run_sync(lambda: self.check(caller))
            self._last[caller.tenant] = (self.clock(), report)
            return {**report, "cached": False, "age_s": 0.0}
