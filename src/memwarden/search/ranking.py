"""Score candidates into hits; every hit says why it scored what it did."""

from __future__ import annotations

from collections.abc import Sequence

from memwarden.models import Candidate, Hit


def rank_keyword(candidates: Sequence[Candidate], limit: int) -> list[Hit]:
    """Order by the keyword index's relevance (bm25, higher is better)."""
    hits = [Hit(c.memory, c.score, {"relevance": round(c.score, 6)}) for c in candidates]
    hits.sort(key=lambda h: h.score, reverse=True)
    return hits[:limit]
