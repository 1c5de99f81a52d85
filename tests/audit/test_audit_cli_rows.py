"""Audit rows of the operations commands, run as real ``memwarden`` subprocesses: vacuum's
purge, review, backup, vault sync, health; export and import refused before they ran; an
export to stdout whose audit row cannot be written prints nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from cli_runner import CliResult, run_in_process

from tests.audit_rows import audit_rows

SECRET = "the secret launch date is March 3"


def run(env: dict[str, str], *argv: str) -> CliResult:
    """The command run in this process (tests/cli_runner.py): this file tests what it does."""
    return run_in_process(env, *argv)


def add(env: dict[str, str], content: str) -> str:
    done = run(env, "add", content, "--json")
    assert done.returncode == 0, done.stderr
    memory_id: str = json.loads(done.stdout)["id"]
    return memory_id


def new_rows(db: Path, before: int) -> list[dict[str, Any]]:
    return audit_rows(db)[before:]


def refuse_audit_rows(db: Path) -> None:
    """Every audit append fails from now on (a damaged audit table, as the tester simulated)."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute(
        "CREATE TRIGGER simulated_damage BEFORE INSERT ON audit_log "
        "BEGIN SELECT RAISE(ABORT, 'simulated damage'); END"
    )
    conn.close()


def test_vacuum_records_the_memories_it_purged(cli_env: dict[str, str], db_path: Path) -> None:
    gone = add(cli_env, "short lived note")
    add(cli_env, "kept note")
    conn = sqlite3.connect(db_path)
    conn.execute("UPDATE memories SET expires_at = '2000-01-01T00:00:00.000000Z' WHERE id = ?", (gone,))
    conn.commit()
    conn.close()
    before = len(audit_rows(db_path))
    done = run(cli_env, "vacuum", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["purged"] == 1
    assert [(r["action"], r["memory_ids"], r["result_count"]) for r in new_rows(db_path, before)] == [
        ("purge", [gone], 1)
    ]
    again = len(audit_rows(db_path))
    assert run(cli_env, "vacuum").returncode == 0
    assert len(audit_rows(db_path)) == again  # nothing purged: no row


def test_review_backup_vault_sync_and_health_each_write_one_row(
    cli_env: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    env = {**cli_env, "MEMWARDEN_VAULT_DIRS": str(vault)}
    add(env, "a memory every operation reads")
    for argv, action in (
        (["review"], "review"),
        (["backup"], "backup"),
        (["vault", "sync"], "vault_sync"),
        (["health"], "health"),
    ):
        before = len(audit_rows(db_path))
        done = run(env, *argv)
        assert done.returncode == 0, (argv, done.stderr)
        assert [(r["action"], r["outcome"]) for r in new_rows(db_path, before)] == [(action, "ok")], argv
    backup_row = next(r for r in audit_rows(db_path) if r["action"] == "backup")
    assert backup_row["result_count"] == 1 and backup_row["detail"]["verified"] is True
    assert Path(backup_row["detail"]["file"]).is_file()


def test_a_backup_that_cannot_be_written_records_its_error(cli_env: dict[str, str], db_path: Path) -> None:
    add(cli_env, "a memory")
    taken = Path(cli_env["MEMWARDEN_BACKUP_DIR"]) / "mine.db"
    taken.parent.mkdir(parents=True, exist_ok=True)
    taken.write_text("not a backup")
    before = len(audit_rows(db_path))
    done = run(cli_env, "backup", "--out", str(taken))
    assert done.returncode == 1
    assert [(r["action"], r["outcome"]) for r in new_rows(db_path, before)] == [("backup", "invalid_input")]


def test_export_to_stdout_prints_nothing_when_its_row_cannot_be_written(
    cli_env: dict[str, str], db_path: Path
) -> None:
    add(cli_env, SECRET)
    refuse_audit_rows(db_path)
    done = run(cli_env, "export")
    assert done.returncode == 1 and "refused because its audit row could not be written" in done.stderr
    assert done.stdout == ""


def test_export_to_stdout_prints_the_whole_export_once_its_row_is_written(
    cli_env: dict[str, str], db_path: Path
) -> None:
    memory_id = add(cli_env, SECRET)
    done = run(cli_env, "export")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert [m["id"] for m in document["memories"]] == [memory_id]
    assert audit_rows(db_path)[-1]["action"] == "export"


def test_vault_sync_and_review_are_refused_when_their_rows_cannot_be_written(
    cli_env: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    add(cli_env, SECRET)
    refuse_audit_rows(db_path)
    vault = tmp_path / "vault"
    vault.mkdir()
    synced = run({**cli_env, "MEMWARDEN_VAULT_DIRS": str(vault)}, "vault", "sync")
    assert synced.returncode == 1 and "refused because its audit row could not be written" in synced.stderr
    assert list(vault.rglob("*.md")) == []
    reviewed = run(cli_env, "review", "--json")
    assert reviewed.returncode == 1 and "launch" not in reviewed.stdout
    # Reads may be served anyway when the operator chose so.
    open_run = run({**cli_env, "MEMWARDEN_AUDIT_READS_FAIL_OPEN": "true"}, "review", "--json")
    assert open_run.returncode == 0, open_run.stderr


def test_export_to_an_existing_file_and_import_of_a_missing_file_leave_a_row(
    cli_env: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    add(cli_env, "a memory")
    existing = tmp_path / "taken.json"
    existing.write_text("{}")
    before = len(audit_rows(db_path))
    refused = run(cli_env, "export", "--out", str(existing))
    assert refused.returncode == 1 and "exists" in refused.stderr
    missing = run(cli_env, "import", str(tmp_path / "does-not-exist.json"))
    assert missing.returncode == 1 and "cannot read" in missing.stderr
    found = new_rows(db_path, before)
    assert [(r["action"], r["outcome"]) for r in found] == [
        ("export", "invalid_input"),
        ("import", "invalid_input"),
    ]
    assert found[0]["detail"]["file"] == str(existing)
    assert found[1]["detail"]["file"] == str(tmp_path / "does-not-exist.json")
    assert existing.read_text() == "{}"
