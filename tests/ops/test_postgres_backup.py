"""`memwarden backup` on PostgreSQL: pg_dump on one snapshot, verified by a real restore; refused without it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import CliResult, run_in_process
from postgres_server import client_tools_dir

pytestmark = pytest.mark.postgres


def _run(env: dict[str, str], *argv: str) -> CliResult:
    """The command run in this process (tests/cli_runner.py): this file tests what it does."""
    return run_in_process(env, *argv)


@pytest.fixture
def pg_env(pg_url: str, cli_env: dict[str, str]) -> dict[str, str]:
    env = {**cli_env, "MEMWARDEN_DB": pg_url, "MEMWARDEN_EMBEDDER": "none"}
    for i in range(4):
        assert _run(env, "add", f"backed up fact {i}", "--project", "ops").returncode == 0
    return env


def test_backup_uses_pg_dump_and_verifies_by_restoring(pg_env: dict[str, str], tmp_path: Path) -> None:
    env = {**pg_env, "PATH": client_tools_dir() + os.pathsep + pg_env.get("PATH", "")}
    result = _run(env, "backup", "--json")
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["verified"] is True and record["problems"] == [], record
    assert record["counts"]["memories"] == 4 and record["counts"]["audit_log"] >= 4
    assert record["audit"] == "verified" and record["path"].endswith(".pgdump")
    assert (
        Path(record["path"]).parent == tmp_path / "backups" and Path(record["path"] + ".verify.json").exists()
    )
    listed = _run(env, "backup", "--list", "--json")
    assert listed.returncode == 0 and record["path"] in listed.stdout
    out = tmp_path / "manual.pgdump"
    assert _run(env, "backup", "--out", str(out)).returncode == 0 and out.stat().st_size > 0
    again = _run(env, "backup", "--out", str(out))
    assert again.returncode == 1 and "exists" in again.stderr


def test_backup_without_pg_dump_refuses_clearly_and_writes_nothing(
    pg_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**pg_env, "PATH": str(Path(sys.executable).parent)}  # python, but no PostgreSQL client tools
    result = _run(env, "backup")
    assert result.returncode == 1
    assert "pg_dump" in result.stderr and "no backup was written" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not list((tmp_path / "backups").glob("*.pgdump"))


def test_restore_on_postgres_points_to_pg_restore(pg_env: dict[str, str], tmp_path: Path) -> None:
    env = {**pg_env, "PATH": client_tools_dir() + os.pathsep + pg_env.get("PATH", "")}
    record = json.loads(_run(env, "backup", "--json").stdout)
    result = _run(env, "restore", record["path"])
    assert result.returncode == 1 and "pg_restore --clean" in result.stderr


def test_a_pg_dump_older_than_the_server_is_named_with_both_versions(
    pg_env: dict[str, str], tmp_path: Path
) -> None:
    import shutil

    old = shutil.which("pg_dump", path="/usr/bin")  # Debian's client tools: older than the test server
    if old is None or subprocess.run([old, "--version"], capture_output=True, text=True).stdout.split()[
        2
    ].startswith("18"):
        pytest.skip("needs a pg_dump older than the PostgreSQL 18 test server in /usr/bin")
    env = {**pg_env, "PATH": "/usr/bin" + os.pathsep + str(Path(sys.executable).parent)}
    result = _run(env, "backup", "--json")
    assert result.returncode == 1
    message = result.stderr.strip()
    assert "pg_dump 15" in message and "PostgreSQL 18" in message and "postgresql-client-18" in message
    assert "no backup was written" in message and len(message.splitlines()) == 1
    last = json.loads((tmp_path / "backups" / "last-backup.json").read_text())
    assert last["failed"] is True and last["path"] == "" and last["verified"] is False
    assert not list((tmp_path / "backups").glob("*.pgdump"))
    health = json.loads(_run(env, "health", "--json").stdout)
    assert health["checks"]["backups"]["state"] == "failed"


def test_backups_of_the_other_backend_are_recognised_and_named(
    pg_env: dict[str, str], cli_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**pg_env, "PATH": client_tools_dir() + os.pathsep + pg_env.get("PATH", "")}
    dump = json.loads(_run(env, "backup", "--json").stdout)["path"]
    assert _run(cli_env, "add", "a sqlite memory").returncode == 0
    sqlite_backup = json.loads(_run(cli_env, "backup", "--json").stdout)["path"]
    on_sqlite = _run(cli_env, "restore", dump)
    assert on_sqlite.returncode == 1 and "is a PostgreSQL backup (pg_dump custom format)" in on_sqlite.stderr
    on_postgres = _run(env, "restore", sqlite_backup)
    assert on_postgres.returncode == 1 and "is a SQLite backup" in on_postgres.stderr
    assert "memwarden migrate" in on_postgres.stderr
