"""The in-process command runner answers as the real command does (tests/cli_runner.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from cli_runner import CliResult, run_in_process, run_memwarden


def test_in_process_and_real_process_agree_on_output_and_exit_codes(
    cli_env: dict[str, str], db_path: Path
) -> None:
    added = run_in_process(cli_env, "add", "The invoices go out on Mondays", "--json")
    assert added.returncode == 0, added.stderr
    memory_id = json.loads(added.stdout)["id"]
    by_process = run_memwarden(cli_env, "get", memory_id, "--json")
    in_process = run_in_process(cli_env, "get", memory_id, "--json")
    assert by_process.returncode == in_process.returncode == 0
    assert json.loads(by_process.stdout) == json.loads(in_process.stdout)
    missing = "01JD3Z5X9Q2W8E7R6T5Y4V3K2N"
    failed = [run(cli_env, "get", missing) for run in (run_memwarden, run_in_process)]
    assert [f.returncode for f in failed] == [1, 1]
    assert failed[0].stderr == failed[1].stderr and "not found" in failed[1].stderr
    usage = [run(cli_env, "add") for run in (run_memwarden, run_in_process)]
    assert [u.returncode for u in usage] == [2, 2] and "content" in usage[1].stderr


def test_stdin_reaches_the_command_and_the_environment_is_the_one_given(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    other_db = tmp_path / "other.db"
    before = dict(os.environ)
    added = run_in_process(
        {**cli_env, "MEMWARDEN_DB": str(other_db)}, "add", "-", "--json", stdin="from stdin"
    )
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout)["memory"]["content"] == "from stdin"
    assert other_db.exists() and os.environ == before  # the call's environment is put back
    assert other_db.stat().st_mode & 0o077 == 0  # private, as the console entry's umask makes it


def test_the_cli_fixture_runs_on_the_tests_database(cli: object, db_path: Path) -> None:
    done = cli("add", "Deploys freeze on Fridays")  # type: ignore[operator]
    assert isinstance(done, CliResult) and done.returncode == 0 and done.stdout.startswith("stored ")
    assert db_path.exists()
    done.check_returncode()
