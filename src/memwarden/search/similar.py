"""Near-duplicate detection on add: memories in the same project that say nearly the same thing.

The new memory's content is analyzed like a query, the keyword index offers the closest
memories of the same tenant and project, and each is compared on its analyzed content terms:
Jaccard similarity (shared terms / all terms) of at least ``SIMILAR_THRESHOLD`` makes it
``similar``. The write is never blocked: the caller sees ids and previews and decides whether
to update one of them instead. Exact duplicates are handled before this (``duplicate=true``).
"""

from __future__ import annotations

from datetime import datetime

from memwarden.models import Memory, Similar
from memwarden.store.base import Store
from memwarden.text.analyzer import Analyzer

SIMILAR_THRESHOLD = 0.6
MAX_SIMILAR = 5
PREVIEW_CHARS = 80
# How many keyword candidates are compared (the closest ones come first).
CANDIDATES = 20


def preview(text: str, chars: int = PREVIEW_CHARS) -> str:
    """The first ``chars`` characters on one line, with an ellipsis when cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= chars else flat[: chars - 1].rstrip() + "…"


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def find_similar(store: Store, analyzer: Analyzer, memory: Memory, now: datetime) -> list[Similar]:
    """Live memories of ``memory``'s tenant and project whose content nearly matches it."""
    query = analyzer.query(memory.content)
    if not query.terms:
        return []
    mine = set(analyzer.terms(memory.content))
    candidates = store.keyword_search(
        memory.tenant, query, project=memory.project, tags=(), include_expired=False, now=now, limit=CANDIDATES
    )
    found: list[Similar] = []
    for candidate in candidates:
        if candidate.memory.id == memory.id:
            continue
        theirs = set(candidate.index.body.split()) if candidate.index else set(analyzer.terms(candidate.memory.content))
        score = jaccard(mine, theirs)
        if score >= SIMILAR_THRESHOLD:
            found.append(Similar(candidate.memory.id, preview(candidate.memory.content), score))
    found.sort(key=lambda s: (-s.score, s.id))
    return found[:MAX_SIMILAR]
