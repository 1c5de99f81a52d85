"""AuditLog contract: the hash-chained, append-only log behaves the same on every backend."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest

from memwarden.audit.base import GENESIS, AuditEvent, AuditLog
from memwarden.store.audit_logs import open_audit_log, verify_database
from memwarden.store.base import Store

T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def audit_log(store: Store, store_url: str) -> Iterator[AuditLog]:
    log = open_audit_log(store_url)
    yield log
    log.close()


def _event(i: int, **kw: object) -> AuditEvent:
    args: dict[str, object] = dict(
        actor=f"actor{i % 2}",
        tenant="acme",
        action="search",
        result_count=i,
        memory_ids=("01JD3Z5X9Q2W8E7R6T5Y4V3K2M",),
        detail={"n": i, "ü": "ş"},
    )
    args.update(kw)
    return AuditEvent(**args)  # type: ignore[arg-type]


def raw(store_url: str) -> Callable[[str], None]:
    """Run SQL on the database behind memwarden's back (the way an intruder would)."""
    if store_url.startswith("postgresql://"):
        import psycopg

        def run_pg(sql: str) -> None:
            with psycopg.connect(store_url, autocommit=True) as conn:
                conn.execute(sql)  # type: ignore[arg-type]

        return run_pg
    import sqlite3

    def run_sqlite(sql: str) -> None:
        conn = sqlite3.connect(store_url, isolation_level=None)
        try:
            conn.execute(sql)
        finally:
            conn.close()

    return run_sqlite


def test_an_appended_chain_reads_back_and_verifies(audit_log: AuditLog, store_url: str) -> None:
    assert audit_log.head().seq == 0 and audit_log.head().hash == GENESIS
    written = [audit_log.append(_event(i), T0 + timedelta(hours=i)) for i in range(5)]
    assert [r.seq for r in written] == [1, 2, 3, 4, 5]
    assert written[0].prev_hash == GENESIS and written[1].prev_hash == written[0].hash
    assert list(audit_log.records()) == written
    assert audit_log.head().seq == 5 and audit_log.head().hash == written[-1].hash
    report = verify_database(store_url)
    assert report.ok and report.rows == 5


def test_records_filter_by_time_tenant_and_actor(audit_log: AuditLog) -> None:
    for i in range(6):
        audit_log.append(_event(i, tenant="acme" if i < 4 else "globex"), T0 + timedelta(hours=i))
    assert [r.seq for r in audit_log.records(since=T0 + timedelta(hours=2))] == [3, 4, 5, 6]
    assert [r.seq for r in audit_log.records(until=T0 + timedelta(hours=2))] == [1, 2]
    assert [r.seq for r in audit_log.records(tenant="globex")] == [5, 6]
    assert [r.seq for r in audit_log.records(actor="actor1", tenant="acme")] == [2, 4]


def test_the_database_refuses_to_change_or_remove_audit_rows(audit_log: AuditLog, store_url: str) -> None:
    for i in range(3):
        audit_log.append(_event(i), T0)
    run = raw(store_url)
    for sql in (
        "UPDATE audit_log SET actor = 'mallory' WHERE seq = 2",
        "DELETE FROM audit_log WHERE seq = 2",
        "UPDATE audit_head SET seq = 1",
        "DELETE FROM audit_head",
        "INSERT INTO audit_log SELECT 4, at, actor, tenant, project, action, outcome, memory_ids,"
        " result_count, degraded, redaction_count, query_sha256, query_len, query_plain, detail,"
        " 'x', hash FROM audit_log WHERE seq = 3",
    ):
        with pytest.raises(
            Exception, match=r"append-only|continue the chain|only moves forward|cannot be deleted"
        ):
            run(sql)
    if store_url.startswith("postgresql://"):
        with pytest.raises(Exception, match="append-only"):
            run("TRUNCATE audit_log CASCADE")
    assert verify_database(store_url).ok and audit_log.head().seq == 3


def test_concurrent_appenders_never_fork_the_chain(store_url: str, store: Store) -> None:
    logs = [open_audit_log(store_url) for _ in range(4)]
    try:

        def append_many(i: int) -> None:
            for n in range(15):
                logs[i].append(_event(n, actor=f"writer{i}"), T0 + timedelta(seconds=n))

        with ThreadPoolExecutor(4) as pool:
            list(pool.map(append_many, range(4)))
        report = verify_database(store_url)
        assert report.ok and report.rows == 60 and report.head.seq == 60
    finally:
        for log in logs:
            log.close()


def test_prune_leaves_a_checkpoint_and_the_rest_still_verifies(audit_log: AuditLog, store_url: str) -> None:
    for i in range(10):
        audit_log.append(_event(i), T0 + timedelta(hours=i))
    assert audit_log.prune(T0 - timedelta(days=1), T0) is None
    checkpoint = audit_log.prune(T0 + timedelta(hours=4), T0 + timedelta(days=1))
    assert checkpoint is not None and (checkpoint.upto_seq, checkpoint.pruned_rows) == (4, 4)
    assert audit_log.checkpoints() == [checkpoint]
    assert [r.seq for r in audit_log.records()] == [5, 6, 7, 8, 9, 10, 11]  # 11: the prune row
    report = verify_database(store_url)
    assert report.ok and report.first_seq == 5 and report.checkpoints == 1


def test_an_edited_row_is_found_at_its_position(audit_log: AuditLog, store_url: str) -> None:
    for i in range(6):
        audit_log.append(_event(i), T0)
    run = raw(store_url)
    if store_url.startswith("postgresql://"):
        run("ALTER TABLE audit_log DISABLE TRIGGER USER")
    else:
        run("DROP TRIGGER audit_log_no_update")
    run("UPDATE audit_log SET actor = 'mallory' WHERE seq = 4")
    report = verify_database(store_url)
    assert not report.ok and [(p.position, p.kind) for p in report.problems] == [(4, "edited")]


def test_a_snapshot_sees_one_consistent_state(audit_log: AuditLog, store_url: str) -> None:
    audit_log.append(_event(1), T0)
    other = open_audit_log(store_url)
    try:
        with audit_log.snapshot():
            before = audit_log.head()
            other.append(_event(2), T0)
            assert audit_log.head() == before and len(list(audit_log.records())) == 1
        assert audit_log.head().seq == 2
    finally:
        other.close()
