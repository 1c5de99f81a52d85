"""Prefix matching where it helps: a 4+ letter term that finds few memories exactly also
matches as a prefix; one that finds plenty does not, and exact matches rank first."""

from __future__ import annotations

from memwarden.service import MemoryService


def test_a_rare_word_also_finds_longer_words_it_starts(service: MemoryService) -> None:
    zone = service.add("The user's timezone is Europe/Berlin.").memory
    assert [h.memory.id for h in service.search("time zone").hits] == [zone.id]


def test_exact_matches_rank_above_prefix_matches(service: MemoryService) -> None:
    longer = service.add("Configuration lives in the ops repository.").memory
    exact = service.add("Config changes need a review.").memory
    assert [h.memory.id for h in service.search("config").hits] == [exact.id, longer.id]


def test_a_common_word_is_not_widened(service: MemoryService) -> None:
    for i in range(25):
        service.add(f"Lunch time note {i}.")
    timeout = service.add("The request timeout is thirty seconds.").memory
    ids = [h.memory.id for h in service.search("time", limit=100).hits]
    assert len(ids) == 25 and timeout.id not in ids
    assert [h.memory.id for h in service.search("timeou").hits] == [timeout.id]


def test_short_terms_never_match_as_prefixes(service: MemoryService) -> None:
    service.add("Our API gateway is Kong.")
    assert service.search("ap").hits == []


def test_a_single_cjk_character_finds_the_bigrams_it_starts(service: MemoryService) -> None:
    food = service.add("猫粮放在厨房的柜子里").memory
    assert [h.memory.id for h in service.search("猫").hits] == [food.id]
