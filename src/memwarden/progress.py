"""One progress bar for long work (import, keyword re-index, embedding backfill, migrate, vault
sync): done/total, percent, rate and time left, on one line of stderr (stdout may carry JSON or MCP).

Quiet unless stderr is a terminal (``show=True`` forces it: the commands' ``--progress``).
Redraws at most ten times a second, and always at the end, which ends the line with the total
time. Without a total (``count``) it shows the count and the rate.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO


def _clock_text(seconds: float) -> str:
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class ProgressBar:
    def __init__(
        self,
        label: str,
        *,
        show: bool | None = None,
        stream: TextIO | None = None,
        min_total: int = 0,
        width: int = 30,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.show = self.stream.isatty() if show is None else show
        self.min_total = min_total
        self.width = width
        self.clock = clock
        self.started = clock()
        self._drawn_at: float | None = None
        self._finished = False

    def _due(self, now: float, final: bool) -> bool:
        if not self.show or self._finished:
            return False
        return final or self._drawn_at is None or now - self._drawn_at >= 0.1

    def __call__(self, done: int, total: int) -> None:
        if total < self.min_total:
            return
        now = self.clock()
        final = done >= total
        if not self._due(now, final):
            return
        elapsed = now - self.started
        rate = done / elapsed if elapsed > 0 else 0.0
        filled = self.width * min(done, total) // max(total, 1)
        percent = 100 * min(done, total) // max(total, 1)
        if final:
            timing = f"{rate:,.0f}/s, took {_clock_text(elapsed)}"
        elif rate > 0:
            timing = f"{rate:,.0f}/s, {_clock_text((total - done) / rate)} left"
        else:
            timing = "starting"
        self._write(
            f"{self.label} [{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} {percent}% {timing}",
            now,
            final,
        )

    def count(self, stage: str, done: int) -> None:
        """Progress without a known total: the count and the rate of ``stage``."""
        now = self.clock()
        if not self._due(now, False):
            return
        elapsed = now - self.started
        rate = done / elapsed if elapsed > 0 else 0.0
        self._write(f"{self.label}: {stage} {done:,} ({rate:,.0f}/s, {_clock_text(elapsed)})", now, False)

    def finish(self) -> None:
        """End a ``count`` line (``__call__`` ends its own line at the total)."""
        if self.show and self._drawn_at is not None and not self._finished:
            self.stream.write("\n")
            self.stream.flush()
            self._finished = True

    def _write(self, line: str, now: float, final: bool) -> None:
        self.stream.write(f"\r{line}\x1b[K" + ("\n" if final else ""))
        self.stream.flush()
        self._drawn_at = now
        self._finished = final


# Re-indexing fewer memories than this is quick enough to do silently.
PROGRESS_MIN_MEMORIES = 2_000


class ReindexProgress(ProgressBar):
    """The bar of a long keyword re-index (a migration, or MEMWARDEN_LANGUAGES changed): on
    stderr (stdout may carry MCP messages), with rate and time left, quiet when stderr is not a
    terminal and for fewer than PROGRESS_MIN_MEMORIES memories."""

    def __init__(self, stream: TextIO | None = None, *, show: bool | None = None) -> None:
        super().__init__(
            "memwarden: re-indexing memories for search",
            stream=stream,
            show=show,
            min_total=PROGRESS_MIN_MEMORIES,
        )
