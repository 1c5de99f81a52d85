"""``Searcher.recall``: the prompt hook's search over the session's project and ``default``.

One search for the caller: the same hits as searching each project and merging by score, one
audit row naming every project, and a use counted only for the hits returned.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from audit_rows import audit_rows

from memwarden.errors import InvalidInput
from memwarden.search.recall import recall
from memwarden.service import MemoryService

pytestmark = pytest.mark.keyword_only

QUERY = "Draft an email to the Acme client, in British English"


def fill(service: MemoryService) -> dict[str, str]:
    add = service.memories.add
    return {
        "email": add("The Acme client prefers email over phone calls", project="acme").memory.id,
        "invoice": add(
            "Acme invoices go to the client's billing address in English", project="acme"
        ).memory.id,
        "english": add("The user wants answers in British English", project="default").memory.id,
        "client": add("Every client email gets a reply within a day", project="default").memory.id,
        "globex": add("The Globex client prefers phone calls in English", project="globex").memory.id,
    }


def test_recall_returns_what_searching_each_project_and_merging_returned(service: MemoryService) -> None:
    fill(service)
    merged: dict[str, float] = {}
    for project in ("acme", "default"):
        for hit in service.searcher.find(
            service.default_caller,
            QUERY,
            project=project,
            tags=(),
            limit=3,
            include_expired=False,
            vector=True,
            now=service.searcher.clock(),
        ).hits:
            merged[hit.memory.id] = max(hit.score, merged.get(hit.memory.id, 0.0))
    expected = sorted(merged, key=lambda mid: merged[mid], reverse=True)[:3]
    result = service.searcher.recall(QUERY, projects=["acme", "default"], limit=3)
    assert [h.memory.id for h in result.hits] == expected
    assert {h.memory.project for h in result.hits} <= {"acme", "default"}


def test_one_recall_is_one_audit_row_naming_every_project(service: MemoryService, db_path: Path) -> None:
    fill(service)
    before = len(audit_rows(db_path))
    hits = recall(service, QUERY, ["acme", "default"], 5)
    rows = audit_rows(db_path)[before:]
    assert len(rows) == 1
    row = rows[0]
    assert (row["action"], row["outcome"], row["project"]) == ("search", "ok", "acme")
    assert row["detail"]["projects"] == ["acme", "default"]
    assert row["memory_ids"] == [h["id"] for h in hits]


def test_only_the_hits_returned_count_as_used(service: MemoryService) -> None:
    ids = fill(service)
    result = service.searcher.recall(QUERY, projects=["acme", "default"], limit=1)
    (top,) = result.hits
    counts = {m.id: m.hit_count for m in service.memories.get(list(ids.values()))[0]}
    assert counts.pop(top.memory.id) == 1
    assert set(counts.values()) == {0}


def test_every_project_and_a_repeated_project_are_one_search(service: MemoryService, db_path: Path) -> None:
    ids = fill(service)
    everywhere = service.searcher.recall("client phone calls", projects=[None, "acme"], limit=10)
    assert ids["globex"] in {h.memory.id for h in everywhere.hits}
    twice = service.searcher.recall("client phone calls", projects=["acme", "acme"], limit=10)
    assert {h.memory.project for h in twice.hits} == {"acme"}
    assert audit_rows(db_path)[-1]["detail"].get("projects") == ["acme", "acme"]
    rows = audit_rows(db_path)
    assert rows[-2]["project"] is None  # every project was searched


@pytest.mark.parametrize(
    ("projects", "message"),
    [
        ([], "at least one project"),
        ("acme", "must be a list"),
        (7, "must be a list"),
        ([""], "project"),
        (["acme", 7], "project"),
        (["x" * 500], "project"),
    ],
)
def test_bad_projects_are_refused_and_nothing_changes(
    service: MemoryService, db_path: Path, projects: list[Any], message: str
) -> None:
    ids = fill(service)
    with pytest.raises(InvalidInput, match=message):
        service.searcher.recall(QUERY, projects=projects, limit=5)
    assert audit_rows(db_path)[-1]["outcome"] == "invalid_input"
    assert {m.hit_count for m in service.memories.get(list(ids.values()))[0]} == {0}


def test_a_project_holding_a_secret_is_refused_and_kept_out_of_the_audit_row(
    service: MemoryService, db_path: Path
) -> None:
    fill(service)
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    with pytest.raises(InvalidInput, match="redaction rule"):
        service.searcher.recall(QUERY, projects=["acme", secret], limit=5)
    row = audit_rows(db_path)[-1]
    assert row["outcome"] == "invalid_input"
    assert secret not in str(row)
