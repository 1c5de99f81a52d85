"""Rate limits per actor on writes and searches, in the processes that serve several clients.

The HTTP server and the daemon serve every client through one process: one actor's loop of
writes (each one redacted, indexed, embedded and audited) or searches would slow every other
actor down. Each actor gets a token bucket per kind of call: it holds at most a minute's
allowance (``MEMWARDEN_RATE_WRITES_PER_MINUTE``, ``MEMWARDEN_RATE_SEARCHES_PER_MINUTE``; 0 turns a
limit off), a call takes one token, and tokens come back at the per-minute rate. A call that
does the work of many (an import of many records) is charged the rest once it has run
(``charge``): the bucket may go below zero, and the actor's next calls of that kind wait until it
has refilled, so batching writes into one call saves nothing. A call with no token left raises
``RateLimited``, whose message names the setting and when to retry; each
adapter answers it in its own terms (an MCP tool error, HTTP 429 with ``Retry-After``, the
daemon's error frame the CLI prints). The defaults are far above what an agent does in a
conversation; bulk loading belongs to ``memwarden import``.

Refusals are logged once a minute per actor and kind (``OncePerInterval``), with a count, never
once per call. Standard library only.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from typing import Any

from memwarden.errors import MemwardenError

__all__ = ["SEARCH", "WRITE", "ActorRateLimits", "OncePerInterval", "RateLimited"]

logger = logging.getLogger(__name__)
WRITE = "write"
SEARCH = "search"
_SETTING = {WRITE: "MEMWARDEN_RATE_WRITES_PER_MINUTE", SEARCH: "MEMWARDEN_RATE_SEARCHES_PER_MINUTE"}
#: What the messages call the calls of each kind (reads of stored memories count as searches).
_CALLS = {WRITE: "writes", SEARCH: "searches and reads"}
#: Buckets kept before full ones are dropped (a full bucket is the same as a new one).
MAX_BUCKETS = 10_000


class RateLimited(MemwardenError):
    """An actor used up its allowance; ``limit`` names the setting, ``retry_after_s`` the wait."""

    code = "rate_limited"


class OncePerInterval:
    """A warning logged at most once per ``interval_s`` for each key, counting what it stands for."""

    def __init__(
        self, log: logging.Logger, interval_s: float = 60.0, clock: Callable[[], float] = time.monotonic
    ):
        self.log = log
        self.interval_s = interval_s
        self.clock = clock
        self._last: dict[str, float] = {}
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()

    def warn(self, key: str, message: str, *args: Any) -> None:
        """Count one event for ``key``; log ``message % (*args, count)`` when the interval has passed."""
        now = self.clock()
        with self._lock:
            self._counts[key] = self._counts.get(key, 0) + 1
            if now - self._last.get(key, -math.inf) < self.interval_s:
                return
            count = self._counts.pop(key)
            self._last[key] = now
            if len(self._last) > MAX_BUCKETS:  # forget keys quiet for a whole interval
                self._last = {k: t for k, t in self._last.items() if now - t < self.interval_s}
        self.log.warning(message, *args, count)


class ActorRateLimits:
    """Token buckets per (tenant, actor, kind); thread-safe (daemon calls run in worker threads).

    The tenant is part of the key: two tokens may name the same actor in different tenants (a
    ``ci-bot`` of each), and one must not spend the other's allowance."""

    def __init__(
        self,
        *,
        writes_per_minute: int,
        searches_per_minute: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_minute = {WRITE: writes_per_minute, SEARCH: searches_per_minute}
        self.clock = clock
        self._buckets: dict[tuple[str, str, str], tuple[float, float]] = {}  # → (tokens, when counted)
        self._lock = threading.Lock()
        self._refusals = OncePerInterval(logger, clock=clock)

    @classmethod
    def from_settings(cls, settings: Any) -> ActorRateLimits:
        return cls(
            writes_per_minute=int(settings.rate_writes_per_minute),
            searches_per_minute=int(settings.rate_searches_per_minute),
        )

    def take(self, actor: str, kind: str, *, tenant: str = "") -> None:
        """Spend one of ``actor``'s ``kind`` calls in ``tenant``, or raise ``RateLimited`` (nothing
        is spent)."""
        allowance = self.per_minute[kind]
        if allowance <= 0:
            return
        rate = allowance / 60.0
        now = self.clock()
        with self._lock:
            key = (tenant, actor, kind)
            tokens, then = self._buckets.get(key, (float(allowance), now))
            tokens = min(float(allowance), tokens + (now - then) * rate)
            if tokens >= 1.0:
                self._buckets[key] = (tokens - 1.0, now)
                if len(self._buckets) > MAX_BUCKETS:
                    self._forget_full(now)
                return
            self._buckets[key] = (tokens, now)
        retry_after = max(1, math.ceil((1.0 - tokens) / rate))
        setting = _SETTING[kind]
        self._refusals.warn(
            f"{kind}:{tenant}:{actor}",
            "actor %r reached its limit of %d %s a minute (%s); refused %d call(s) in the last minute",
            actor,
            allowance,
            _CALLS[kind],
            setting,
        )
        raise RateLimited(
            f"actor {actor!r} made more than {allowance} {_CALLS[kind]} in a minute (rate limit {setting}); "
            f"retry in {retry_after} s",
            limit=setting,
            retry_after_s=retry_after,
        )

    def charge(self, actor: str, kind: str, count: int, *, tenant: str = "") -> None:
        """Spend ``count`` more of ``actor``'s ``kind`` calls for work already done, never refusing:
        the bucket may go below zero, and later calls wait until it has refilled."""
        allowance = self.per_minute[kind]
        if allowance <= 0 or count <= 0:
            return
        now = self.clock()
        with self._lock:
            key = (tenant, actor, kind)
            tokens, then = self._buckets.get(key, (float(allowance), now))
            tokens = min(float(allowance), tokens + (now - then) * allowance / 60.0)
            self._buckets[key] = (tokens - count, now)

    def _forget_full(self, now: float) -> None:
        """Drop buckets that have refilled: they behave exactly as a missing one."""
        kept = {}
        for key, (tokens, then) in self._buckets.items():
            allowance = self.per_minute[key[2]]
            if tokens + (now - then) * allowance / 60.0 < allowance:
                kept[key] = (tokens, then)
        self._buckets = kept
