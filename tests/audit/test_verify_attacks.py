"""Attacks on the audit log that `audit verify` must catch: a keyed chain rewritten whole as plain
SHA-256 rows, an anchor file that is no regular file or is huge, a damaged audit table, and the
append-only triggers dropped or disabled."""

from __future__ import annotations

import os
import sqlite3
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memwarden.audit.anchor import AnchorFile
from memwarden.audit.base import GENESIS, AuditEvent, AuditRecord, chain_hash
from memwarden.audit.keys import AuditKey, write_new_key
from memwarden.errors import InvalidInput
from memwarden.store.audit_logs import open_audit_log, verify_database
from memwarden.store.sqlite import SQLiteStore

T0 = datetime(2026, 1, 1, tzinfo=UTC)
NOW = datetime(2026, 3, 1, tzinfo=UTC)
COLUMNS = (
    "seq, at, actor, tenant, project, action, outcome, memory_ids, result_count, degraded, "
    "redaction_count, query_sha256, query_len, query_plain, detail, prev_hash, hash"
)


def _event(i: int, pad: str = "") -> AuditEvent:
    return AuditEvent(
        actor="alice", tenant="acme", action="search", result_count=i, detail={"n": i, "pad": pad}
    )


def _db(tmp_path: Path) -> Path:
    path = tmp_path / "audit.db"
    SQLiteStore(path).close()
    return path


def _append(path: Path, count: int, *, key: AuditKey | None = None, start: int = 0) -> None:
    log = open_audit_log(str(path), key=key)
    try:
        for i in range(start, start + count):
            log.append(_event(i), T0 + timedelta(hours=i))
    finally:
        log.close()


def _rewrite_as_plain(path: Path, *, actor_of: int) -> None:
    """What an intruder without the key does: drop the triggers, edit one row, re-hash every row
    (and the head) with plain SHA-256, and put the triggers' absence out of sight by restoring them."""
    conn = sqlite3.connect(path, isolation_level=None)
    saved = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'audit%'"
    ).fetchall()
    for name, _ in saved:
        conn.execute(f"DROP TRIGGER {name}")
    rows = [AuditRecord(*r) for r in conn.execute(f"SELECT {COLUMNS} FROM audit_log ORDER BY seq")]
    prev = GENESIS
    for row in rows:
        fields = row.hashed_fields()
        if row.seq == actor_of:
            fields[2] = "mallory"
        digest = chain_hash(prev, fields)
        conn.execute(
            "UPDATE audit_log SET actor = ?, prev_hash = ?, hash = ? WHERE seq = ?",
            (fields[2], prev, digest, row.seq),
        )
        prev = digest
    conn.execute("UPDATE audit_head SET seq = ?, hash = ? WHERE id = 1", (rows[-1].seq, prev))
    for _, sql in saved:
        conn.execute(sql)
    conn.close()


# --- 1. a keyed chain rewritten whole as plain rows ----------------------------------------------


def test_a_keyed_chain_rewritten_whole_as_plain_rows_fails_verify_with_the_key(tmp_path: Path) -> None:
    path = _db(tmp_path)
    key = write_new_key(tmp_path / "keys" / "audit.key")
    _append(path, 5, key=key)
    assert verify_database(str(path), key=key, now=NOW).mode == "hmac-sha256"
    _rewrite_as_plain(path, actor_of=2)
    report = verify_database(str(path), key=key, now=NOW)
    assert not report.ok
    assert [p.kind for p in report.problems] == ["unkeyed"]
    message = report.problems[0].message
    assert "none of its 5 rows is keyed" in message and "rewritten without the key" in message
    assert "audit chain BROKEN" in report.summary()


def test_a_plain_chain_verified_with_a_key_before_any_keyed_row_says_how_to_start_the_keyed_part(
    tmp_path: Path,
) -> None:
    path = _db(tmp_path)
    _append(path, 3)  # the log began without a key
    key = write_new_key(tmp_path / "audit.key")
    report = verify_database(str(path), key=key, now=NOW)
    assert [p.kind for p in report.problems] == ["unkeyed"]
    assert "configured after the last write" in report.problems[0].message
    _append(path, 2, key=key, start=3)  # the key is used: keyed rows from seq 4
    after = verify_database(str(path), key=key, now=NOW)
    assert after.ok and after.mode == "mixed" and after.keyed_from == 4


def test_a_fresh_database_keyed_from_the_start_verifies_with_and_without_the_key(tmp_path: Path) -> None:
    path = _db(tmp_path)
    key = write_new_key(tmp_path / "audit.key")
    assert verify_database(str(path), key=key, now=NOW).ok  # empty: nothing to vouch for yet
    _append(path, 3, key=key)
    keyed = verify_database(str(path), key=key, now=NOW)
    assert keyed.ok and keyed.mode == "hmac-sha256" and keyed.keyed_from == 1
    without = verify_database(str(path), now=NOW)
    assert without.ok and without.unchecked_keyed_rows == 3 and "NOT checked" in without.summary()


def test_a_prune_of_a_mixed_chain_keeps_it_verifiable_with_the_key(tmp_path: Path) -> None:
    path = _db(tmp_path)
    _append(path, 3)
    key = write_new_key(tmp_path / "audit.key")
    _append(path, 4, key=key, start=3)
    log = open_audit_log(str(path), key=key)
    try:  # removes every plain row and two keyed ones; the prune row is keyed
        checkpoint = log.prune(T0 + timedelta(hours=5), NOW)
    finally:
        log.close()
    assert checkpoint is not None and checkpoint.upto_seq == 5
    report = verify_database(str(path), key=key, now=NOW)
    assert report.ok and report.mode == "hmac-sha256" and report.first_seq == 6


def test_a_plain_rewrite_laundered_by_the_next_keyed_write_is_caught_by_the_anchor(tmp_path: Path) -> None:
    path = _db(tmp_path)
    key = write_new_key(tmp_path / "audit.key")
    _append(path, 4, key=key)
    head = open_audit_log(str(path), readonly=True)
    anchored = (head.head().seq, head.head().hash)
    head.close()
    _rewrite_as_plain(path, actor_of=2)
    _append(path, 1, key=key, start=4)  # memwarden writes on, keyed, on top of the forged rows
    report = verify_database(str(path), anchored, key=key, now=NOW)
    assert [p.kind for p in report.problems] == ["anchor"]


# --- 2. the anchor file must be a small regular file --------------------------------------------


def _read_in_thread(anchor: AnchorFile) -> BaseException | tuple[int, str] | None:
    outcome: list[BaseException | tuple[int, str] | None] = []

    def target() -> None:
        try:
            outcome.append(anchor.read())
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome.append(exc)

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), "reading the anchor file blocked"
    return outcome[0]


def test_an_anchor_file_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "anchor.json"
    os.mkfifo(fifo)
    outcome = _read_in_thread(AnchorFile(fifo))
    assert isinstance(outcome, InvalidInput) and "not a regular file" in outcome.message


def test_an_anchor_file_of_10_mb_is_refused(tmp_path: Path) -> None:
    big = tmp_path / "anchor.json"
    with big.open("wb") as handle:
        handle.truncate(10 * 1024 * 1024)
    outcome = _read_in_thread(AnchorFile(big))
    assert isinstance(outcome, InvalidInput) and "too large" in outcome.message


def test_an_anchor_file_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    outcome = _read_in_thread(AnchorFile(tmp_path))
    assert isinstance(outcome, InvalidInput) and "not a regular file" in outcome.message


def test_a_normal_anchor_file_still_reads(tmp_path: Path) -> None:
    anchor = AnchorFile(tmp_path / "anchor.json")
    assert anchor.read() is None
    anchor.write(7, "ab" * 32, "2026-01-01T00:00:00.000000Z")
    assert anchor.read() == (7, "ab" * 32)


# --- 4. a damaged audit table -------------------------------------------------------------------


def damage_audit_table(tmp_path: Path) -> Path:
    """A database whose audit_log root page is garbled (as the tester's 15_corrupt_db.sh does)."""
    path = _db(tmp_path)
    log = open_audit_log(str(path))
    try:
        for i in range(300):
            log.append(_event(i, pad="x" * 200), T0 + timedelta(minutes=i))
    finally:
        log.close()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'audit_log'").fetchone()[0]
    conn.close()
    data = bytearray(path.read_bytes())
    offset = (root - 1) * page_size + 8
    for i in range(40):
        data[offset + i] ^= 0xA5
    path.write_bytes(data)
    return path


def test_a_damaged_audit_table_is_a_verification_failure_not_a_crash(tmp_path: Path) -> None:
    path = damage_audit_table(tmp_path)
    report = verify_database(str(path), now=NOW)
    assert not report.ok
    assert [p.kind for p in report.problems][-1] == "unreadable"
    assert "damaged" in report.problems[-1].message


# --- the append-only triggers --------------------------------------------------------------------


def test_a_dropped_append_only_trigger_is_reported(tmp_path: Path) -> None:
    path = _db(tmp_path)
    _append(path, 3)
    assert verify_database(str(path), now=NOW).guards == []
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER audit_log_no_update")
    conn.execute("DROP TRIGGER audit_head_forward")
    conn.close()
    report = verify_database(str(path), now=NOW)
    assert [(g.kind, g.seq) for g in report.guards] == [
        ("unguarded", "audit_log_no_update"),
        ("unguarded", "audit_head_forward"),
    ]
    assert "missing" in report.guards[0].message
    assert "append-only guard" in report.summary()


def test_an_append_only_trigger_replaced_by_a_harmless_one_is_reported(tmp_path: Path) -> None:
    path = _db(tmp_path)
    _append(path, 2)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("DROP TRIGGER audit_log_no_delete")
    conn.execute(
        "CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log WHEN 0 "
        "BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END"
    )
    conn.close()
    report = verify_database(str(path), now=NOW)
    assert [(g.kind, g.seq) for g in report.guards] == [("unguarded", "audit_log_no_delete")]
    assert "changed" in report.guards[0].message


@pytest.mark.postgres
def test_disabled_triggers_are_reported_on_postgresql(pg_url: str) -> None:
    from memwarden.store import open_store

    open_store(pg_url).close()
    log = open_audit_log(pg_url)
    try:
        log.append(_event(1), T0)
    finally:
        log.close()
    assert verify_database(pg_url, now=NOW).guards == []
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update")
        conn.execute("DROP TRIGGER audit_checkpoints_no_delete ON audit_checkpoints")
    report = verify_database(pg_url, now=NOW)
    assert sorted(str(g.seq) for g in report.guards) == ["audit_checkpoints_no_delete", "audit_log_no_update"]
    assert {g.kind for g in report.guards} == {"unguarded"}
