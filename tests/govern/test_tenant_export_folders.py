"""File export and import over HTTP with two tokens, on both backends: each tenant has its own
export folder; names never clash or leak across tenants; a failed file operation is audited;
the local operator (CLI) keeps full access."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memwarden.govern.identity import token_digest
from memwarden.store.audit_logs import open_audit_log
from tests.govern.test_http_identity import call

ALICE = "mwt_alice-exports-0123456789abcdef"
BOB = "mwt_bob-exports-fedcba9876543210"


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, Any]]:
    from http_servers import free_port, wait_for_http

    db = str(tmp_path / "m.db") if request.param == "sqlite" else str(request.getfixturevalue("pg_url"))
    tokens = tmp_path / "tokens.json"
    tokens.write_text(
        json.dumps(
            {
                "tokens": [
                    {"sha256": token_digest(ALICE), "actor": "alice", "tenants": ["acme"]},
                    {"sha256": token_digest(BOB), "actor": "bob", "tenants": ["globex"]},
                ]
            }
        ),
        encoding="utf-8",
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMWARDEN_")}
    env.update(
        MEMWARDEN_DB=db,
        MEMWARDEN_LOG_FILE=str(tmp_path / "server.log"),
        MEMWARDEN_TOKENS_FILE=str(tokens),
        MEMWARDEN_TOOLS="all",
        MEMWARDEN_BACKUP_DIR=str(tmp_path / "backups"),
        MEMWARDEN_EMBEDDER="none",
        MEMWARDEN_EXPORT_DIR=str(tmp_path / "exports"),
    )
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "memwarden", "serve", "--http", f"127.0.0.1:{port}"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_http(f"http://127.0.0.1:{port}/healthz", process)
        yield {"base": f"http://127.0.0.1:{port}", "env": env, "exports": tmp_path / "exports", "db": db}
    finally:
        process.terminate()
        process.wait(timeout=20)


def ok(base: str, token: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = call(base, token, tool, arguments)
    assert not result.is_error, result.content[0].text
    return dict(result.structured_content)


def error(base: str, token: str, tool: str, arguments: dict[str, Any]) -> str:
    result = call(base, token, tool, arguments)
    assert result.is_error
    return str(result.content[0].text)


def test_each_tenant_has_its_own_export_folder(server: dict[str, Any]) -> None:
    base, exports = server["base"], Path(server["exports"])
    ok(base, ALICE, "memory_add", {"content": "Acme merger codename is Bluebird"})
    ok(base, BOB, "memory_add", {"content": "Globex launch is in May"})
    alices = ok(base, ALICE, "memory_export", {"name": "team.json"})
    bobs = ok(base, BOB, "memory_export", {"name": "team.json"})  # the same name: no clash, no leak
    alice_file, bob_file = Path(alices["file"]), Path(bobs["file"])
    assert (
        alice_file.parent != bob_file.parent and exports in alice_file.parents and exports in bob_file.parents
    )
    assert "Bluebird" in alice_file.read_text() and "Bluebird" not in bob_file.read_text()
    ok(base, ALICE, "memory_export", {"name": "alice-only.json"})
    # Bob cannot see that alice-only.json exists: the answer is the one for a name nobody used.
    leaked = error(base, BOB, "memory_import", {"name": "alice-only.json"})
    never = error(base, BOB, "memory_import", {"name": "never-written.json"})
    assert leaked.replace("alice-only.json", "X") == never.replace("never-written.json", "X")
    assert "Bluebird" not in json.dumps(ok(base, BOB, "memory_search", {"query": "bluebird"}))
    again = ok(base, ALICE, "memory_import", {"name": "team.json"})
    assert again["skipped_same_id"] == 1 and again["inserted"] == 0  # alice's data is still hers
    clash = error(base, BOB, "memory_export", {"name": "team.json"})
    assert "exists in your export folder" in clash
    log = open_audit_log(server["db"], readonly=True)
    try:
        rows = [r.to_dict() for r in log.records()]
    finally:
        log.close()
    failed = [(r["actor"], r["action"], r["outcome"]) for r in rows if r["outcome"] != "ok"]
    assert failed == [
        ("bob", "import", "invalid_input"),
        ("bob", "import", "invalid_input"),
        ("bob", "export", "invalid_input"),
    ]
    # The local operator reaches every tenant's files by path.
    done = subprocess.run(
        [sys.executable, "-m", "memwarden", "import", str(alice_file), "--json"],
        env=server["env"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["inserted"] == 1
