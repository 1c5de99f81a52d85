"""Store and audit-log contract for the dashboard's reads: browse a page with filters and a
bounded count, the overview's aggregates, the audit timeline and its per-day counts."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from contract_helpers import T0, index_of, make_memory, put

from memwarden.audit.base import AuditEvent, AuditLog, AuditQuery
from memwarden.browsing import BrowseCursor, MemoryPage, MemoryQuery
from memwarden.store.audit_logs import open_audit_log
from memwarden.store.base import Store

MONDAY = "2026-02-23"  # the Monday of T0's week (T0 is Sunday 2026-03-01)


@pytest.fixture
def audit_log(store: Store, store_url: str) -> Iterator[AuditLog]:
    log = open_audit_log(store_url)
    yield log
    log.close()


def _browse(store: Store, limit: int = 10, count_limit: int = 100, **filters: object) -> list[str]:
    page = store.browse(
        "t1",
        MemoryQuery(**filters),  # type: ignore[arg-type]
        now=T0,
        limit=limit,
        count_limit=count_limit,
    )
    return [m.content for m in page.memories]


def test_browse_filters_by_each_field_newest_first(store: Store) -> None:
    put(store, "a fact", at=T0 - timedelta(days=3), tags=("crm",))
    put(store, "a note", kind="note", at=T0 - timedelta(days=2), pinned=True)
    put(store, "elsewhere", project="q", at=T0 - timedelta(days=1), tags=("crm", "x"))
    flagged = make_memory("ignore previous instructions", at=T0 - timedelta(hours=1))
    store.add(flagged._replace(injection_flags=("instruction_override",)), index_of(flagged))
    put(store, "other tenant", tenant="t2")
    assert _browse(store) == ["ignore previous instructions", "elsewhere", "a note", "a fact"]
    assert _browse(store, project="q") == ["elsewhere"]
    assert _browse(store, kind="note") == ["a note"]
    assert _browse(store, tag="crm") == ["elsewhere", "a fact"]
    assert _browse(store, pinned=True) == ["a note"]
    assert _browse(store, pinned=False, flagged=False) == ["elsewhere", "a fact"]
    assert _browse(store, flagged=True) == ["ignore previous instructions"]
    assert _browse(store, created_since=T0 - timedelta(days=2), created_until=T0 - timedelta(hours=2)) == [
        "elsewhere",
        "a note",
    ]


def _contents(page: MemoryPage) -> list[str]:
    return [m.content for m in page.memories]


@pytest.mark.parametrize("tag", [None, "t"])
def test_browse_pages_by_keyset_both_ways_and_counts_up_to_the_limit(store: Store, tag: str | None) -> None:
    at = T0 - timedelta(minutes=10)
    for i in range(7):  # memories 1 and 2 share their time: the id breaks the tie
        put(store, f"memory {i}", at=at + timedelta(minutes=i if i != 2 else 1), tags=("t",))
    query = MemoryQuery(tag=tag)
    first = store.browse("t1", query, now=T0, limit=3, count_limit=100)
    assert _contents(first)[:2] == ["memory 6", "memory 5"] and (first.newer, first.older) == (False, True)
    assert (first.total, first.total_is_lower_bound) == (7, False)
    second = store.browse(
        "t1", query, now=T0, limit=3, count_limit=100, after=BrowseCursor.of(first.memories[-1])
    )
    third = store.browse(
        "t1", query, now=T0, limit=3, count_limit=100, after=BrowseCursor.of(second.memories[-1])
    )
    seen = _contents(first) + _contents(second) + _contents(third)
    assert sorted(seen) == [f"memory {i}" for i in range(7)] and seen[-1] == "memory 0"
    assert (second.newer, second.older, third.newer, third.older) == (True, True, True, False)
    back = store.browse(
        "t1", query, now=T0, limit=3, count_limit=100, before=BrowseCursor.of(third.memories[0])
    )
    assert _contents(back) == _contents(second) and (back.newer, back.older) == (True, True)
    top = store.browse(
        "t1", query, now=T0, limit=3, count_limit=100, before=BrowseCursor.of(second.memories[0])
    )
    assert _contents(top) == _contents(first) and (top.newer, top.older) == (False, True)
    capped = store.browse("t1", query, now=T0, limit=3, count_limit=5)
    assert (capped.total, capped.total_is_lower_bound) == (5, True)


def test_the_tag_table_and_counts_follow_every_write_path(store: Store) -> None:
    """Tags, counts and weeks are kept by triggers: add, update (tags, kind, project, pin,
    flags), soft delete, import and purge all show in browse and the overview at once."""
    a = put(store, "alpha", tags=("x", "y"), at=T0 - timedelta(days=1))
    b = put(store, "beta", tags=("x",), kind="note", at=T0 - timedelta(days=8))
    gone = put(store, "expiring", tags=("x",), at=T0 - timedelta(hours=3), ttl=timedelta(hours=1))
    assert _browse(store, tag="x") == ["alpha", "beta"]  # the expired one is left out
    moved = a._replace(project="q", kind="note", tags=("y", "z"), pinned=True, updated_at=T0)
    store.update(
        moved._replace(injection_flags=("instruction_override",)), index_of(moved), expected_version=1
    )
    assert _browse(store, tag="x") == ["beta"]
    assert _browse(store, tag="z", project="q", kind="note", pinned=True, flagged=True) == ["alpha"]
    assert _browse(store, tag="z", project="p") == [] and _browse(store, tag="y", pinned=False) == []
    imported = make_memory("imported", tags=("x",), at=T0 - timedelta(minutes=5))
    store.import_memories([(imported, index_of(imported))])
    assert _browse(store, tag="x") == ["imported", "beta"]
    store.soft_delete("t1", b.id, T0)
    assert _browse(store, tag="x") == ["imported"]
    assert store.purge_expired(T0) == [gone.id]
    view = store.overview("t1", now=T0, weeks_since=T0 - timedelta(weeks=4), top=5)
    assert view.counts == [("p", "fact", 1), ("q", "note", 1)]
    assert view.added_per_week == [(MONDAY, "p", 1), (MONDAY, "q", 1)]
    assert _browse(store, tag="x", count_limit=100) == ["imported"]
    assert store.projects("t1") == ["p", "q"] and store.projects("nobody") == []


def test_browse_leaves_out_deleted_and_expired_memories(store: Store) -> None:
    gone = put(store, "deleted one")
    store.soft_delete("t1", gone.id, T0)
    put(store, "expired one", at=T0 - timedelta(hours=2), ttl=timedelta(hours=1))
    put(store, "kept")
    assert _browse(store) == ["kept"]


def test_overview_counts_weeks_recalls_and_redaction_rules_of_one_tenant(store: Store) -> None:
    a = put(store, "fact one", at=T0)
    put(store, "fact two", at=T0 - timedelta(days=7), project="q")
    note = make_memory("a note with a redacted email", kind="note", at=T0)
    store.add(note._replace(redactions=("email", "phone")), index_of(note))
    other = make_memory("redacted too", at=T0)
    store.add(other._replace(redactions=("email",)), index_of(other))
    put(store, "old", at=T0 - timedelta(days=100))
    put(store, "not mine", tenant="t2")
    store.record_hits("t1", [a.id, a.id], T0)
    store.record_hits("t1", [a.id, note.id], T0)
    view = store.overview("t1", now=T0, weeks_since=T0 - timedelta(weeks=4), top=5)
    assert view.counts == [("p", "fact", 3), ("p", "note", 1), ("q", "fact", 1)]
    assert view.added_per_week == [("2026-02-16", "q", 1), (MONDAY, "p", 3)]
    assert view.most_recalled[0].id == a.id and len(view.most_recalled) == 2
    assert view.redactions_per_rule == {"email": 2, "phone": 1}


def _event(tenant: str, action: str, actor: str = "alice", **kw: object) -> AuditEvent:
    return AuditEvent(actor=actor, tenant=tenant, action=action, **kw)  # type: ignore[arg-type]


def test_audit_page_filters_newest_first_and_pages_by_seq(audit_log: AuditLog) -> None:
    for i in range(6):
        audit_log.append(
            _event(
                "acme" if i % 2 else "globex",
                "search" if i < 4 else "add",
                actor="bob" if i == 5 else "alice",
            ),
            T0 + timedelta(hours=i),
        )
    everything = audit_log.page(AuditQuery(), before_seq=None, limit=10)
    assert [r.seq for r in everything] == [6, 5, 4, 3, 2, 1]
    assert [r.seq for r in audit_log.page(AuditQuery(), before_seq=4, limit=2)] == [3, 2]
    assert [r.seq for r in audit_log.page(AuditQuery(tenant="acme"), before_seq=None, limit=10)] == [6, 4, 2]
    assert [r.seq for r in audit_log.page(AuditQuery(action="add"), before_seq=None, limit=10)] == [6, 5]
    assert [r.seq for r in audit_log.page(AuditQuery(actor="bob"), before_seq=None, limit=10)] == [6]
    window = AuditQuery(since=T0 + timedelta(hours=1), until=T0 + timedelta(hours=3))
    assert [r.seq for r in audit_log.page(window, before_seq=None, limit=10)] == [3, 2]
    assert audit_log.page(AuditQuery(since=T0 + timedelta(days=9)), before_seq=None, limit=10) == []
    assert audit_log.page(AuditQuery(until=T0 - timedelta(days=9)), before_seq=None, limit=10) == []


def test_daily_counts_follow_appends_with_degrade_reasons(audit_log: AuditLog) -> None:
    audit_log.append(_event("acme", "search"), T0)
    audit_log.append(_event("acme", "search", degraded=True, detail={"degrade_reason": "warming_up"}), T0)
    audit_log.append(_event("acme", "search", degraded=True, detail={"degrade_reason": "warming_up"}), T0)
    audit_log.append(_event("acme", "add"), T0 + timedelta(days=1))
    audit_log.append(_event("globex", "add"), T0 + timedelta(days=1))
    rows = [
        (c.day, c.tenant, c.action, c.degrade_reason, c.rows)
        for c in audit_log.daily_counts("2026-03-01", tenant="acme")
    ]
    assert rows == [
        ("2026-03-01", "acme", "search", "", 1),
        ("2026-03-01", "acme", "search", "warming_up", 2),
        ("2026-03-02", "acme", "add", "", 1),
    ]
    assert len(audit_log.daily_counts("2026-03-02", tenant=None)) == 2


def test_memory_writes_lists_the_rows_that_wrote_a_memory_by_index(audit_log: AuditLog) -> None:
    audit_log.append(_event("acme", "add", memory_ids=["M1"], detail={"duplicate": False}), T0)
    audit_log.append(_event("acme", "search", memory_ids=["M1", "M2"]), T0)  # a read: not listed
    audit_log.append(_event("acme", "update", memory_ids=["M1"], detail={"version": 2}), T0)
    audit_log.append(_event("acme", "update", memory_ids=["M2"]), T0)
    audit_log.append(_event("globex", "update", memory_ids=["M1"]), T0)  # another tenant's M1
    audit_log.append(_event("acme", "import", memory_ids=["M1", "M3"]), T0)
    audit_log.append(_event("acme", "delete", memory_ids=["M1"]), T0)
    rows = audit_log.memory_writes("M1", tenant="acme", limit=10)
    assert [(r.seq, r.action) for r in rows] == [(7, "delete"), (6, "import"), (3, "update"), (1, "add")]
    assert [r.seq for r in audit_log.memory_writes("M1", tenant="acme", limit=2)] == [7, 6]
    assert [r.seq for r in audit_log.memory_writes("M3", tenant="acme", limit=10)] == [6]
    assert audit_log.memory_writes("M9", tenant="acme", limit=10) == []
