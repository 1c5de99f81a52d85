"""Tampering with the audit table behind memwarden's back is detected, with the position."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memwarden.audit.base import AuditEvent
from memwarden.store.audit_logs import verify_database
from memwarden.store.sqlite import SQLiteStore
from memwarden.store.sqlite.audit import SQLiteAuditLog

T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def chained_db(tmp_path: Path) -> Path:
    """A database with ten audit rows, one per hour from T0."""
    path = tmp_path / "audit.db"
    SQLiteStore(path).close()
    log = SQLiteAuditLog(path)
    for i in range(10):
        log.append(
            AuditEvent(
                actor=f"actor{i % 2}",
                tenant="acme",
                action="search",
                result_count=i,
                query_sha256="ab" * 32,
                query_len=5,
            ),
            T0 + timedelta(hours=i),
        )
    log.close()
    return path


def _attacker(path: Path) -> sqlite3.Connection:
    """A raw connection with the append-only triggers dropped, as someone bypassing memwarden would."""
    conn = sqlite3.connect(path, isolation_level=None)
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
        conn.execute(f"DROP TRIGGER {name}")
    return conn


def _kinds_at(path: Path) -> list[tuple[int, str]]:
    report = verify_database(str(path))
    assert report.ok is False
    return [(p.position, p.kind) for p in report.problems]


def test_an_untouched_chain_verifies(chained_db: Path) -> None:
    report = verify_database(str(chained_db))
    assert report.ok and report.rows == 10 and report.first_seq == 1 and report.last_seq == 10
    assert report.head.seq == 10


def test_the_database_refuses_update_and_delete_of_audit_rows(chained_db: Path) -> None:
    conn = sqlite3.connect(chained_db, isolation_level=None)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("UPDATE audit_log SET actor = 'mallory' WHERE seq = 3")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM audit_log WHERE seq = 3")
    with pytest.raises(sqlite3.IntegrityError, match="continue the chain"):
        conn.execute(
            "INSERT INTO audit_log SELECT 11, at, actor, tenant, project, action, outcome, memory_ids,"
            " result_count, degraded, redaction_count, query_sha256, query_len, query_plain, detail,"
            " 'x', hash FROM audit_log WHERE seq = 10"
        )
    with pytest.raises(sqlite3.IntegrityError, match="only moves forward"):
        conn.execute("UPDATE audit_head SET seq = 5")
    assert verify_database(str(chained_db)).ok


def test_an_edited_row_is_detected_at_its_position(chained_db: Path) -> None:
    _attacker(chained_db).execute("UPDATE audit_log SET actor = 'mallory' WHERE seq = 4")
    assert _kinds_at(chained_db) == [(4, "edited")]


def test_an_edited_row_with_a_recomputed_hash_breaks_the_next_link(chained_db: Path) -> None:
    from memwarden.audit.base import chain_hash

    conn = _attacker(chained_db)
    conn.execute("UPDATE audit_log SET actor = 'mallory' WHERE seq = 4")
    records = list(SQLiteAuditLog(chained_db, readonly=True).records())
    forged = records[3]
    conn.execute(
        "UPDATE audit_log SET hash = ? WHERE seq = 4", (chain_hash(forged.prev_hash, forged.hashed_fields()),)
    )
    assert _kinds_at(chained_db) == [(5, "broken_link")]


def test_a_deleted_row_is_detected_where_the_gap_is(chained_db: Path) -> None:
    _attacker(chained_db).execute("DELETE FROM audit_log WHERE seq = 6")
    problems = verify_database(str(chained_db)).problems
    assert [(p.position, p.kind) for p in problems] == [(6, "missing_rows")]
    assert "6..6" in problems[0].message


def test_an_inserted_row_is_detected(chained_db: Path) -> None:
    conn = _attacker(chained_db)
    conn.execute("DELETE FROM audit_log WHERE seq = 6")  # make room, as an inserter must
    conn.execute(
        "INSERT INTO audit_log SELECT 6, at, 'mallory', tenant, project, action, outcome, memory_ids,"
        " result_count, degraded, redaction_count, query_sha256, query_len, query_plain, detail,"
        " prev_hash, hash FROM audit_log WHERE seq = 5"
    )
    assert _kinds_at(chained_db) == [(6, "broken_link"), (6, "edited"), (7, "broken_link")]


def test_a_row_appended_behind_memwardens_back_is_detected(chained_db: Path) -> None:
    from memwarden.audit.base import chain_hash

    conn = _attacker(chained_db)
    last = list(SQLiteAuditLog(chained_db, readonly=True).records())[-1]
    fields = [11, *last.hashed_fields()[1:]]
    conn.execute(
        "INSERT INTO audit_log VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (*fields, last.hash, chain_hash(last.hash, fields)),
    )
    assert _kinds_at(chained_db) == [(11, "beyond_head")]


def test_reordered_rows_are_detected_at_both_positions(chained_db: Path) -> None:
    conn = _attacker(chained_db)
    conn.execute("UPDATE audit_log SET seq = -3 WHERE seq = 3")
    conn.execute("UPDATE audit_log SET seq = 3 WHERE seq = 4")
    conn.execute("UPDATE audit_log SET seq = 4 WHERE seq = -3")
    kinds = _kinds_at(chained_db)
    assert {position for position, _ in kinds} == {3, 4, 5}
    assert (3, "edited") in kinds and (4, "edited") in kinds


def test_a_truncated_tail_is_detected_after_the_last_row(chained_db: Path) -> None:
    _attacker(chained_db).execute("DELETE FROM audit_log WHERE seq > 7")
    problems = verify_database(str(chained_db)).problems
    assert [(p.position, p.seq, p.kind) for p in problems] == [(8, 8, "truncated")]
    assert "8..10" in problems[0].message


def test_rows_deleted_from_the_start_are_detected(chained_db: Path) -> None:
    _attacker(chained_db).execute("DELETE FROM audit_log WHERE seq <= 2")
    assert _kinds_at(chained_db) == [(1, "missing_start")]


def test_prune_leaves_a_checkpoint_so_the_rest_still_verifies(chained_db: Path) -> None:
    log = SQLiteAuditLog(chained_db)
    checkpoint = log.prune(T0 + timedelta(hours=4), datetime.now(UTC))
    assert checkpoint is not None and checkpoint.upto_seq == 4 and checkpoint.pruned_rows == 4
    rows = list(log.records())
    assert [r.seq for r in rows] == [5, 6, 7, 8, 9, 10, 11]  # 11: the prune row, same transaction
    assert rows[-1].action == "prune" and rows[-1].to_dict()["detail"]["upto_seq"] == 4
    assert log.prune(T0, datetime.now(UTC)) is None
    log.close()
    report = verify_database(str(chained_db))
    assert report.ok and report.first_seq == 5 and report.checkpoints == 1
    conn = sqlite3.connect(chained_db, isolation_level=None)
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM audit_log WHERE seq = 5")
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        conn.execute("DELETE FROM audit_checkpoints")


def test_tampering_after_a_prune_is_still_detected(chained_db: Path) -> None:
    log = SQLiteAuditLog(chained_db)
    log.prune(T0 + timedelta(hours=4), datetime.now(UTC))
    log.close()
    _attacker(chained_db).execute("UPDATE audit_log SET result_count = 99 WHERE seq = 7")
    assert _kinds_at(chained_db) == [(3, "edited")]


def test_a_chain_rewritten_whole_is_caught_by_an_earlier_anchor(chained_db: Path) -> None:
    from memwarden.audit.base import chain_hash

    anchor = verify_database(str(chained_db)).head
    assert verify_database(str(chained_db), (anchor.seq, anchor.hash)).ok
    conn = _attacker(chained_db)
    conn.execute("UPDATE audit_log SET actor = 'mallory' WHERE seq = 3")
    prev = None
    for record in list(SQLiteAuditLog(chained_db, readonly=True).records()):  # re-hash everything after
        prev = record.prev_hash if prev is None else prev
        digest = chain_hash(prev, record.hashed_fields())
        conn.execute("UPDATE audit_log SET prev_hash = ?, hash = ? WHERE seq = ?", (prev, digest, record.seq))
        prev = digest
    conn.execute("UPDATE audit_head SET hash = ?", (prev,))
    alone = verify_database(str(chained_db))  # the rows are consistent on their own; only the
    assert alone.problems == [] and alone.state == "not_verified"  # dropped triggers give it away
    report = verify_database(str(chained_db), (anchor.seq, anchor.hash))
    assert [(p.position, p.kind) for p in report.problems] == [(10, "anchor")]
