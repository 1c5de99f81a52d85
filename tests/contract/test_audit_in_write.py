"""The audit row of a memory write commits in the write's own transaction, on every backend:
when the row cannot be written, the write does not happen."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from memwarden.audit.auditor import Auditor
from memwarden.errors import StorageError
from memwarden.models import Caller, IndexText, Memory
from memwarden.service import MemoryService
from memwarden.store.audit_logs import open_audit_log
from memwarden.store.base import Store
from tests.contract.test_audit_log import raw

NOW = datetime(2026, 2, 1, tzinfo=UTC)
ALICE = Caller("alice", "acme")


@pytest.fixture
def auditor(store: Store, store_url: str) -> Iterator[Auditor]:
    auditor = Auditor(open_audit_log(store_url), clock=lambda: NOW)
    yield auditor
    auditor.close()


def _memory(mid: str, content: str) -> Memory:
    return Memory(
        id=mid,
        tenant="acme",
        project="p",
        kind="fact",
        title="",
        tags=(),
        content=content,
        content_hash=f"h-{content}",
        pinned=False,
        created_at=NOW,
        updated_at=NOW,
    )


INDEX = IndexText(title="", tags="", body="word")


def _refuse_audit_rows(store_url: str) -> None:
    """Every audit append fails from now on, as on a full disk or a broken audit table."""
    run = raw(store_url)
    if store_url.startswith("postgresql://"):
        run(
            "CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "RAISE EXCEPTION 'audit rows refused for this test'; END $$"
        )
        run(
            "CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION refuse_audit()"
        )
    else:
        run(
            "CREATE TRIGGER refuse_audit BEFORE INSERT ON audit_log "
            "BEGIN SELECT RAISE(ABORT, 'audit rows refused for this test'); END"
        )


def _rows(store_url: str) -> list[dict[str, object]]:
    log = open_audit_log(store_url, readonly=True)
    try:
        return [r.to_dict() for r in log.records()]
    finally:
        log.close()


def _actions(store_url: str) -> list[tuple[str, list[str]]]:
    log = open_audit_log(store_url, readonly=True)
    try:
        return [(r.action, r.to_dict()["memory_ids"]) for r in log.records()]
    finally:
        log.close()


def test_writes_carry_their_audit_row_in_their_own_transaction(
    store: Store, store_url: str, auditor: Auditor
) -> None:
    first = _memory("01JD3Z5X9Q2W8E7R6T5Y4V3K2A", "first")
    store.add(first, INDEX, audit=auditor.for_write("add", ALICE, project="p", redaction_count=2))
    _, duplicate = store.add(
        _memory("01JD3Z5X9Q2W8E7R6T5Y4V3K2B", "first"), INDEX, audit=auditor.for_write("add", ALICE)
    )
    assert duplicate
    store.update(
        _memory(first.id, "first, edited"),
        INDEX,
        expected_version=1,
        audit=auditor.for_write("update", ALICE),
    )
    store.soft_delete("acme", first.id, NOW, audit=auditor.for_write("delete", ALICE))
    store.soft_delete("acme", first.id, NOW, audit=auditor.for_write("delete", ALICE))  # already: no row
    store.add(_memory("01JD3Z5X9Q2W8E7R6T5Y4V3K2C", "not audited here"), INDEX)  # no audit value
    assert _actions(store_url) == [
        ("add", [first.id]),
        ("add", [first.id]),
        ("update", [first.id]),
        ("delete", [first.id]),
    ]
    rows = _rows(store_url)
    assert (rows[0]["project"], rows[0]["redaction_count"], rows[0]["detail"]) == (
        "p",
        2,
        {"duplicate": False},
    )
    assert rows[1]["detail"] == {"duplicate": True} and rows[2]["detail"] == {"version": 2}


def test_a_write_whose_audit_row_fails_is_not_stored(store: Store, store_url: str, auditor: Auditor) -> None:
    kept = _memory("01JD3Z5X9Q2W8E7R6T5Y4V3K2D", "kept")
    store.add(kept, INDEX)
    _refuse_audit_rows(store_url)
    lost = _memory("01JD3Z5X9Q2W8E7R6T5Y4V3K2E", "never stored")
    with pytest.raises(StorageError, match="audit rows refused"):
        store.add(lost, INDEX, audit=auditor.for_write("add", ALICE))
    with pytest.raises(StorageError):
        store.update(
            _memory(kept.id, "kept, edited"),
            INDEX,
            expected_version=1,
            audit=auditor.for_write("update", ALICE),
        )
    with pytest.raises(StorageError):
        store.soft_delete("acme", kept.id, NOW, audit=auditor.for_write("delete", ALICE))
    with pytest.raises(StorageError):
        store.import_memories(  # type: ignore[attr-defined]
            [(_memory("01JD3Z5X9Q2W8E7R6T5Y4V3K2F", "imported"), INDEX)],
            audit=auditor.for_write("import", ALICE),
        )
    with pytest.raises(StorageError):
        store.record_hits("acme", [kept.id], NOW, audit=auditor.for_write("search", ALICE))
    found = store.get_many("acme", [kept.id, lost.id, "01JD3Z5X9Q2W8E7R6T5Y4V3K2F"])
    assert [(m.id, m.content, m.version, m.deleted_at, m.hit_count) for m in found] == [
        (kept.id, "kept", 1, None, 0)
    ]
    assert _actions(store_url) == []


def _refuse_hit_counts(store_url: str) -> None:
    """Every hit-count update fails from now on (the step after the search's row is appended)."""
    run = raw(store_url)
    if store_url.startswith("postgresql://"):
        run(
            "CREATE FUNCTION refuse_hits() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
            "RAISE EXCEPTION 'hit counts refused for this test'; END $$"
        )
        run(
            "CREATE TRIGGER refuse_hits BEFORE UPDATE OF hit_count ON memories "
            "FOR EACH ROW EXECUTE FUNCTION refuse_hits()"
        )
    else:
        run(
            "CREATE TRIGGER refuse_hits BEFORE UPDATE OF hit_count ON memories "
            "BEGIN SELECT RAISE(ABORT, 'hit counts refused for this test'); END"
        )


def test_a_searchs_row_and_its_hit_counts_commit_together(
    store: Store, store_url: str, auditor: Auditor
) -> None:
    a, b = _memory("01JD3Z5X9Q2W8E7R6T5Y4V3K2G", "a"), _memory("01JD3Z5X9Q2W8E7R6T5Y4V3K2H", "b")
    store.add(a, INDEX)
    store.add(b, INDEX)
    store.record_hits("acme", [b.id, a.id], NOW, audit=auditor.for_write("search", ALICE, query="word"))
    (row,) = _rows(store_url)
    assert (row["action"], row["memory_ids"], row["result_count"]) == ("search", [b.id, a.id], 2)
    assert row["query_len"] == 4 and row["query_sha256"]
    assert [m.hit_count for m in store.get_many("acme", [a.id, b.id])] == [1, 1]
    # The row goes in first, the counts after it: when the counts fail, the row goes too.
    _refuse_hit_counts(store_url)
    with pytest.raises(StorageError, match="hit counts refused"):
        store.record_hits("acme", [a.id], NOW, audit=auditor.for_write("search", ALICE, query="word"))
    assert len(_rows(store_url)) == 1
    assert [m.hit_count for m in store.get_many("acme", [a.id, b.id])] == [1, 1]


def test_each_import_batch_commits_with_its_own_row(store: Store, store_url: str, auditor: Auditor) -> None:
    entries = [(_memory(f"01JD3Z5X9Q2W8E7R6T5Y4V3K{i:02d}", f"imported {i}"), INDEX) for i in range(3)]
    outcomes = store.import_memories(entries, audit=auditor.for_write("import", ALICE))  # type: ignore[attr-defined]
    assert outcomes == ["inserted"] * 3
    assert [(r["action"], r["result_count"], r["detail"]) for r in _rows(store_url)] == [
        ("import", 3, {"batch": True})
    ]
    assert _actions(store_url) == [("import", [m.id for m, _ in entries])]


def test_through_the_service_a_write_without_its_row_is_refused_and_reads_fail_closed(
    service: MemoryService, store_url: str
) -> None:
    kept = service.memories.add("the client prefers email").memory
    _refuse_audit_rows(store_url)
    with pytest.raises(StorageError, match="audit rows refused"):
        service.memories.add("a fact that must not be stored without its audit row")
    with pytest.raises(StorageError, match="audit rows refused"):
        service.memories.update(kept.id, content="the client prefers phone calls")
    with pytest.raises(StorageError) as refused:
        service.searcher.search("client")
    assert "the search was refused because its audit row could not be written" in refused.value.message
    assert "MEMWARDEN_AUDIT_READS_FAIL_OPEN" in refused.value.message
    with pytest.raises(StorageError, match="search was refused"):
        service.searcher.recall("client", projects=[None])
    with pytest.raises(StorageError, match="get was refused"):
        service.memories.get([kept.id])

    def uses() -> tuple[int, object]:
        (memory,) = service.store.get_many(kept.tenant, [kept.id])
        return memory.hit_count, memory.last_used_at

    assert uses() == (0, None)  # a refused search returned nothing, so it used nothing
    assert service.auditor is not None
    service.auditor.reads_fail_open = True  # the documented opt-in
    assert [h.memory.content for h in service.searcher.search("client").hits] == ["the client prefers email"]
    assert uses()[0] == 1
    assert service.memories.stats()["memories"] == 1
    assert _actions(store_url) == [("add", [kept.id])]
