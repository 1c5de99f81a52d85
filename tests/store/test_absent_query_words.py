"""Words no memory holds do not crowd out the rare words that pick the candidates."""

from __future__ import annotations

from memwarden.service import MemoryService
from memwarden.store.sqlite.keyword_methods import MAX_RARE_WORDS


def test_a_long_query_of_unknown_words_still_finds_by_its_one_known_word(service: MemoryService) -> None:
    for i in range(5):
        service.memories.add(f"Weekly planning notes, round {i}.")
    quokka = service.memories.add("The office mascot is a quokka named Bertie.").memory
    unknown = [f"zq{chr(97 + i)}{chr(97 + i)}vex" for i in range(MAX_RARE_WORDS + 2)]
    hits = service.searcher.search(" ".join([*unknown, "quokka"])).hits
    assert [h.memory.id for h in hits] == [quokka.id]


def test_a_query_of_unknown_words_only_finds_nothing(service: MemoryService) -> None:
    service.memories.add("The office mascot is a quokka named Bertie.")
    assert service.searcher.search("zqaavex zqbbvex zqccvex").hits == []
