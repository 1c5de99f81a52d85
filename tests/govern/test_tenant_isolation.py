"""Counts and checks answer for the caller's tenant only."""

from __future__ import annotations

from memwarden.app import build_service
from memwarden.config import Settings, load_settings
from memwarden.models import Caller


def test_health_counts_only_the_callers_memories(settings: Settings) -> None:
    service = build_service(load_settings(**{**settings.model_dump(), "embedder": "none"}), ops=True)
    try:
        alice, bob = Caller("alice", "acme"), Caller("bob", "initech")
        service.memories.add("Acme merger codename is Bluebird", caller=alice)
        service.memories.add("Acme board meets on Fridays", caller=alice)
        assert service.operations.health(repair=False, caller=bob)["checks"]["vectors"]["memories"] == 0
        assert service.operations.health(repair=False, caller=alice)["checks"]["vectors"]["memories"] == 2
        assert service.memories.stats(caller=bob)["memories"] == 0
        review = service.operations.review(caller=bob)
        assert review["reviewed"] == 0 and review["never_retrieved"] == []
    finally:
        service.close()
