"""Near-duplicate warnings on add: reported as `similar`, never blocking the write."""

from __future__ import annotations

import anyio

from memwarden.service import MemoryService
from tests.mcp_helpers import call_ok, mcp_client


def test_a_near_duplicate_in_the_same_project_is_reported_and_still_stored(service: MemoryService) -> None:
    first = service.memories.add(
        "Production deploys happen on Tuesdays after the stand-up.", project="ops"
    ).memory
    second = service.memories.add("Production deploys happen on Tuesdays after stand-up.", project="ops")
    assert second.duplicate is False
    assert [s.id for s in second.similar] == [first.id]
    assert second.similar[0].preview.startswith("Production deploys happen")
    assert 0.6 <= second.similar[0].score <= 1.0
    assert len(service.memories.list(project="ops")) == 2


def test_other_projects_unrelated_memories_and_exact_duplicates_are_not_similar(
    service: MemoryService,
) -> None:
    service.memories.add("Production deploys happen on Tuesdays after the stand-up.", project="ops")
    elsewhere = service.memories.add("Production deploys happen on Tuesdays after stand-up.", project="web")
    assert elsewhere.similar == []
    unrelated = service.memories.add("Production database backups run nightly at two.", project="ops")
    assert unrelated.similar == []
    exact = service.memories.add("Production deploys happen on Tuesdays after the stand-up.", project="ops")
    assert exact.duplicate is True and exact.similar == []


def test_similar_works_for_turkish_inflections_and_chinese(service: MemoryService) -> None:
    tr = service.memories.add("Sunucu yedekleri her gece alınıyor.", project="tr").memory
    assert [
        s.id for s in service.memories.add("Sunucunun yedekleri her gece alınır.", project="tr").similar
    ] == [tr.id]
    zh = service.memories.add("订单数据库每天凌晨两点半自动备份", project="zh").memory
    assert [s.id for s in service.memories.add("订单数据库每天凌晨两点自动备份", project="zh").similar] == [
        zh.id
    ]


def test_long_previews_are_cut_on_one_line(service: MemoryService) -> None:
    text = "The incident runbook says:\nfirst page the on-call, then " + "check the dashboards and logs " * 8
    service.memories.add(text, project="p")
    similar = service.memories.add(text + " Also post in #incidents.", project="p").similar
    assert len(similar) == 1 and "\n" not in similar[0].preview and similar[0].preview.endswith("…")
    assert len(similar[0].preview) <= 80


def test_memory_add_tool_returns_similar(service: MemoryService) -> None:
    async def run() -> None:
        async with mcp_client(service) as client:
            first = await call_ok(
                client, "memory_add", {"content": "The VPN needs disk encryption on laptops."}
            )
            second = await call_ok(
                client, "memory_add", {"content": "The VPN needs disk encryption on all laptops."}
            )
            assert [s["id"] for s in second["similar"]] == [first["id"]]

    anyio.run(run)


def test_a_paraphrase_that_keeps_the_specific_words_is_found(service) -> None:  # type: ignore[no-untyped-def]
    first = service.memories.add(
        "Production backups are encrypted with the quarterly rotated KMS key", project="ops"
    )
    for i in range(30):  # unrelated memories sharing common words
        service.memories.add(
            f"Production note {i}: the team reviews dashboards with the key people", project="ops"
        )
    again = service.memories.add(
        "Production backups are encrypted with a quarterly rotated KMS key now", project="ops"
    )
    assert first.memory.id in [s.id for s in again.similar]


def test_deleted_expired_and_other_tenants_memories_are_not_similar(service: MemoryService) -> None:
    from datetime import timedelta

    from memwarden.models import Caller, utcnow

    now = [utcnow()]
    service.clock = lambda: now[0]
    text = "The staging cluster rotates its certificates every Sunday night."
    gone = service.memories.add(text, project="ops").memory
    service.memories.delete(gone.id)
    service.memories.add(text.replace("Sunday", "Sunday at midnight"), project="ops", ttl_hours=1)
    now[0] += timedelta(hours=2)
    other = Caller(actor="bob", tenant="globex")
    service.memories.add(text.replace("night", "evening"), project="ops", caller=other)
    again = service.memories.add(text.replace("every", "each"), project="ops")
    assert again.similar == []


def test_among_many_memories_sharing_the_words_the_near_duplicate_is_found(service: MemoryService) -> None:
    """The check ranks the newest matches of the project's two most specific words: a near
    duplicate among hundreds of memories holding those words is still offered."""
    target = service.memories.add(
        "Kubernetes certificates for the payments cluster expire on the first Monday of March.",
        project="ops",
    ).memory
    for i in range(300):
        service.memories.add(
            f"Kubernetes certificates note {i}: checked by on-call engineer {i}.", project="ops"
        )
    again = service.memories.add(
        "Kubernetes certificates for the payments cluster expire on the first Monday in March.", project="ops"
    )
    assert [s.id for s in again.similar] == [target.id]
