"""`memwarden audit verify` and `memwarden health` as real subprocesses against the tester's
attacks: a keyed chain rewritten as plain rows, an anchor file that is a FIFO, a configured anchor
file that is missing, a damaged audit table, dropped append-only triggers."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from cli_runner import CliResult, run_in_process

from tests.audit.test_verify_attacks import _rewrite_as_plain, damage_audit_table


def run(env: dict[str, str], *argv: str) -> CliResult:
    """The command run in this process (tests/cli_runner.py): this file tests what it does."""
    return run_in_process(env, *argv)


def test_verify_with_the_key_fails_on_a_keyed_chain_rewritten_as_plain_rows(
    cli_env: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    key_file = tmp_path / "keys" / "audit.key"
    env = {**cli_env, "MEMWARDEN_AUDIT_KEY_FILE": str(key_file)}
    assert run(env, "audit", "keygen").returncode == 0
    for i in range(3):
        assert run(env, "add", f"keyed memory {i}").returncode == 0
    assert run(env, "audit", "verify").returncode == 0
    _rewrite_as_plain(db_path, actor_of=2)
    forged = run(env, "audit", "verify")
    assert forged.returncode == 1, forged.stdout
    assert "BROKEN" in forged.stdout and "unkeyed" in forged.stdout
    report = json.loads(run(env, "audit", "verify", "--json").stdout)
    assert report["ok"] is False and report["problems"][0]["kind"] == "unkeyed"
    without_key = run(cli_env, "audit", "verify")  # honest: links intact, nothing claimed about a key
    assert without_key.returncode == 0 and "mode sha256" in without_key.stdout


def test_verify_refuses_an_anchor_file_that_is_a_fifo(cli_env: dict[str, str], tmp_path: Path) -> None:
    assert run(cli_env, "add", "something to audit").returncode == 0
    fifo = tmp_path / "anchor.fifo"
    os.mkfifo(fifo)
    done = run(cli_env, "audit", "verify", "--anchor-file", str(fifo))
    assert done.returncode == 1
    assert "not a regular file" in done.stderr and "unexpected" not in done.stderr


def test_a_configured_anchor_file_that_is_missing_fails_verify_once_the_chain_has_rows(
    cli_env: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    anchor = tmp_path / "state" / "anchor.json"
    env = {**cli_env, "MEMWARDEN_AUDIT_ANCHOR_FILE": str(anchor)}
    from memwarden.store.sqlite import SQLiteStore

    SQLiteStore(db_path).close()  # the first run: no row, no anchor yet, nothing to complain about
    first = run(env, "audit", "verify")
    assert first.returncode == 0, first.stdout + first.stderr
    assert run(env, "add", "anchored memory").returncode == 0
    assert anchor.exists() and run(env, "audit", "verify").returncode == 0
    anchor.unlink()
    missing = run(env, "audit", "verify")
    assert missing.returncode == 1
    assert "anchor file" in missing.stdout and "does not exist" in missing.stdout
    assert "intact" not in missing.stdout.splitlines()[0]
    report = json.loads(run(env, "audit", "verify", "--json").stdout)
    assert report["anchor"] is None and report["anchor_missing"] == str(anchor)


def test_a_damaged_audit_table_fails_verify_and_health_without_a_crash(
    cli_env: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    damaged = damage_audit_table(tmp_path)
    damaged.replace(db_path)
    verify = run(cli_env, "audit", "verify")
    assert verify.returncode == 1 and "unexpected" not in verify.stderr, verify.stderr
    assert "BROKEN" in verify.stdout and "unreadable" in verify.stdout
    health = run(cli_env, "health", "--json")
    assert "unexpected" not in health.stderr, health.stderr
    report = json.loads(health.stdout)
    assert report["status"] != "ok" and report["checks"]["clock"]["ok"] is False
    assert report["checks"]["clock"]["state"] == "unreadable"


def test_verify_reports_dropped_append_only_triggers(cli_env: dict[str, str], db_path: Path) -> None:
    assert run(cli_env, "add", "guarded memory").returncode == 0
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute("DROP TRIGGER audit_log_no_update")
    conn.close()
    done = run(cli_env, "audit", "verify")
    assert done.returncode == 1
    assert "audit_log_no_update" in done.stdout and "append-only" in done.stdout
    report = json.loads(run(cli_env, "audit", "verify", "--json").stdout)
    assert [g["seq"] for g in report["guards"]] == ["audit_log_no_update"]
