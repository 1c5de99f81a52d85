"""Near-duplicate detection on add: memories in the same project that say nearly the same thing.

The new memory's content is analyzed like a query, the keyword index offers the closest
memories of the same tenant and project, and each is compared on its analyzed content terms:
Jaccard similarity (shared terms / all terms) of at least ``SIMILAR_THRESHOLD`` makes it
``similar``. The write is never blocked: the caller sees ids and previews and decides whether
to update one of them instead. Exact duplicates are handled before this (``duplicate=true``).
"""

from __future__ import annotations

from datetime import datetime

from memwarden.models import KeywordQuery, Memory
from memwarden.store.base import Store
from memwarden.text.analyzer import Analyzer
from memwarden.write_results import Similar

SIMILAR_THRESHOLD = 0.6
MAX_SIMILAR = 5
PREVIEW_CHARS = 80
# How many keyword candidates are compared (the closest ones come first).
CANDIDATES = 20
# The candidates are found with this many of the memory's most specific (longest) words: a
# near-duplicate shares most of the memory's words, so it very likely holds one of these, while
# a query of every word of a long memory costs the keyword index a probe per word on every add
# (bench/core.py measures add with this setting). The trade-off: a paraphrase that changes both of these words is not reported as similar.
QUERY_WORDS = 2


def preview(text: str, chars: int = PREVIEW_CHARS) -> str:
    """The first ``chars`` characters on one line, with an ellipsis when cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= chars else flat[: chars - 1].rstrip() + "…"


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def specific_words(query: KeywordQuery, count: int = QUERY_WORDS) -> KeywordQuery:
    """``query`` narrowed to its ``count`` longest words (each with its per-language terms)."""
    groups = list(dict.fromkeys(query.groups or tuple((term,) for term in query.terms)))
    if len(groups) <= count:
        return query
    keep = set(sorted(groups, key=lambda group: (-max(len(t) for t in group), group))[:count])
    chosen = tuple(group for group in groups if group in keep)
    return query._replace(terms=tuple(dict.fromkeys(t for group in chosen for t in group)), groups=chosen)


def find_similar(
    store: Store, analyzer: Analyzer, memory: Memory, now: datetime, *, indexed_body: str | None = None
) -> list[Similar]:
    """Live memories of ``memory``'s tenant and project whose content nearly matches it.

    ``indexed_body`` is the memory's analyzed content when the caller has it already (saves
    analyzing the content once more on every add).
    """
    query = specific_words(analyzer.query(memory.content))
    if not query.terms:
        return []
    mine = set(indexed_body.split()) if indexed_body is not None else set(analyzer.terms(memory.content))
    candidates = store.near_duplicate_candidates(
        memory.tenant, query, project=memory.project, now=now, limit=CANDIDATES
    )
    found: list[Similar] = []
    for memory_id, content, body in candidates:
        if memory_id == memory.id:
            continue
        theirs = set(body.split()) if body is not None else set(analyzer.terms(content))
        score = jaccard(mine, theirs)
        if score >= SIMILAR_THRESHOLD:
            found.append(Similar(memory_id, preview(content), score))
    found.sort(key=lambda s: (-s.score, s.id))
    return found[:MAX_SIMILAR]
