"""``memwarden vault sync`` and the mirror from one-shot CLI processes (real subprocesses)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memwarden.cli.main import main
from tests.vault_helpers import notes, read_note

TIMEOUT = 120


def memwarden(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memwarden", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    folder = tmp_path / "vault"
    folder.mkdir()
    return folder


def test_a_one_shot_add_reaches_the_vault_before_the_process_exits(
    cli_env: dict[str, str], vault: Path
) -> None:
    env = {**cli_env, "MEMWARDEN_VAULT_DIRS": str(vault)}
    added = memwarden(env, "add", "The printer on floor two needs a PIN", "--project", "office", "--json")
    assert added.returncode == 0, added.stderr
    memory = json.loads(added.stdout)["memory"]
    front, body = read_note(notes(vault)[memory["id"]])
    assert front["project"] == "office" and "The printer on floor two needs a PIN" in body


def test_processes_adding_at_once_keep_note_numbers_unique(cli_env: dict[str, str], vault: Path) -> None:
    env = {**cli_env, "MEMWARDEN_VAULT_DIRS": str(vault)}
    runs = [
        subprocess.Popen(
            [sys.executable, "-m", "memwarden", "add", f"parallel memory number {i}"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(6)
    ]
    # Every process is waited for (its pipes closed) before any assertion, so one failure does
    # not leave open pipes that fail the next test with ResourceWarnings.
    errors = [run.communicate(timeout=TIMEOUT)[1] for run in runs]
    for run, err in zip(runs, errors, strict=True):
        assert run.returncode == 0, err
    names = sorted(p.name for p in vault.glob("*.md"))
    assert len(names) == 6 and len(notes(vault)) == 6
    assert sorted(int(name.split(" ", 1)[0]) for name in names) == [1, 2, 3, 4, 5, 6]


def test_vault_sync_rebuilds_notes_and_a_second_run_changes_nothing(
    cli_env: dict[str, str], vault: Path
) -> None:
    added = memwarden(cli_env, "add", "Written while no vault was configured", "--json")
    assert added.returncode == 0, added.stderr
    env = {**cli_env, "MEMWARDEN_VAULT_DIRS": str(vault)}
    first = memwarden(env, "vault", "sync")
    assert first.returncode == 0, first.stderr
    assert (
        first.stdout == f"vault sync: 1 memories\n  {vault}: written 1, unchanged 0, renamed 0, removed 0\n"
    )
    second = memwarden(env, "vault", "sync", "--json")
    assert json.loads(second.stdout) == {
        "memories": 1,
        "ok": True,
        "folders": [
            {"path": str(vault), "error": None, "written": 0, "unchanged": 1, "renamed": 0, "removed": 0}
        ],
    }
    assert list(notes(vault)) == [json.loads(added.stdout)["id"]]


def test_vault_sync_reports_an_unwritable_folder_and_exits_1(
    cli_env: dict[str, str], vault: Path, tmp_path: Path
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    env = {**cli_env, "MEMWARDEN_VAULT_DIRS": os.pathsep.join([str(vault), str(blocker / "vault")])}
    result = memwarden(env, "vault", "sync")
    assert result.returncode == 1
    # The folder written on stdout; the failed one as one line on stderr, in words with the fix.
    assert f"  {vault}: written 0, unchanged 0" in result.stdout and "FAILED" not in result.stdout
    assert result.stderr == (
        f"memwarden: vault sync: cannot write to {blocker / 'vault'}: {blocker} is a file, not a "
        "folder; set MEMWARDEN_VAULT_DIRS to a folder (or move that file away)\n"
    )


def test_vault_sync_without_folders_says_what_to_set(
    monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    for key, value in cli_env.items():
        monkeypatch.setenv(key, value)
    assert main(["vault", "sync"]) == 1
    assert "set MEMWARDEN_VAULT_DIRS" in capsys.readouterr().err


def test_vault_without_an_action_or_with_a_bad_flag_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["vault"]) == 2
    assert "sync" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["vault", "sync", "--no-such-flag"])
    assert exited.value.code == 2
    with pytest.raises(SystemExit) as exited:
        main(["vault", "rebuild"])
    assert exited.value.code == 2
