"""Audit chain on every backend: prunes vouched for by a prune row, time-safe prune, clock jumps,
the keyed (HMAC-SHA256) chain, and a rolled-back tail caught by an anchor."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memwarden.audit.base import AuditEvent, AuditLog, chain_hash
from memwarden.audit.keys import load_key, write_new_key
from memwarden.errors import ConfigError, Conflict, InvalidInput
from memwarden.store.audit_logs import open_audit_log, verify_database
from memwarden.store.base import Store
from tests.contract.test_audit_log import raw

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NOW = datetime(2026, 3, 1, tzinfo=UTC)


@pytest.fixture
def audit_log(store: Store, store_url: str) -> Iterator[AuditLog]:
    log = open_audit_log(store_url)
    yield log
    log.close()


def _event(i: int) -> AuditEvent:
    return AuditEvent(actor="alice", tenant="acme", action="search", result_count=i, detail={"n": i})


def _untriggered(store_url: str) -> object:
    """A raw SQL runner with the append-only triggers off, as an intruder with file access has."""
    run = raw(store_url)
    if store_url.startswith("postgresql://"):
        for table in ("audit_log", "audit_head", "audit_checkpoints"):
            run(f"ALTER TABLE {table} DISABLE TRIGGER USER")
    else:
        import sqlite3

        conn = sqlite3.connect(store_url, isolation_level=None)
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'audit%'"
        ):
            conn.execute(f"DROP TRIGGER {name}")
        conn.close()
    return run


def test_a_forged_checkpoint_without_a_prune_row_is_found(audit_log: AuditLog, store_url: str) -> None:
    rows = [audit_log.append(_event(i), T0 + timedelta(hours=i)) for i in range(8)]
    run = _untriggered(store_url)
    run("DELETE FROM audit_log WHERE seq <= 3")  # type: ignore[operator]
    run(
        "INSERT INTO audit_checkpoints (upto_seq, upto_hash, pruned_rows, before, at) "  # type: ignore[operator]
        f"VALUES (3, '{rows[2].hash}', 3, '2026-01-01T03:00:00.000000Z', '2026-02-01T00:00:00.000000Z')"
    )
    report = verify_database(store_url, now=NOW)
    assert not report.ok
    assert [(p.kind, p.seq) for p in report.problems] == [("forged_checkpoint", 3)]
    assert "deleted outside `memwarden audit prune`" in report.problems[0].message


def test_every_prune_is_vouched_for_even_after_its_own_row_is_pruned(
    audit_log: AuditLog, store_url: str
) -> None:
    for i in range(10):
        audit_log.append(_event(i), T0 + timedelta(hours=i))
    first = audit_log.prune(T0 + timedelta(hours=3), T0 + timedelta(hours=10), actor="ops", tenant="acme")
    assert first is not None and first.upto_seq == 3
    prune_row = list(audit_log.records())[-1]
    assert (prune_row.action, prune_row.actor) == ("prune", "ops")
    assert prune_row.to_dict()["detail"] == {
        "before": first.before,
        "upto_seq": 3,
        "upto_hash": first.upto_hash,
        "pruned_rows": 3,
        "previous_upto_seq": 0,
    }
    for i in range(3):
        audit_log.append(_event(i), T0 + timedelta(hours=12 + i))
    # The second prune removes the first prune's row: the second prune row vouches for it.
    second = audit_log.prune(T0 + timedelta(hours=11, minutes=30), T0 + timedelta(hours=16))
    assert second is not None and second.upto_seq == 11
    report = verify_database(store_url, now=NOW)
    assert report.ok and report.checkpoints == 2, report.problems


def test_prune_removes_exactly_the_rows_stamped_before_the_date(audit_log: AuditLog, store_url: str) -> None:
    for i in range(6):
        audit_log.append(_event(i), T0 + timedelta(hours=i))
    checkpoint = audit_log.prune(T0 + timedelta(hours=2, minutes=30), NOW)
    assert checkpoint is not None and checkpoint.pruned_rows == 3
    left = [r for r in audit_log.records() if r.action != "prune"]
    assert all(r.at >= "2026-01-01T02:30:00" for r in left) and len(left) == 3


def test_prune_refuses_when_the_clock_went_back_and_names_a_safe_date(
    audit_log: AuditLog, store_url: str
) -> None:
    # Stamps: 00:00, 01:00, 05:00, 02:00 (clock set back), 06:00
    for hours in (0, 1, 5, 2, 6):
        audit_log.append(_event(hours), T0 + timedelta(hours=hours))
    with pytest.raises(Conflict) as refused:
        audit_log.prune(T0 + timedelta(hours=3), NOW)
    message = refused.value.message
    assert "not the start of the chain" in message and "Row seq 3" in message and "row seq 4" in message
    assert "clock went back" in message
    assert [r.seq for r in audit_log.records()] == [1, 2, 3, 4, 5] and audit_log.checkpoints() == []
    assert "--before 2026-01-01T02:00:00.000000Z removes exactly the rows before seq 3" in message
    done = audit_log.prune(T0 + timedelta(hours=2), NOW)
    assert done is not None and (done.upto_seq, done.pruned_rows) == (2, 2)
    assert verify_database(store_url, now=NOW).ok


def test_prune_refusal_without_a_fitting_date_says_so(audit_log: AuditLog) -> None:
    # Stamps: 03:00, 01:00 (clock went back), 04:00: no date removes a prefix ending before seq 2.
    for hours in (3, 1, 4):
        audit_log.append(_event(hours), T0 + timedelta(hours=hours))
    with pytest.raises(Conflict) as refused:
        audit_log.prune(T0 + timedelta(hours=2), NOW)
    assert "Row seq 1" in refused.value.message and "--before" not in refused.value.message
    assert len(list(audit_log.records())) == 3


def test_verify_reports_clock_jumps_back_and_ahead(audit_log: AuditLog, store_url: str) -> None:
    for hours in (0, 1, 2):
        audit_log.append(_event(hours), T0 + timedelta(hours=hours))
    audit_log.append(_event(9), T0)  # the clock went back two hours
    audit_log.append(_event(10), NOW + timedelta(days=2))  # then far ahead of the wall clock
    report = verify_database(store_url, now=NOW)
    assert report.ok  # not tampering
    assert [(j.kind, j.seq) for j in report.clock_jumps] == [("clock_back", 4), ("clock_ahead", 5)]
    assert "clock went back" in report.clock_jumps[0].message
    assert "2 clock jump(s)" in report.summary()


def test_a_keyed_chain_verifies_with_its_key_and_reports_its_mode(
    store: Store, store_url: str, tmp_path: Path
) -> None:
    plain = open_audit_log(store_url)
    plain.append(_event(0), T0)
    plain.close()
    key = write_new_key(tmp_path / "keys" / "audit.key")
    keyed = open_audit_log(store_url, key=key)
    try:
        rows = [keyed.append(_event(i), T0 + timedelta(hours=i)) for i in range(1, 4)]
    finally:
        keyed.close()
    assert all(r.hash.startswith(f"hmac:{key.key_id}:") for r in rows)
    report = verify_database(store_url, key=key, now=NOW)
    assert report.ok and report.mode == "mixed" and report.keyed_from == 2 and report.key_ids == [key.key_id]
    assert "mode mixed (keyed from seq 2" in report.summary()
    unkeyed = verify_database(store_url, now=NOW)
    assert unkeyed.ok and unkeyed.unchecked_keyed_rows == 3 and "NOT checked" in unkeyed.summary()
    other = write_new_key(tmp_path / "other.key")
    wrong = verify_database(store_url, key=other, now=NOW)
    assert [p.kind for p in wrong.problems] == ["wrong_key"] * 3


def test_without_the_key_a_keyed_chain_cannot_be_rewritten_undetected(
    store: Store, store_url: str, tmp_path: Path
) -> None:
    key = write_new_key(tmp_path / "audit.key")
    keyed = open_audit_log(store_url, key=key)
    try:
        rows = [keyed.append(_event(i), T0 + timedelta(hours=i)) for i in range(4)]
    finally:
        keyed.close()
    run = _untriggered(store_url)
    # The intruder edits row 3 and re-hashes from there on with plain SHA-256 (no key to sign with).
    prev = rows[1].hash
    for row in rows[2:]:
        fields = row.hashed_fields()
        if row.seq == 3:
            fields[2] = "mallory"
        digest = chain_hash(prev, fields)
        run(
            f"UPDATE audit_log SET actor = '{fields[2]}', prev_hash = '{prev}', hash = '{digest}' "  # type: ignore[operator]
            f"WHERE seq = {row.seq}"
        )
        prev = digest
    run(f"UPDATE audit_head SET hash = '{prev}' WHERE id = 1")  # type: ignore[operator]
    report = verify_database(store_url, key=key, now=NOW)
    assert [(p.kind, p.seq) for p in report.problems] == [("downgrade", 3), ("downgrade", 4)]


def test_an_anchor_noted_earlier_catches_a_rolled_back_tail(audit_log: AuditLog, store_url: str) -> None:
    for i in range(5):
        audit_log.append(_event(i), T0 + timedelta(hours=i))
    head = audit_log.head()
    run = _untriggered(store_url)
    run("DELETE FROM audit_log WHERE seq >= 4")  # type: ignore[operator]
    kept = [r for r in audit_log.records()][-1]
    run(f"UPDATE audit_head SET seq = 3, hash = '{kept.hash}' WHERE id = 1")  # type: ignore[operator]
    alone = verify_database(store_url, now=NOW)  # the rows are consistent on their own, like a lost
    assert alone.problems == [] and alone.guards  # WAL tail; only the triggers switched off show
    report = verify_database(store_url, (head.seq, head.hash), now=NOW)
    assert [p.kind for p in report.problems] == ["rolled_back"]
    assert "newest 2 acknowledged rows are gone" in report.problems[0].message


def test_key_files_are_private_and_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "audit.key"
    key = write_new_key(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_key(path).key_id == key.key_id
    with pytest.raises(InvalidInput, match="never overwritten"):
        write_new_key(path)
    os.chmod(path, 0o644)
    with pytest.raises(ConfigError, match="chmod 600"):
        load_key(path)
    (tmp_path / "bad.key").write_text("not a key\n")
    os.chmod(tmp_path / "bad.key", 0o600)
    with pytest.raises(ConfigError, match="does not hold a key"):
        load_key(tmp_path / "bad.key")
    with pytest.raises(ConfigError, match="does not exist"):
        load_key(tmp_path / "missing.key")
