"""Multilingual analysis, ranking explanations and near-duplicates behave the same on every backend."""

from __future__ import annotations

from memwarden.search.ranking import DEFAULT_WEIGHTS
from memwarden.service import MemoryService


def test_turkish_inflections_and_chinese_bigrams_are_found_on_every_backend(service: MemoryService) -> None:
    tr = service.memories.add("Sunucu yedekleri her gece alınıyor.", project="p").memory
    zh = service.memories.add("订单数据库每天凌晨两点半自动备份", project="p").memory
    assert [h.memory.id for h in service.searcher.search("yedeği", project="p").hits] == [tr.id]
    assert [h.memory.id for h in service.searcher.search("sunucuların", project="p").hits] == [tr.id]
    assert [h.memory.id for h in service.searcher.search("数据库备份", project="p").hits] == [zh.id]


def test_coverage_is_measured_on_every_backend(service: MemoryService) -> None:
    both = service.memories.add("Deploys happen on Tuesdays after the stand-up.", project="p").memory
    service.memories.add("Deploys are announced in the release channel.", project="p")
    hits = service.searcher.search("deploys tuesdays", project="p").hits
    assert hits[0].memory.id == both.id
    assert hits[0].why["coverage"] == DEFAULT_WEIGHTS.coverage
    assert hits[1].why["coverage"] == DEFAULT_WEIGHTS.coverage / 2


def test_near_duplicates_are_reported_on_every_backend(service: MemoryService) -> None:
    first = service.memories.add("The VPN needs full-disk encryption on every laptop.", project="p").memory
    again = service.memories.add("The VPN needs full-disk encryption on each laptop.", project="p")
    assert again.duplicate is False and [s.id for s in again.similar] == [first.id]
