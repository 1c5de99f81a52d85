"""The soak's errors, named so that a reader can tell the expected from the unexpected.

The soak provokes failures on purpose: the daemon is killed every two minutes and the disk
fills once. Some errors follow from that and are what a user would see too (the request in
flight at a kill fails with the relay's ``daemon_restarted``; an HTTP client's session ends and is
reopened; during the full disk, writes and searches are refused with a message naming it).
Anything else is a bug or a regression, and is counted as ``unexpected`` (must be 0).

Each error is recorded with the time it happened (``ErrorLog.add``); ``classify`` then names
it by the window it fell in:

- the disk-full window: from the start of the filling until ``DISK_GRACE_S`` after the space
  came back;
- a kill window: from each kill until ``KILL_GRACE_S`` after it;
- elsewhere.

An error is expected only inside the window that explains it: a full-disk refusal at another
time, a lost connection or a ``daemon_restarted`` with no kill before it (the daemon crashed by
itself), an HTTP 500, a timeout: each is unexpected. Two clients updating and deleting the
same memories may race (an update of a memory another client has just deleted, or whose
delete was in flight at a kill, answers ``not found``; two updates of one memory at once, the
second told its version is stale; an update to text another memory holds): expected at any time,
named so.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import anyio
import httpx
import httpx2
from mcp import MCPError
from mcp.types import CONNECTION_CLOSED

#: After a kill: the in-flight request fails at once, but an HTTP client's reconnection asks for
#: a new daemon, which on a loaded 2-core machine takes many seconds to start and answer.
KILL_GRACE_S = 30.0
#: After the space comes back: requests queued behind the busy timeout or the daemon's single
#: writer while the disk was full can still report it.
DISK_GRACE_S = 10.0

#: How the SDK and the transports report a connection that went away under them.
CONNECTION_LOST = (
    httpx.TransportError,  # the hook route's client
    httpx2.TransportError,  # the MCP SDK's Streamable HTTP client is built on httpx2
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
    anyio.EndOfStream,
    ConnectionError,
)

LOST = "connection lost"
DISK = "disk full"
RESTARTED = "daemon_restarted"
RACE = "deleted meanwhile by another client"
#: Two clients updating one memory at once: the second is told its version is stale (no write is
#: lost; the client may get the memory again and retry).
VERSION_RACE = "updated meanwhile by another client"
#: An update to text another live memory of the project already holds (the random texts of two
#: clients can coincide): refused, nothing changed.
SAME_TEXT = "same text as another memory"
#: A hook route's answer to a search refused on the full disk (memwarden.http.error_answers).
HTTP_DISK_FULL = "503 disk_full"


def leaves(exc: BaseException) -> list[BaseException]:
    """The errors inside an exception group (anyio's task groups wrap what really happened), or
    ``[exc]`` itself."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in leaves(inner)]
    return [exc]


def error_kind(exc: BaseException) -> str:
    """A short name for what went wrong: the innermost errors, not the group around them."""
    names = []
    for leaf in leaves(exc):
        if isinstance(leaf, MCPError):
            data = leaf.data if isinstance(leaf.data, dict) else {}
            if leaf.code == CONNECTION_CLOSED and not data.get("reason"):
                names.append(f"{LOST} (mcp: {leaf})")
            else:
                names.append(f"mcp:{data.get('reason') or leaf.code}")
        elif isinstance(leaf, CONNECTION_LOST):
            names.append(f"{LOST} ({_qualified(leaf)})")
        else:
            names.append(_qualified(leaf))
    return " + ".join(sorted(set(names)))


def _qualified(exc: BaseException) -> str:
    """``httpx.ReadError`` and ``httpcore.ReadError`` are different errors: say whose it is."""
    module = type(exc).__module__.split(".")[0]
    return type(exc).__name__ if module == "builtins" else f"{module}.{type(exc).__name__}"


def tool_error_kind(text: str) -> str:
    """The kind of a tool error from its message (the MCP result carries text only)."""
    lowered = text.lower()
    if "disk is full" in lowered or "no space left" in lowered:
        return f"tool:{DISK}"
    if "no memory with id" in lowered or "was deleted meanwhile" in lowered:
        return "tool:not found"
    if "get it again and retry the update" in lowered:
        return f"tool:{VERSION_RACE}"
    if "already says exactly this" in lowered:
        return f"tool:{SAME_TEXT}"
    for word in ("rate_limited", "storage", "locked"):
        if word in lowered:
            return f"tool:{word}"
    return "tool:other"


class ErrorLog:
    """Every error of the run with its time, plus the kills and the disk-full window."""

    def __init__(self) -> None:
        self.events: list[tuple[float, str, str | None]] = []
        self.kills: list[float] = []
        self.disk_full: tuple[float, float | None] | None = None

    def add(self, kind: str, about: str | None = None) -> None:
        """Record an error now; ``about``: the memory id a ``tool:not found`` was for."""
        self.events.append((time.monotonic(), kind, about))

    def _after_kill(self, at: float) -> bool:
        return any(kill <= at <= kill + KILL_GRACE_S for kill in self.kills)

    def _in_disk_full(self, at: float) -> bool:
        if self.disk_full is None:
            return False
        start, end = self.disk_full
        return start <= at and (end is None or at <= end + DISK_GRACE_S)

    def classify(self, deleting: set[str]) -> dict[str, Any]:
        """Counts by kind, by window, and the expected and unexpected ones (see the module).

        ``deleting``: every id a client sent a delete for, answered or not (a delete in flight
        at a kill may have committed): a ``not found`` for one of those is the race."""
        by_window: dict[str, Counter[str]] = {
            "disk_full": Counter(),
            "after_kill": Counter(),
            "elsewhere": Counter(),
        }
        expected: Counter[str] = Counter()
        unexpected: Counter[str] = Counter()
        for at, raw, about in self.events:
            if raw.endswith(":tool:not found") and about in deleting:
                raw = raw[: -len("tool:not found")] + RACE
            in_disk, after_kill = self._in_disk_full(at), self._after_kill(at)
            kind, explained = self._name(raw, in_disk, after_kill)
            window = "disk_full" if in_disk else "after_kill" if after_kill else "elsewhere"
            by_window[window][kind] += 1
            (expected if explained else unexpected)[kind] += 1
        return {
            "errors": dict(sorted((expected + unexpected).items())),
            "errors_by_window": {w: dict(sorted(c.items())) for w, c in by_window.items()},
            "expected": dict(sorted(expected.items())),
            "unexpected": dict(sorted(unexpected.items())),
            "unexpected_total": sum(unexpected.values()),
        }

    @staticmethod
    def _name(raw: str, in_disk: bool, after_kill: bool) -> tuple[str, bool]:
        """(the kind as the report names it, whether the run's own faults explain it)."""
        where, _, what = raw.partition(":")
        if what.startswith(LOST) and " + " not in what:
            if not after_kill:
                return raw, False
            cause = what[len(LOST) :].strip()
            said = (
                "reconnect after daemon kill" if where.startswith("session/") else "in flight at daemon kill"
            )
            return f"{where}:{said} {cause}", True
        if what == f"mcp:{RESTARTED}":
            return raw, after_kill
        if what in (f"tool:{DISK}", HTTP_DISK_FULL):
            return raw, in_disk
        return raw, what in (RACE, f"tool:{VERSION_RACE}", f"tool:{SAME_TEXT}")
