"""Prefix matching where it helps: a 4+ letter term that finds few memories exactly also
matches as a prefix; one that finds plenty does not, and exact matches rank first."""

from __future__ import annotations

from memwarden.service import MemoryService


def test_a_rare_word_also_finds_longer_words_it_starts(service: MemoryService) -> None:
    zone = service.memories.add("The user's timezone is Europe/Berlin.").memory
    assert [h.memory.id for h in service.searcher.search("time zone").hits] == [zone.id]


def test_exact_matches_rank_above_prefix_matches(service: MemoryService) -> None:
    longer = service.memories.add("Configuration lives in the ops repository.").memory
    exact = service.memories.add("Config changes need a review.").memory
    assert [h.memory.id for h in service.searcher.search("config").hits] == [exact.id, longer.id]


def test_a_common_word_is_not_widened(service: MemoryService) -> None:
    for i in range(25):
        service.memories.add(f"Lunch time note {i}.")
    timeout = service.memories.add("The request timeout is thirty seconds.").memory
    ids = [h.memory.id for h in service.searcher.search("time", limit=100).hits]
    assert len(ids) == 25 and timeout.id not in ids
    assert [h.memory.id for h in service.searcher.search("timeou").hits] == [timeout.id]


def test_short_terms_never_match_as_prefixes(service: MemoryService) -> None:
    service.memories.add("Our API gateway is Kong.")
    assert service.searcher.search("ap").hits == []


def test_a_single_cjk_character_finds_the_bigrams_it_starts(service: MemoryService) -> None:
    food = service.memories.add("猫粮放在厨房的柜子里").memory
    assert [h.memory.id for h in service.searcher.search("猫").hits] == [food.id]
