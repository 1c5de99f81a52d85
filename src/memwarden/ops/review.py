"""Review: proposals for cleaning up memories. It proposes; it never deletes or changes anything.

- ``duplicates``: near-duplicate pairs in the same project, by the one definition ``memory_add``
  also uses for its ``similar`` note (search/similar.py: Jaccard similarity of content terms
  >= ``NEAR_DUPLICATE_JACCARD``); exact duplicates cannot exist: the store refuses them. The
  newer one is proposed for deletion, or for merging into the older one.
- ``never_retrieved``: never returned by a search, and older than ``NEVER_RETRIEVED_AFTER_DAYS``.
- ``stale``: retrieved once, but not in the last ``stale_days`` days.
- ``expired``: past their TTL; purged for good after the grace period (MEMWARDEN_PURGE_GRACE_DAYS).
Pinned memories are never proposed as never-retrieved or stale.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from memwarden.errors import InvalidInput
from memwarden.models import Caller, Memory, format_time
from memwarden.search.similar import NEAR_DUPLICATE_JACCARD, duplicate_terms, near_duplicate_score
from memwarden.text.analyzer import Analyzer

DUPLICATE_JACCARD = NEAR_DUPLICATE_JACCARD
THRESHOLD = Fraction(str(DUPLICATE_JACCARD))  # exact, for the prefix and size bounds
NEVER_RETRIEVED_AFTER_DAYS = 7
MAX_REVIEWED = 50_000
PREVIEW_CHARS = 120


def _preview(memory: Memory) -> str:
    flat = " ".join(memory.content.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


def _flag_reason(flag: str) -> str:
    """The one-line reason screening gives for ``flag`` (the flag itself for one it does not know)."""
    from memwarden import screening

    reasons: dict[str, str] = getattr(screening, "FLAG_REASONS", {})
    return reasons.get(flag, flag)


def _item(memory: Memory, **extra: Any) -> dict[str, Any]:
    return {"id": memory.id, "project": memory.project, "preview": _preview(memory), **extra}


def likely_duplicates(
    analyzer: Analyzer, memories: list[Memory], known_terms: Mapping[str, frozenset[str]] | None = None
) -> list[dict[str, Any]]:
    """Pairs of near-duplicate memories in one project (``similar.near_duplicate_score``).

    ``known_terms`` (memory id -> its ``similar.duplicate_terms``, the analyzed body as the
    keyword index holds it) spares re-analyzing those memories; the others are analyzed here."""
    known = known_terms or {}
    terms = [known.get(m.id) or duplicate_terms(analyzer, m) for m in memories]
    # Prefix filtering (exact): with every term set sorted rarest first, two sets whose Jaccard
    # similarity reaches DUPLICATE_JACCARD share a term among the first
    # ``len - ceil(DUPLICATE_JACCARD * len) + 1`` of each, so only those terms are indexed and
    # looked up, and pairs too different in size are skipped before scoring.
    frequency: dict[str, int] = defaultdict(int)
    for words in terms:
        for word in words:
            frequency[word] += 1
    postings: dict[tuple[str, str], list[int]] = defaultdict(list)
    prefixes: list[list[str]] = []
    for i, (memory, words) in enumerate(zip(memories, terms, strict=True)):
        ordered = sorted(words, key=lambda w: (frequency[w], w))
        prefix = ordered[: len(ordered) - math.ceil(THRESHOLD * len(ordered)) + 1]
        prefixes.append(prefix)
        for word in prefix:
            postings[(memory.project, word)].append(i)
    pairs: list[dict[str, Any]] = []
    for i, words in enumerate(terms):
        if not words:
            continue
        candidates: set[int] = set()
        for word in prefixes[i]:
            candidates.update(
                j
                for j in postings[(memories[i].project, word)]
                if j > i and THRESHOLD * len(words) <= len(terms[j]) <= len(words) / THRESHOLD
            )
        for j in candidates:
            score = near_duplicate_score(words, terms[j])
            if score is not None:
                older, newer = sorted((memories[i], memories[j]), key=lambda m: (m.created_at, m.id))
                pairs.append(
                    {
                        "keep": _item(older),
                        "candidate": _item(newer),
                        "similarity": round(score, 3),
                        "proposal": f"delete {newer.id}, or merge what it adds into {older.id}",
                    }
                )
    pairs.sort(key=lambda p: p["similarity"], reverse=True)
    return pairs


def review_memories(
    stored: Iterable[Memory],
    analyzer: Analyzer,
    who: Caller,
    *,
    project: str | None,
    stale_days: object,
    limit: object,
    now: datetime,
    purge_grace: timedelta,
    known_terms: Mapping[str, frozenset[str]] | None = None,
) -> dict[str, Any]:
    """Proposals for the caller's live memories ``stored`` (one tenant, optionally one project);
    ``known_terms`` as for ``likely_duplicates``."""
    if isinstance(stale_days, bool) or not isinstance(stale_days, int) or not 1 <= stale_days <= 36_500:
        raise InvalidInput("stale_days must be a whole number of days from 1 to 36500", field="stale_days")
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
        raise InvalidInput("limit must be a whole number from 1 to 1000", field="limit")
    stale_cutoff = now - timedelta(days=stale_days)
    young = now - timedelta(days=NEVER_RETRIEVED_AFTER_DAYS)
    memories: list[Memory] = []
    never: list[dict[str, Any]] = []
    stale: list[dict[str, Any]] = []
    expired: list[dict[str, Any]] = []
    flagged: list[dict[str, Any]] = []
    for memory in stored:
        if memory.is_expired(now):
            assert memory.expires_at is not None
            expired.append(
                _item(
                    memory,
                    expired_at=format_time(memory.expires_at),
                    purge_after=format_time(memory.expires_at + purge_grace),
                    proposal="nothing to do: it is purged after the grace period",
                )
            )
            continue
        if len(memories) < MAX_REVIEWED:
            memories.append(memory)
        if memory.injection_flags:
            flagged.append(
                _item(
                    memory,
                    injection_flags=list(memory.injection_flags),
                    reasons=[_flag_reason(flag) for flag in memory.injection_flags],
                    source=memory.source,
                    actor=memory.actor,
                    title=memory.title,
                    content=memory.content,
                    proposal="it reads like instructions to a model and the hooks leave it out: "
                    "delete it, rewrite it as a plain fact, or clear its flag if it is a standing "
                    "instruction of yours",
                )
            )
        if memory.pinned:
            continue
        if memory.hit_count == 0 and memory.created_at <= young:
            never.append(
                _item(
                    memory,
                    created_at=format_time(memory.created_at),
                    proposal="delete it if it is no longer true or useful",
                )
            )
        elif memory.last_used_at is not None and memory.last_used_at <= stale_cutoff:
            stale.append(
                _item(
                    memory,
                    last_used_at=format_time(memory.last_used_at),
                    hit_count=memory.hit_count,
                    proposal="check it is still true; update or delete it",
                )
            )
    duplicates = likely_duplicates(analyzer, memories, known_terms)
    never.sort(key=lambda item: item["created_at"])
    stale.sort(key=lambda item: item["last_used_at"])
    return {
        "tenant": who.tenant,
        "project": project,
        "stale_days": stale_days,
        "counts": {
            "duplicates": len(duplicates),
            "never_retrieved": len(never),
            "stale": len(stale),
            "expired": len(expired),
            "flagged": len(flagged),
        },
        "duplicates": duplicates[:limit],
        "never_retrieved": never[:limit],
        "stale": stale[:limit],
        "expired": expired[:limit],
        "flagged": flagged[:limit],
        # Where the flagged memories came from (Memory.source): the screening report's grouping.
        "flagged_by_source": dict(sorted(Counter(item["source"] for item in flagged).items())),
        "reviewed": len(memories) + len(expired),
        "note": "proposals only: nothing was changed or deleted",
    }
