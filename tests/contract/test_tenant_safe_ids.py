"""Tenant-safe ids on every backend: one tenant's import can never take, skip or reveal another
tenant's memory, and answers the same whether an id exists elsewhere or nowhere."""

from __future__ import annotations

import json

from memwarden.models import Caller
from memwarden.ops.exchange import tenant_import_id
from memwarden.service import MemoryService
from memwarden.validation import check_id

ALICE = Caller("alice", "acme")
BOB = Caller("bob", "globex")


def _document(*records: tuple[str, str]) -> str:
    return json.dumps(
        {
            "format": "memwarden.export",
            "version": 1,
            "memories": [
                {
                    "id": mid,
                    "content": content,
                    "created_at": "2026-01-01T00:00:00Z",
                    "updated_at": "2026-01-01T00:00:00Z",
                }
                for mid, content in records
            ],
        }
    )


def test_an_id_held_by_another_tenant_answers_like_one_that_never_existed(service: MemoryService) -> None:
    alices = service.memories.add("alice's plan for the renewal", caller=ALICE).memory
    never = "01JD3Z5X9Q2W8E7R6T5Y4V3K2M"
    taken = service.operations.import_text(_document((alices.id, "bob's first text")), caller=BOB)
    fresh = service.operations.import_text(_document((never, "bob's second text")), caller=BOB)
    assert (
        taken
        == fresh
        == {
            "format": "memwarden",
            "records": 1,
            "inserted": 1,
            "skipped_same_id": 0,
            "skipped_duplicate": 0,
            "redacted": 0,
            "new_ids": 1,
        }
    )
    # Alice's memory is untouched and still hers; bob's copies live under his own ids.
    assert service.memories.get([alices.id], caller=ALICE)[0][0].content == "alice's plan for the renewal"
    assert service.memories.get([alices.id], caller=BOB) == ([], [alices.id])
    bobs = {m.id for m in service.memories.list(caller=BOB)}
    assert bobs == {tenant_import_id("globex", alices.id), tenant_import_id("globex", never)}
    assert all(check_id(i) == i for i in bobs)


def test_a_tenant_reimporting_a_file_finds_its_own_ids_and_others_imports_change_nothing(
    service: MemoryService,
) -> None:
    file = _document(
        ("01JD3Z5X9Q2W8E7R6T5Y4V3K2A", "the shared team note"), ("01JD3Z5X9Q2W8E7R6T5Y4V3K2B", "second")
    )
    first = service.operations.import_text(file, caller=BOB)
    again = service.operations.import_text(file, caller=BOB)
    assert (first["inserted"], again["inserted"], again["skipped_same_id"]) == (2, 0, 2)
    # Bob imported first; Alice importing the same file later loses nothing.
    alices = service.operations.import_text(file, caller=ALICE)
    assert (alices["inserted"], alices["skipped_same_id"]) == (2, 0)
    assert len(service.memories.list(caller=ALICE)) == 2 and len(service.memories.list(caller=BOB)) == 2


def test_the_operator_keeps_file_ids_unless_another_tenant_holds_them(service: MemoryService) -> None:
    alices = service.memories.add("alice's memory", caller=ALICE).memory
    free = "01JD3Z5X9Q2W8E7R6T5Y4V3K2C"
    report = service.operations.import_text(_document((free, "kept id"), (alices.id, "colliding id")))
    assert (report["inserted"], report["new_ids"]) == (2, 1)
    mine = {m.content: m.id for m in service.memories.list()}
    assert mine["kept id"] == free and mine["colliding id"] != alices.id
    assert service.memories.get([alices.id], caller=ALICE)[0][0].content == "alice's memory"
    assert service.operations.import_text(_document((free, "kept id")))["skipped_same_id"] == 1
