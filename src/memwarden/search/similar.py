"""Near-duplicates: memories in the same project that say nearly the same thing.

This module holds the one definition of a near-duplicate, which ``memory_add``'s ``similar``
note (``find_similar``) and ``memwarden review``'s duplicate pairs (ops/review.py) both use, so a
pair that add reported is a pair review proposes: two memories of one tenant and project whose
**content terms** (``duplicate_terms``: the analyzed body the keyword index holds) have a Jaccard
similarity (shared terms / all terms, ``near_duplicate_score``) of at least
``NEAR_DUPLICATE_JACCARD``. Titles and tags are left out: a memory is a duplicate for what it
says, and the add path compares content only.

On add, the new memory's content is analyzed like a query, the keyword index offers the closest
memories of the same tenant and project, and each is compared by that definition. The write is
never blocked: the caller sees ids and previews and decides whether to update one of them
instead. Exact duplicates are handled before this (``duplicate=true``).
"""

from __future__ import annotations

from datetime import datetime

from memwarden.models import KeywordQuery, Memory
from memwarden.store.base import Store
from memwarden.text.analyzer import Analyzer
from memwarden.text.memory_index import memory_index
from memwarden.write_results import Similar

#: Jaccard similarity of content terms at which two memories are near-duplicates (add and review).
#: Low enough that a reworded copy (a word dropped, one inflection changed) counts; a correction
#: that changes the fact's values ("9:30" to "10:00" in a short memory) usually falls below it.
NEAR_DUPLICATE_JACCARD = 0.6
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


def jaccard(a: set[str] | frozenset[str], b: set[str] | frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def duplicate_terms(analyzer: Analyzer, memory: Memory) -> frozenset[str]:
    """The terms near-duplicates are compared on: the memory's analyzed body, as the keyword
    index holds it (content terms and the dates its time words name)."""
    return frozenset(memory_index(analyzer, memory).body.split())


def near_duplicate_score(a: frozenset[str] | set[str], b: frozenset[str] | set[str]) -> float | None:
    """The similarity of two memories' ``duplicate_terms`` when they are near-duplicates, else None."""
    score = jaccard(a, b)
    return score if score >= NEAR_DUPLICATE_JACCARD else None


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
    mine = frozenset(indexed_body.split()) if indexed_body is not None else duplicate_terms(analyzer, memory)
    candidates = store.near_duplicate_candidates(
        memory.tenant, query, project=memory.project, now=now, limit=CANDIDATES
    )
    found: list[Similar] = []
    for memory_id, content, body in candidates:
        if memory_id == memory.id:
            continue
        # A backend that keeps no analyzed body (PostgreSQL keeps a tsvector) is compared on the
        # content's own terms: the same words, without the resolved dates.
        theirs = frozenset(body.split()) if body is not None else frozenset(analyzer.terms(content))
        score = near_duplicate_score(mine, theirs)
        if score is not None:
            found.append(Similar(memory_id, preview(content), score))
    found.sort(key=lambda s: (-s.score, s.id))
    return found[:MAX_SIMILAR]
