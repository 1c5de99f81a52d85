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
        "settings",
        "database",
        "model",
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
    db_path.write_bytes(b"this is not a database" * 100)
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
    assert db_path.read_bytes() == b"this is not a database" * 100


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
    assert "-> fix the MEMWARDEN_* variable it names" in done.stdout
