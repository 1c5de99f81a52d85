"""How often a token may be guessed: the dashboard's login form and the HTTP API's bearer tokens.

A wrong token costs the guesser one request and nothing else, and the answer comes quickly, so
a script can try tokens without end (and a user-chosen MEMWARDEN_HTTP_TOKEN may be short).
After ``LIMIT`` failed tries within ``WINDOW`` from one local user (from one client address
where the user cannot be told), further tokens from them are refused until the oldest failure
leaves the window, the right token included: the answer then says nothing about it. Keyed per
user so that another local account guessing does not lock out the server's owner.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from datetime import datetime, timedelta

from memwarden.models import utcnow

LIMIT = 10
WINDOW = timedelta(minutes=1)
MAX_GUESSERS = 1000  # distinct users or addresses tracked; the quietest is forgotten first


class FailedLogins:
    """Failed token tries per guesser (thread-safe)."""

    def __init__(
        self, clock: Callable[[], datetime] = utcnow, *, limit: int = LIMIT, window: timedelta = WINDOW
    ) -> None:
        self.clock = clock
        self.limit = limit
        self.window = window
        self._failures: dict[str, deque[datetime]] = {}
        self._lock = threading.Lock()

    def _recent(self, who: str, now: datetime) -> deque[datetime]:
        times = self._failures.get(who, deque())
        while times and now - times[0] >= self.window:
            times.popleft()
        return times

    def any(self) -> bool:
        """Whether any failure is remembered (else no guesser need be told apart)."""
        return bool(self._failures)

    def wait_s(self, who: str) -> float:
        """Seconds before ``who`` may try a token again; 0 when they may now."""
        now = self.clock()
        with self._lock:
            times = self._recent(who, now)
            if len(times) < self.limit:
                return 0.0
            return max((times[0] + self.window - now).total_seconds(), 0.0)

    def failed(self, who: str) -> None:
        now = self.clock()
        with self._lock:
            times = self._recent(who, now)
            times.append(now)
            self._failures.pop(who, None)
            self._failures[who] = times  # most recent last: the first key is the quietest
            while len(self._failures) > MAX_GUESSERS:
                self._failures.pop(next(iter(self._failures)))
