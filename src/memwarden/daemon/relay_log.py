"""Loggers of the modules a relaying ``memwarden serve`` runs (``attach.py``, ``launch.py``),
which import :mod:`logging` and set its handlers up the first time they log.

A relay lives as long as its MCP client and logs a few lines at most (a daemon it replaces, a
refusal naming settings); most relays log none. ``logging`` (with traceback, linecache,
tokenize, weakref and string) would stay resident in every client's process for those few
lines, so the relay's handlers (the log file and stderr, ``set_up_on_first_log``) are set up by
the first line logged, if one ever is.

In any other process (the daemon, the CLI, the hooks) nothing is deferred: the logger is
``logging.getLogger(name)``, imported on first use as ``memwarden.logs`` does.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: the relay does not import typing (docs/daemon.md)
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

# The set-up a relay asked for, run (and removed) before its first line is logged.
_deferred_setup: list[Callable[[], None]] = []


def set_up_on_first_log(setup: Callable[[], None]) -> None:
    """Run ``setup`` (it configures logging) before the first line any of these loggers logs."""
    _deferred_setup[:] = [setup]


class DeferredLogger:
    """Stands for ``logging.getLogger(name)``; every attribute is the real logger's, taken after
    the deferred set-up (if any) has run."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __getattr__(self, attribute: str) -> Any:
        if _deferred_setup:
            _deferred_setup.pop()()
        import logging

        return getattr(logging.getLogger(self.name), attribute)

    def __repr__(self) -> str:
        return f"<DeferredLogger {self.name}>"


def get_logger(name: str) -> Any:
    """The logger of module ``name`` (typed ``Any``: used as a ``logging.Logger``)."""
    return DeferredLogger(name)
