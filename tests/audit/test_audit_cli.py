"""``memwarden audit verify|export|prune`` and ``memwarden token new|hash`` as real subprocesses."""

from __future__ import annotations

import csv
import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from cli_runner import CliResult, run_in_process

from memwarden.govern.identity import load_tokens_file, token_digest


def run(env: dict[str, str], *argv: str, stdin: str = "") -> CliResult:
    """The command run in this process (tests/cli_runner.py): this file tests what it does."""
    return run_in_process(env, *argv, stdin=stdin)


def seed(env: dict[str, str]) -> None:
    assert run(env, "add", "Acme renewal is in March").returncode == 0
    assert run(env, "search", "renewal").returncode == 0
    assert run(env, "list").returncode == 0


def test_verify_passes_on_an_intact_chain_and_fails_with_the_position(
    cli_env: dict[str, str], db_path: Path
) -> None:
    seed(cli_env)
    ok = run(cli_env, "audit", "verify")
    assert ok.returncode == 0 and "audit chain intact: 3 rows" in ok.stdout
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute("DROP TRIGGER audit_log_no_update")
    conn.execute("UPDATE audit_log SET actor = 'mallory' WHERE seq = 2")
    conn.close()
    broken = run(cli_env, "audit", "verify")
    assert broken.returncode == 1
    assert "BROKEN" in broken.stdout and "position 2 (seq 2): edited" in broken.stdout
    report = json.loads(run(cli_env, "audit", "verify", "--json").stdout)
    assert report["ok"] is False and report["problems"][0]["position"] == 2


def test_export_writes_csv_and_json_with_filters(cli_env: dict[str, str], tmp_path: Path) -> None:
    seed(cli_env)
    assert run({**cli_env, "MEMWARDEN_ACTOR": "bob"}, "search", "march").returncode == 0
    out = tmp_path / "audit.json"
    done = run(cli_env, "audit", "export", "--actor", "bob", "--format", "json", "--out", str(out))
    assert done.returncode == 0, done.stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["format"] == "memwarden.audit" and document["count"] == 1
    assert [r["actor"] for r in document["records"]] == ["bob"]
    out_csv = tmp_path / "audit.csv"
    assert (
        run(
            cli_env,
            "audit",
            "export",
            "--from",
            "2000-01-01",
            "--to",
            "2999-12-31",
            "--tenant",
            "default",
            "--format",
            "csv",
            "--out",
            str(out_csv),
        ).returncode
        == 0
    )
    with out_csv.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["action"] for r in rows] == ["add", "search", "list", "search", "export"]
    assert json.loads(rows[0]["memory_ids"]) and rows[0]["hash"]
    none = tmp_path / "none.csv"
    assert (
        run(
            cli_env, "audit", "export", "--to", "2000-01-01", "--format", "csv", "--out", str(none)
        ).returncode
        == 0
    )
    assert len(none.read_text(encoding="utf-8").splitlines()) == 1  # the header only


def test_export_refuses_bad_input_and_existing_files(cli_env: dict[str, str], tmp_path: Path) -> None:
    seed(cli_env)
    existing = tmp_path / "exists.json"
    existing.write_text("keep me", encoding="utf-8")
    refused = run(cli_env, "audit", "export", "--out", str(existing))
    assert refused.returncode == 1 and "never overwrite" in refused.stderr
    assert existing.read_text(encoding="utf-8") == "keep me"
    bad_date = run(cli_env, "audit", "export", "--from", "last tuesday", "--out", str(tmp_path / "x.json"))
    assert bad_date.returncode == 1 and "is not a date" in bad_date.stderr
    backwards = run(
        cli_env,
        "audit",
        "export",
        "--from",
        "2026-02-01",
        "--to",
        "2026-01-01",
        "--out",
        str(tmp_path / "y.json"),
    )
    assert backwards.returncode == 1 and "--from must be before --to" in backwards.stderr
    assert run(cli_env, "audit", "export", "--format", "xml", "--out", "z").returncode == 2
    assert run(cli_env, "audit", "export").returncode == 2
    assert run(cli_env, "audit").returncode == 2


def test_prune_leaves_a_verifiable_chain_and_refuses_future_dates(cli_env: dict[str, str]) -> None:
    seed(cli_env)
    future = run(cli_env, "audit", "prune", "--before", "2999-01-01")
    assert future.returncode == 1 and "in the future" in future.stderr
    nothing = json.loads(run(cli_env, "audit", "prune", "--before", "2000-01-01", "--json").stdout)
    assert nothing == {"pruned": 0, "checkpoint": None}
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    done = json.loads(run(cli_env, "audit", "prune", "--before", now, "--json").stdout)
    assert done["pruned"] >= 3 and done["checkpoint"]["upto_seq"] >= 3
    verify = run(cli_env, "audit", "verify")
    assert verify.returncode == 0, verify.stdout
    assert run(cli_env, "audit", "prune", "--before", "soon").returncode == 1


def test_verify_works_on_a_backup_copy(cli_env: dict[str, str], db_path: Path, tmp_path: Path) -> None:
    seed(cli_env)
    copy = tmp_path / "copy.db"
    source = sqlite3.connect(db_path)
    target = sqlite3.connect(copy)
    source.backup(target)
    source.close()
    target.close()
    done = run(cli_env, "--db", str(copy), "audit", "verify", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["rows"] == 3


def test_token_new_appends_a_hashed_entry_and_token_hash_matches(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    path = tmp_path / "tokens.json"
    first = json.loads(
        run(
            cli_env,
            "token",
            "new",
            "--actor",
            "alice",
            "--tenant",
            "acme",
            "--tenant",
            "globex",
            "--file",
            str(path),
            "--json",
        ).stdout
    )
    run(cli_env, "token", "new", "--actor", "bob", "--tenant", "initech", "--file", str(path))
    tokens = load_tokens_file(str(path))
    assert tokens[token_digest(first["token"])].tenants == ("acme", "globex")
    assert len(tokens) == 2 and first["token"] not in path.read_text(encoding="utf-8")
    assert (path.stat().st_mode & 0o777) == 0o600
    hashed = run(cli_env, "token", "hash", stdin=first["token"] + "\n")
    assert hashed.stdout.strip() == token_digest(first["token"])
    assert run(cli_env, "token", "hash", stdin="").returncode == 1
    bad = run(cli_env, "token", "new", "--actor", "", "--tenant", "acme")
    assert bad.returncode == 1 and "actor must be" in bad.stderr


def test_the_csv_export_holds_no_cell_a_spreadsheet_would_run_and_json_stays_exact(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    # Second attack round (issue 33): a project such as =cmd|' /C calc'!A0 is audited as sent (a
    # refused add records it too) and reached the CSV as a live formula.
    hostile = "=cmd|' /C calc'!A0"
    run(cli_env, "add", "a note", "--project", hostile)
    assert run({**cli_env, "MEMWARDEN_ACTOR": "@evil"}, "list").returncode == 0
    out_csv, out_json = tmp_path / "audit.csv", tmp_path / "audit.json"
    assert run(cli_env, "audit", "export", "--format", "csv", "--out", str(out_csv)).returncode == 0
    assert run(cli_env, "audit", "export", "--format", "json", "--out", str(out_json)).returncode == 0
    with out_csv.open(encoding="utf-8") as handle:
        cells = [cell for row in csv.reader(handle) for cell in row]
    assert not [cell for cell in cells if cell[:1] in ("=", "+", "-", "@", "\t", "\r")]
    assert "'@evil" in cells
    records = json.loads(out_json.read_text(encoding="utf-8"))["records"]
    assert "@evil" in [r["actor"] for r in records]  # the JSON export is exact
