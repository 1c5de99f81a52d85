"""One finding of ``memwarden doctor``: what was checked, how it went, and what to do.

Its own module so that ``doctor`` (the reading checks and the command) and ``doctor_checks``
(the checks that try what a setting points at) share it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # ok | warn | fail
    detail: str
    fix: str = ""
