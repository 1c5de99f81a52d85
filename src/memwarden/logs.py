"""Module loggers that import :mod:`logging` the first time they log.

``logging`` (with traceback, threading, weakref and string) is a measurable share of every
``memwarden search`` and ``memwarden hook prompt`` process (docs/performance.md#cold-start),
although a search that goes well logs nothing. Modules on those paths take their logger from
:func:`get_logger`: the same ``logging.getLogger(name)`` logger once anything is logged, so
handlers, levels, ``caplog`` and the log file all see it as usual.
"""

from __future__ import annotations

from typing import Any


class LazyLogger:
    """Stands for ``logging.getLogger(name)``; every attribute is the real logger's."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __getattr__(self, attribute: str) -> Any:
        import logging

        return getattr(logging.getLogger(self.name), attribute)

    def __repr__(self) -> str:
        return f"<LazyLogger {self.name}>"


def get_logger(name: str) -> Any:
    """The logger of module ``name``, importing logging only when it is first used.

    Typed ``Any`` so callers use it as a ``logging.Logger`` (which it forwards to) without
    importing logging for the annotation.
    """
    return LazyLogger(name)


def log_lifecycle(path: Any, event: str) -> None:
    """Append one line (``<time> INFO memwarden.serve: <event>``) to the log file, whatever
    ``MEMWARDEN_LOG_LEVEL`` says.

    The start-up line names the log file; at the default level (warnings) a server that runs
    well would leave it empty, and an empty log cannot tell whether the server ever started or
    when it stopped. A log file that cannot be written is not worth refusing to serve over."""
    import time

    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    try:
        with open(path, "a", encoding="utf-8") as log:
            log.write(f"{stamp} INFO memwarden.serve: {event}\n")
    except OSError:
        pass
