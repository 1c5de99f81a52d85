"""``memwarden doctor``: real files, a real port, the real model; it changes nothing."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

MEMWARDEN = [sys.executable, "-m", "memwarden"]


def doctor(env: dict[str, str], *args: str, cwd: Path | None = None) -> tuple[int, dict[str, Any]]:
    done = subprocess.run(
        [*MEMWARDEN, *args, "doctor", "--json"], env=env, capture_output=True, text=True, timeout=120, cwd=cwd
    )
    return done.returncode, json.loads(done.stdout)


def by_name(report: dict[str, Any]) -> dict[str, dict[str, str]]:
    return {c["name"]: c for c in report["checks"]}


def test_a_fresh_installation_is_ready_and_doctor_creates_nothing(
    cli_env: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    code, report = doctor({**cli_env, "HOME": str(tmp_path)}, cwd=tmp_path)
    checks = by_name(report)
    assert code == 0 and report["ok"] is True
    assert set(checks) == {
        "python",
        "unknown names",
        "settings",
        "data folder",
        "database",
        "model",
        "rule pack",
        "hooks",
        "vault",
        "claude code",
        "port",
        "daemon",
    }
    assert checks["database"]["status"] == "warn" and "not created yet" in checks["database"]["detail"]
    assert "memwarden add" in checks["database"]["fix"] and not db_path.exists()
    assert checks["claude code"]["status"] == "warn" and "install claude-code" in checks["claude code"]["fix"]
    assert checks["model"]["detail"].startswith("MEMWARDEN_EMBEDDER=none")


def test_a_working_database_model_and_claude_code_setup_are_reported_ok(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    env = {**cli_env, "HOME": str(tmp_path), "MEMWARDEN_EMBEDDER": "builtin"}
    assert (
        subprocess.run(
            [*MEMWARDEN, "add", "doctor checks me"],
            env={**env, "MEMWARDEN_EMBEDDER": "none"},
            capture_output=True,
            timeout=60,
        ).returncode
        == 0
    )
    assert (
        subprocess.run(
            [*MEMWARDEN, "install", "claude-code"], env=env, capture_output=True, timeout=60
        ).returncode
        == 0
    )
    code, report = doctor(env, cwd=tmp_path)
    checks = by_name(report)
    assert code == 0, report
    assert checks["database"]["status"] == "ok" and "integrity ok" in checks["database"]["detail"]
    assert checks["migrations"]["status"] == "ok" and checks["keyword index"]["status"] == "ok"
    assert checks["model"]["status"] == "ok" and "pinned SHA-256" in checks["model"]["detail"]
    assert " ms" in checks["model"]["detail"]
    assert checks["claude code"]["status"] == "ok" and ".claude.json" in checks["claude code"]["detail"]


def test_each_problem_fails_with_what_to_do(cli_env: dict[str, str], db_path: Path, tmp_path: Path) -> None:
    # A damaged SQLite file (its header, then garbage): restoring a backup is the fix. A file that
    # is not SQLite at all is another mistake (test_doctor_calls_a_file_that_is_not_sqlite_…).
    damaged = b"SQLite format 3\x00" + b"this is not a database" * 100
    db_path.write_bytes(damaged)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        env = {
            **cli_env,
            "HOME": str(tmp_path),
            "MEMWARDEN_VAULT_DIRS": str(tmp_path / "no-vault"),
            "MEMWARDEN_HTTP": f"127.0.0.1:{port}",
        }
        code, report = doctor(env, cwd=tmp_path)
    checks = by_name(report)
    assert code == 1 and report["ok"] is False
    assert checks["database"]["status"] == "fail" and "memwarden restore" in checks["database"]["fix"]
    assert checks["vault"]["status"] == "fail" and "mkdir" in checks["vault"]["fix"]
    assert checks["port"]["status"] == "fail" and "already in use" in checks["port"]["detail"]
    assert db_path.read_bytes() == damaged


def test_bad_settings_are_one_failed_check_and_the_text_output_says_what_to_do(
    cli_env: dict[str, str],
) -> None:
    done = subprocess.run(
        [*MEMWARDEN, "doctor"],
        env={**cli_env, "MEMWARDEN_TOOLS": "bogus"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert (
        "fail  settings      invalid settings: MEMWARDEN_TOOLS: must be one of core, all, got 'bogus'"
        in done.stdout
    )
    assert "-> fix or unset the MEMWARDEN_* variable it names" in done.stdout


def test_doctor_reaches_a_configured_embedder_endpoint_and_says_when_it_does_not(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    from fake_ollama import DIMENSION, fake_ollama

    env = {**cli_env, "HOME": str(tmp_path), "MEMWARDEN_EMBEDDER": "ollama", "MEMWARDEN_EMBED_MODEL": "m"}
    with fake_ollama() as url:
        _, report = doctor({**env, "MEMWARDEN_EMBED_URL": url}, cwd=tmp_path)
    model = by_name(report)["model"]
    assert model["status"] == "ok" and f"{DIMENSION}-dimension vector" in model["detail"], model
    # The same URL with nobody answering: a failure that names the URL and says what to do.
    code, report = doctor({**env, "MEMWARDEN_EMBED_URL": url}, cwd=tmp_path)
    model = by_name(report)["model"]
    assert code == 1 and model["status"] == "fail" and url in model["detail"], model
    assert "MEMWARDEN_EMBED_URL" in model["fix"] and "MEMWARDEN_EMBEDDER=none" in model["fix"]


def test_doctor_compiles_the_rule_pack_and_fails_a_missing_or_broken_one(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    pack = tmp_path / "pack.json"
    pack.write_text(json.dumps({"rules": [{"name": "ticket", "pattern": "TCK-[0-9]{6}"}]}), encoding="utf-8")
    env = {**cli_env, "HOME": str(tmp_path)}
    _, report = doctor({**env, "MEMWARDEN_REDACTION_RULES": str(pack)}, cwd=tmp_path)
    assert by_name(report)["rule pack"]["status"] == "ok"
    for bad in (tmp_path / "missing.json", tmp_path / "broken.json"):
        if bad.name == "broken.json":
            bad.write_text(json.dumps({"rules": [{"name": "bad", "pattern": "(unclosed"}]}), encoding="utf-8")
        code, report = doctor({**env, "MEMWARDEN_REDACTION_RULES": str(bad)}, cwd=tmp_path)
        check = by_name(report)["rule pack"]
        assert code == 1 and check["status"] == "fail" and str(bad) in check["detail"], check
        assert "MEMWARDEN_REDACTION_RULES" in check["fix"]


def test_doctor_fails_a_database_folder_that_cannot_be_created_and_does_not_promise_add(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    db = blocker / "data" / "memwarden.db"
    code, report = doctor({**cli_env, "HOME": str(tmp_path), "MEMWARDEN_DB": str(db)}, cwd=tmp_path)
    checks = by_name(report)
    assert code == 1 and checks["data folder"]["status"] == "fail"
    assert str(blocker) in checks["data folder"]["detail"] and "MEMWARDEN_DB" in checks["data folder"]["fix"]
    assert checks["database"]["status"] == "fail" and "memwarden add" not in checks["database"]["fix"]
    assert not db.exists()


def test_doctor_names_an_unknown_setting_with_the_closest_known_one(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    code, report = doctor({**cli_env, "HOME": str(tmp_path), "MEMWARDEN_DEMON": "off"}, cwd=tmp_path)
    check = by_name(report)["unknown names"]
    assert code == 0 and check["status"] == "warn"
    assert "MEMWARDEN_DEMON (did you mean MEMWARDEN_DAEMON?)" in check["detail"] and check["fix"]


def test_doctor_calls_a_file_that_is_not_sqlite_what_it_is_not_damaged(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes, given as the database by mistake\n", encoding="utf-8")
    code, report = doctor({**cli_env, "HOME": str(tmp_path), "MEMWARDEN_DB": str(notes)}, cwd=tmp_path)
    check = by_name(report)["database"]
    assert code == 1 and check["status"] == "fail" and "not a SQLite file" in check["detail"]
    assert "MEMWARDEN_DB" in check["fix"] and "restore" not in check["fix"]
