"""A wait for a service's background embedder, for the tests of the semantic screening heads (the
``semantic_service`` fixture in tests/conftest.py builds such a service)."""

from __future__ import annotations

import time

from memwarden.service import MemoryService


def embedded(svc: MemoryService) -> None:
    """Wait until the background embedder has stored a vector for every memory."""
    deadline = time.monotonic() + 60
    while svc.searcher.vector_status()["missing"]:
        assert time.monotonic() < deadline, "the background embedder never caught up"
        time.sleep(0.05)
    time.sleep(0.2)  # a semantic flag is written right after the vector, in the same drain step
