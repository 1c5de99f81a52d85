"""`memwarden audit verify` and `memwarden health` as real subprocesses on a real SQLite file: a
foreign trigger that drops chosen rows, keyed rows edited and checked without the key, the
newest rows cut with the head moved back (caught only by the anchor, also with `--db` naming
the live database), and what the command says when no anchor is given."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from cli_runner import CliResult, run_in_process


def run(env: dict[str, str], *argv: str) -> CliResult:
    """The command run in this process (tests/cli_runner.py): this file tests what it does."""
    return run_in_process(env, *argv)


def _behind_memwardens_back(path: Path, *statements: str) -> None:
    """Run SQL with the audit triggers dropped, then recreate them exactly as they were (the
    guards then look untouched)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        saved = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'audit%'"
        ).fetchall()
        for name, _ in saved:
            conn.execute(f"DROP TRIGGER {name}")
        for statement in statements:
            conn.execute(statement)
        for _, sql in saved:
            conn.execute(sql)
    finally:
        conn.close()


def _cut_newest(path: Path, rows: int) -> None:
    conn = sqlite3.connect(path)
    try:
        (head,) = conn.execute("SELECT seq FROM audit_head").fetchone()
        (new_hash,) = conn.execute("SELECT hash FROM audit_log WHERE seq = ?", (head - rows,)).fetchone()
    finally:
        conn.close()
    _behind_memwardens_back(
        path,
        f"DELETE FROM audit_log WHERE seq > {head - rows}",
        f"UPDATE audit_head SET seq = {head - rows}, hash = '{new_hash}'",
    )


def test_a_foreign_trigger_that_drops_rows_fails_the_add_and_verify_names_it(
    cli_env: dict[str, str], db_path: Path
) -> None:
    assert run(cli_env, "add", "an ordinary fact").returncode == 0
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute(
        "CREATE TRIGGER quiet BEFORE INSERT ON audit_log WHEN NEW.action = 'add' BEGIN SELECT RAISE(IGNORE); END"
    )
    conn.close()
    refused = run(cli_env, "add", "a fact whose row would vanish")
    assert refused.returncode == 1 and "was not stored" in refused.stderr
    listed = json.loads(run(cli_env, "list", "--json").stdout)
    assert "a fact whose row would vanish" not in json.dumps(listed)
    done = run(cli_env, "audit", "verify")
    assert done.returncode == 1, done.stdout
    assert done.stdout.startswith("audit chain NOT VERIFIED") and "GUARD quiet: foreign" in done.stdout
    report = json.loads(run(cli_env, "audit", "verify", "--json").stdout)
    assert report["ok"] is False and report["state"] == "not_verified" and report["problems"] == []
    checked = run(cli_env, "health", "--json", "--no-repair")
    health = json.loads(checked.stdout)
    assert health["status"] == "degraded" and checked.returncode == 0  # still serving
    assert [f["name"] for f in health["checks"]["audit_guards"]["findings"]] == ["quiet"]
    # A monitor asks for --strict: degraded is then a failure, in text and JSON alike.
    strict = run(cli_env, "health", "--strict", "--no-repair")
    assert strict.returncode == 1 and strict.stdout.startswith("status: degraded"), strict.stdout
    assert run(cli_env, "health", "--strict", "--json", "--no-repair").returncode == 1


def test_a_keyed_row_edited_is_not_verified_without_the_key_and_broken_with_it(
    cli_env: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    keyed = {**cli_env, "MEMWARDEN_AUDIT_KEY_FILE": str(tmp_path / "keys" / "audit.key")}
    assert run(keyed, "audit", "keygen").returncode == 0
    for i in range(3):
        assert run(keyed, "add", f"keyed fact {i}").returncode == 0
    _behind_memwardens_back(db_path, "UPDATE audit_log SET actor = 'mallory' WHERE seq = 2")
    without = run(cli_env, "audit", "verify")
    assert without.returncode == 1 and without.stdout.startswith("audit chain NOT VERIFIED")
    assert "keyed rows was NOT checked" in without.stdout and "intact" not in without.stdout
    with_key = run(keyed, "audit", "verify")
    assert with_key.returncode == 1 and "BROKEN" in with_key.stdout and "edited" in with_key.stdout


def test_the_newest_rows_cut_verify_without_an_anchor_and_fail_with_it_also_by_db(
    cli_env: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    anchor = tmp_path / "anchor" / "audit.json"
    anchored = {**cli_env, "MEMWARDEN_AUDIT_ANCHOR_FILE": str(anchor)}
    for i in range(4):
        assert run(anchored, "add", f"anchored fact {i}").returncode == 0
    assert run(anchored, "audit", "verify").returncode == 0
    copy = tmp_path / "copy.db"
    _cut_newest(db_path, 2)
    shutil.copyfile(db_path, copy)
    alone = run(cli_env, "audit", "verify")  # what holds without an anchor (docs/governance.md)
    assert alone.returncode == 0 and alone.stdout.startswith("audit chain intact")
    assert "no anchor given" in alone.stdout and "head moved back" in alone.stdout
    for argv in (("audit", "verify"), ("--db", str(db_path), "audit", "verify")):
        caught = run(anchored, *argv)
        assert caught.returncode == 1, (argv, caught.stdout)
        assert "rolled_back" in caught.stdout
    other = run(anchored, "--db", str(copy), "audit", "verify")  # another file: not this anchor's
    assert other.returncode == 0 and "no anchor given" in other.stdout


def test_a_hard_link_of_the_live_database_is_checked_against_its_anchor(
    cli_env: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    """Second attack round (issue 33 item 6): `--db` naming a hard link of the live file skipped
    the anchor (paths were compared, not files) and a rolled-back chain verified."""
    import os

    anchor = tmp_path / "anchor" / "audit.json"
    anchored = {**cli_env, "MEMWARDEN_AUDIT_ANCHOR_FILE": str(anchor)}
    for i in range(3):
        assert run(anchored, "add", f"anchored fact {i}").returncode == 0
    _cut_newest(db_path, 1)
    link = tmp_path / "elsewhere" / "same.db"
    link.parent.mkdir()
    os.link(db_path, link)
    caught = run(anchored, "--db", str(link), "audit", "verify")
    assert caught.returncode == 1 and "rolled_back" in caught.stdout, caught.stdout


def test_json_says_not_verified_when_the_configured_anchor_file_is_missing(
    cli_env: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    """Second attack round (issue 33 item 6): with MEMWARDEN_AUDIT_ANCHOR_FILE gone, verify
    exited 1 and printed NOT VERIFIED, but its JSON said state intact, verified true."""
    from datetime import UTC, datetime

    from memwarden.app import build_service
    from memwarden.audit.base import AuditEvent
    from memwarden.config import load_settings
    from memwarden.store.audit_logs import open_audit_log

    build_service(load_settings(db=str(db_path), log_file=str(tmp_path / "m.log")), embeddings=False).close()
    log = open_audit_log(str(db_path))  # a row written before the anchor file was configured
    log.append(AuditEvent(actor="alice", tenant="default", action="get"), datetime.now(UTC))
    log.close()
    missing = {**cli_env, "MEMWARDEN_AUDIT_ANCHOR_FILE": str(tmp_path / "gone" / "audit.json")}
    done = run(missing, "audit", "verify", "--json")
    report = json.loads(done.stdout)
    assert done.returncode == 1
    assert report["anchor_missing"] and report["verified"] is False and report["state"] == "not_verified"
