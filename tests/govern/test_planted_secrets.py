"""Planted secrets written through every path never reach the database file, its WAL, a
backup, vault notes or the logs: only ``[REDACTED:<rule>]`` markers do.

Paths: MCP tools (add, update), the CLI (add, update, import) in subprocesses, the service's
import. The raw bytes of every file memwarden wrote are searched for each planted value.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from govern_vectors import PLANTED, assert_no_plaintext, planted_text
from mcp_helpers import call_ok, mcp_client

from memwarden.app import build_service, configure_logging
from memwarden.config import load_settings


def run_cli(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "memwarden", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture
def leak_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMWARDEN_")}
    env.update(
        MEMWARDEN_DB=str(tmp_path / "leak.db"),
        MEMWARDEN_LOG_FILE=str(tmp_path / "leak.log"),
        MEMWARDEN_LOG_LEVEL="DEBUG",
        MEMWARDEN_BACKUP_DIR=str(tmp_path / "backups"),
        MEMWARDEN_VAULT_DIRS=str(tmp_path / "vault"),
        MEMWARDEN_EXPORT_DIR=str(tmp_path / "exchange"),
    )
    return env


def test_planted_secrets_never_reach_disk_or_logs(
    leak_env: dict[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    settings = load_settings(
        **{k[len("MEMWARDEN_") :].lower(): v for k, v in leak_env.items() if k.startswith("MEMWARDEN_")}
    )
    configure_logging(settings, to_stderr=True)
    service = build_service(settings, ops=True)
    secret = planted_text()
    outputs: list[str] = []
    try:
        # 1. MCP: add and update, secrets in content, title and tags.
        async def through_mcp() -> None:
            async with mcp_client(service) as client:
                # A secret in a tag or project is refused (identifiers are never rewritten).
                for field, value in (
                    ("tags", ["finance", PLANTED["phone_cn"]]),
                    ("project", PLANTED["email"]),
                ):
                    refused = await client.call_tool("memory_add", {"content": "Refused write", field: value})
                    assert refused.is_error and "redaction rule" in refused.content[0].text
                    outputs.append(refused.content[0].text)
                added = await call_ok(
                    client,
                    "memory_add",
                    {
                        "content": secret,
                        "project": "billing",
                        "title": f"owner {PLANTED['email']}",
                        "tags": ["finance"],
                    },
                )
                assert added["redacted"] is True and set(added["redactions"]) >= {"email", "iban", "jwt"}
                outputs.append(json.dumps(added))
                other = await call_ok(client, "memory_add", {"content": "Vendor list for the audit"})
                updated = await call_ok(
                    client,
                    "memory_update",
                    {"id": other["id"], "content": f"Vendor list: {secret}", "title": PLANTED["us_ssn"]},
                )
                outputs.append(json.dumps(updated))
                for value in PLANTED.values():
                    found = await call_ok(client, "memory_search", {"query": value})
                    outputs.append(json.dumps(found))
                found = await call_ok(client, "memory_search", {"query": "quarterly invoice reconciliation"})
                assert found["count"] >= 1

        anyio.run(through_mcp)
        # 2. The CLI, in subprocesses: add, update and search.
        refused_cli = subprocess.run(
            [sys.executable, "-m", "memwarden", "add", "x", "--tag", PLANTED["ipv4"]],
            env=leak_env,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        assert refused_cli.returncode == 1 and "redaction rule 'ipv4'" in refused_cli.stderr
        outputs.append(refused_cli.stdout + refused_cli.stderr)
        added = json.loads(
            run_cli(
                leak_env,
                "add",
                f"CLI copy: {secret}",
                "--json",
                "--tag",
                "ledger",
                "--title",
                PLANTED["aws_access_key"],
            ).stdout
        )
        outputs.append(json.dumps(added))
        updated = run_cli(leak_env, "update", added["id"], "--content", f"CLI update: {secret}", "--json")
        outputs.append(updated.stdout + updated.stderr)
        search = run_cli(leak_env, "search", PLANTED["phone_cn"], "--json")
        assert json.loads(search.stdout)["count"] == 0
        # 3. Import: a file in memwarden's export format, through the service and the CLI.
        record = {
            "id": "01JD3Z5X9Q2W8E7R6T5Y4V3K2M",
            "content": f"Imported: {secret}",
            "title": PLANTED["email"],
            "tags": ["imported"],
            "created_at": "2026-01-02T03:04:05Z",
            "updated_at": "2026-01-02T03:04:05Z",
        }
        document = {"format": "memwarden.export", "version": 1, "memories": [record]}
        report = service.operations.import_text(json.dumps(document))
        assert report["inserted"] == 1 and report["redacted"] == 1
        import_file = tmp_path / "incoming.json"
        record.update(id="01JD3Z5X9Q2W8E7R6T5Y4V3K2N", content=f"Imported by CLI: {secret}")
        import_file.write_text(json.dumps(document), encoding="utf-8")
        imported = run_cli(leak_env, "import", str(import_file), "--json")
        outputs.append(imported.stdout + imported.stderr)
        import_file.unlink()  # the input itself holds the plaintext, of course
        # 4. A backup of the database as it is now.
        backup = run_cli(leak_env, "backup", "--json")
        backup_path = Path(json.loads(backup.stdout)["path"])
        assert backup_path.exists()
        # Every file memwarden wrote, read while the service still holds the WAL open.
        db = Path(leak_env["MEMWARDEN_DB"])
        wal = Path(f"{db}-wal")
        written = [db, wal, backup_path, *(p for p in tmp_path.rglob("*") if p.is_file())]
        captured = capsys.readouterr()
        logs = "\n".join([captured.out, captured.err, caplog.text, *outputs])
        assert wal.exists() and backup_path.stat().st_size > 0
        assert_no_plaintext(written, logs)
        stored = db.read_bytes() + wal.read_bytes()
        assert b"[REDACTED:iban]" in stored and b"Quarterly invoice reconciliation" in stored
    finally:
        service.close()
        for handler in logging.getLogger().handlers[:]:
            handler.close()
            logging.getLogger().removeHandler(handler)
