"""Redaction markers: what a redacted value becomes, ``[REDACTED:<rule>]``, and what indexes see.

Light on purpose (no rules are compiled): the keyword index and the embedder import it to
replace each marker by one neutral word, so searching for a rule's name ("email", "phone")
never finds a memory by its markers.
"""

from __future__ import annotations

import re

MARKER = re.compile(r"\[REDACTED:[a-z0-9_]{1,40}\]")
# What indexes and vectors see in place of a marker: the same word for every rule.
INDEXED_MARKER = "redacted"


def marker(rule: str) -> str:
    return f"[REDACTED:{rule}]"


def rules_in_markers(text: str) -> list[str]:
    """Rule names of the markers already in ``text``, in order of first appearance."""
    return list(dict.fromkeys(m.group()[10:-1] for m in MARKER.finditer(text)))


def unmarked(text: str) -> str:
    """``text`` with every marker replaced by the neutral word (``INDEXED_MARKER``)."""
    return MARKER.sub(f" {INDEXED_MARKER} ", text) if "[REDACTED:" in text else text


__all__ = ["INDEXED_MARKER", "MARKER", "marker", "rules_in_markers", "unmarked"]
