"""``likely_duplicates`` finds exactly the pairs an all-pairs Jaccard comparison finds (its prefix
and size filters only skip pairs that cannot reach the threshold), and reuses known terms."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from itertools import combinations

import anyio

from memwarden.models import Memory
from memwarden.ops.review import DUPLICATE_JACCARD, likely_duplicates
from memwarden.search.similar import NEAR_DUPLICATE_JACCARD, duplicate_terms, near_duplicate_score
from memwarden.service import MemoryService
from memwarden.text.analyzer import Analyzer
from tests.mcp_helpers import call_ok, mcp_client

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def _memory(i: int, project: str, content: str) -> Memory:
    return Memory(
        id=f"01ARZ3NDEKTSV4RRFFQ69G{i:04d}",
        tenant="t",
        project=project,
        kind="fact",
        title="",
        tags=(),
        content=content,
        content_hash=str(i),
        pinned=False,
        created_at=T0 + timedelta(minutes=i),
        updated_at=T0 + timedelta(minutes=i),
    )


def test_the_filters_miss_no_pair_an_all_pairs_comparison_finds() -> None:
    rng = random.Random(3)
    vocab = [f"word{n}" for n in range(40)]
    memories = []
    for i in range(300):
        if i % 3 and memories:  # a near copy of an earlier one: drop or add a word or two
            words = set(rng.choice(memories).content.split())
            for _ in range(rng.randrange(3)):
                words.symmetric_difference_update({rng.choice(vocab)})
        else:
            words = set(rng.sample(vocab, rng.randrange(1, 12)))
        memories.append(_memory(i, f"p{i % 2}", " ".join(sorted(words)) or "word0"))
    terms = {m.id: frozenset(m.content.split()) for m in memories}
    expected = set()
    for a, b in combinations(memories, 2):
        if a.project == b.project:
            x, y = terms[a.id], terms[b.id]
            if len(x & y) / len(x | y) >= DUPLICATE_JACCARD:
                expected.add(frozenset((a.id, b.id)))
    found = likely_duplicates(Analyzer(), memories, terms)
    assert len(expected) > 20
    assert {frozenset((p["keep"]["id"], p["candidate"]["id"])) for p in found} == expected


def test_known_terms_are_used_and_the_rest_analyzed() -> None:
    a = _memory(1, "p", "Standup happens at 9:30 every weekday in room Ada")
    b = _memory(2, "p", "Standup happens at 9:30 every weekday in room Ada Lovelace")
    analyzer = Analyzer()
    both = likely_duplicates(analyzer, [a, b], {a.id: frozenset(analyzer.terms(a.content))})
    assert [(p["keep"]["id"], p["candidate"]["id"]) for p in both] == [(a.id, b.id)]
    assert likely_duplicates(analyzer, [a, b], {a.id: frozenset({"unrelated"})}) == []


def test_a_pair_add_reports_as_similar_is_a_duplicate_pair_in_review(service: MemoryService) -> None:
    # Jaccard of these two is between the old review threshold (0.8) and add's (0.6): the two
    # operations once disagreed on exactly such a pair (issue 36).
    first = service.memories.add(
        "The nightly backup of the billing database runs at two and goes to the cold bucket",
        project="ops",
        title="Backups",
    ).memory
    second = service.memories.add(
        "The nightly backup of the billing database runs at three and goes to the archive bucket",
        project="ops",
        title="Where billing backups go",
    )
    assert [s.id for s in second.similar] == [first.id]
    score = second.similar[0].score
    assert NEAR_DUPLICATE_JACCARD <= score < 0.8
    pairs = service.operations.review()["duplicates"]
    assert [(p["keep"]["id"], p["candidate"]["id"]) for p in pairs] == [(first.id, second.memory.id)]
    assert pairs[0]["similarity"] == round(score, 3)


def test_review_and_add_share_the_threshold_and_the_terms() -> None:
    assert DUPLICATE_JACCARD == NEAR_DUPLICATE_JACCARD
    analyzer = Analyzer()
    a = _memory(1, "p", "Deploys go out on Tuesday after the stand-up")
    b = _memory(2, "p", "Deploys go out on Tuesday after the stand-up")
    b = b._replace(title="A title that shares nothing with the first one")
    # Titles are not part of the definition: equal content is a pair whatever the titles say.
    assert duplicate_terms(analyzer, a) == duplicate_terms(analyzer, b)
    assert [p["similarity"] for p in likely_duplicates(analyzer, [a, b])] == [1.0]
    unrelated = _memory(3, "p", "Lunch is served at noon in the small kitchen")
    assert near_duplicate_score(duplicate_terms(analyzer, a), duplicate_terms(analyzer, unrelated)) is None


def test_through_the_tools_a_similar_pair_from_memory_add_is_in_memory_review(service: MemoryService) -> None:
    async def run() -> None:
        async with mcp_client(service) as client:
            first = await call_ok(
                client,
                "memory_add",
                {"content": "Sunucu yedekleri her gece saat ikide soğuk depoya alınıyor", "project": "ops"},
            )
            second = await call_ok(
                client,
                "memory_add",
                {"content": "Sunucu yedekleri her gece saat üçte arşiv depoya alınıyor", "project": "ops"},
            )
            assert [s["id"] for s in second["similar"]] == [first["id"]]
            assert second["similar"][0]["score"] < 0.8  # under the threshold review once had
            review = await call_ok(client, "memory_review", {"scope": "ops"})
            pairs = [(p["keep"]["id"], p["candidate"]["id"]) for p in review["duplicates"]]
            assert pairs == [(first["id"], second["id"])]
            assert review["duplicates"][0]["similarity"] == round(second["similar"][0]["score"], 3)

    anyio.run(run)
