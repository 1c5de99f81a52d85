"""Deployment files: what can be checked without a Docker engine (there is none here).

The compose file parses and wires the token from an env file, a named volume and a health check
through ``memwarden health --url``; every ``memwarden`` command the files run exists; the systemd
units pass ``systemd-analyze verify`` where that tool exists; the backup timer's command works.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from memwarden.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "deploy" / "systemd"


def _parses(argv: list[str]) -> None:
    build_parser().parse_args(argv)  # SystemExit(2) on an unknown command or option


def test_compose_uses_an_env_file_a_named_volume_and_the_health_url_check() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    service = compose["services"]["memwarden"]
    assert service["env_file"] == ["memwarden.env"]
    assert "MEMWARDEN_HTTP_TOKEN" not in json.dumps(service.get("environment", {}))
    volume, mount = service["volumes"][0].split(":")
    assert volume in compose["volumes"] and mount == "/data"
    test = service["healthcheck"]["test"]
    assert test[:4] == ["CMD", "memwarden", "health", "--url"]
    _parses(test[2:])
    assert all(port.startswith("127.0.0.1:") for port in service["ports"])
    assert (ROOT / "memwarden.env.example").read_text().startswith("# Copy to memwarden.env")
    assert "memwarden.env" in (ROOT / ".gitignore").read_text()


def test_dockerfile_runs_as_a_user_serves_and_checks_health_through_the_url() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "\nUSER memwarden\n" in text and 'VOLUME ["/data"]' in text
    health = next(line for line in text.splitlines() if line.strip().startswith('CMD ["memwarden", "health"'))
    _parses(json.loads(health.strip()[4:])[1:])
    cmd = json.loads(text.rsplit("\nCMD ", 1)[1].strip())
    _parses(cmd[1:])
    assert "MEMWARDEN_DB=/data/memwarden.db" in text and "MEMWARDEN_BACKUP_DIR=/data/backups" in text


def test_systemd_units_are_hardened_and_their_commands_exist() -> None:
    server = (UNITS / "memwarden.service").read_text(encoding="utf-8")
    for setting in (
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "ProtectHome=yes",
        "PrivateTmp=yes",
        "CapabilityBoundingSet=",
        "SystemCallFilter=@system-service",
        "UMask=0077",
        "EnvironmentFile=/etc/memwarden/memwarden.env",
    ):
        assert setting in server, setting
    timer = (UNITS / "memwarden-backup.timer").read_text(encoding="utf-8")
    assert "OnCalendar=" in timer and "Persistent=true" in timer
    for unit in ("memwarden.service", "memwarden-backup.service"):
        line = next(x for x in (UNITS / unit).read_text().splitlines() if x.startswith("ExecStart="))
        _parses(shlex.split(line.removeprefix("ExecStart="))[1:])


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verify_accepts_the_units(tmp_path: Path) -> None:
    exe = str(Path(sys.executable).with_name("memwarden"))
    for unit in UNITS.iterdir():
        (tmp_path / unit.name).write_text(unit.read_text().replace("/opt/memwarden/bin/memwarden", exe))
    result = subprocess.run(
        ["systemd-analyze", "verify", *map(str, sorted(tmp_path.iterdir()))],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "memwarden" not in result.stderr, result.stderr


def test_the_timer_backup_command_writes_a_verified_backup(cli_env: dict[str, str], tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "memwarden", "add", "a memory to back up"],
        env=cli_env,
        check=True,
        capture_output=True,
        timeout=60,
    )
    result = subprocess.run(
        [sys.executable, "-m", "memwarden", "backup", "--reason", "timer", "--json"],
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["verified"] is True and "-timer.db" in record["path"]
