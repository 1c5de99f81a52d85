"""keyword_search ranks inside the index first; filters that remove most of the best matches
(another tenant, another project, tags, expiry) must still return the right memories."""

from __future__ import annotations

from datetime import timedelta

from memwarden.models import Caller
from memwarden.service import MemoryService


def test_a_small_tenant_finds_its_memories_under_a_large_one(service: MemoryService) -> None:
    big = Caller(actor="a", tenant="big")
    small = Caller(actor="b", tenant="small")
    for i in range(400):
        service.memories.add(f"deploy note {i} about the deploy pipeline", caller=big)
    mine = service.memories.add("our deploy happens on fridays", caller=small).memory
    hits = service.searcher.search("deploy", caller=small).hits
    assert [h.memory.id for h in hits] == [mine.id]
    assert len(service.searcher.search("deploy", caller=big, limit=100).hits) == 100


def test_project_scope_and_tags_filter_inside_a_crowded_index(service: MemoryService) -> None:
    for i in range(300):
        service.memories.add(f"backup job {i} runs nightly", project="ops")
    other = service.memories.add("backup of the wiki runs weekly", project="wiki").memory
    tagged = service.memories.add("backup keys are rotated", project="ops", tags=["security"]).memory
    assert [h.memory.id for h in service.searcher.search("backup", project="wiki").hits] == [other.id]
    assert [h.memory.id for h in service.searcher.search("backup", tags=["security"]).hits] == [tagged.id]
    assert service.searcher.search("backup", project="nowhere").hits == []


def test_expired_memories_crowding_the_top_do_not_hide_live_ones(service: MemoryService) -> None:
    now = service.clock()
    for i in range(120):
        service.memories.add(f"token rotation reminder {i}", ttl_hours=1)
    live = service.memories.add("token rotation policy is quarterly, rotation rotation").memory
    service.clock = lambda: now + timedelta(hours=2)
    assert [h.memory.id for h in service.searcher.search("token rotation").hits] == [live.id]


def test_moving_a_memory_to_another_project_moves_it_in_the_index(service: MemoryService) -> None:
    memory = service.memories.add("grafana alert thresholds", project="ops").memory
    service.memories.update(memory.id, project="monitoring")
    assert service.searcher.search("grafana", project="ops").hits == []
    assert [h.memory.id for h in service.searcher.search("grafana", project="monitoring").hits] == [memory.id]
