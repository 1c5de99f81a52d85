"""Fit ranked hits into a token budget (``max_tokens`` on memory_search).

The best hits are kept in rank order while their content fits; a hit too large for what is left
is skipped (it is counted in ``omitted``) and smaller, lower-ranked hits may still fill the
budget. A hit's cost is its content plus its title, counted with ``text.tokens.estimate_tokens``.
"""

from __future__ import annotations

from collections.abc import Sequence

from memwarden.models import Hit
from memwarden.text.tokens import estimate_tokens


def hit_tokens(hit: Hit) -> int:
    memory = hit.memory
    return estimate_tokens(memory.content) + (estimate_tokens(memory.title) if memory.title else 0)


def fit_to_budget(hits: Sequence[Hit], max_tokens: int) -> tuple[list[Hit], int, int]:
    """``(kept hits, tokens used, hits omitted)`` for a budget of ``max_tokens``."""
    kept: list[Hit] = []
    used = 0
    for hit in hits:
        cost = hit_tokens(hit)
        if used + cost <= max_tokens:
            kept.append(hit)
            used += cost
    return kept, used, len(hits) - len(kept)
