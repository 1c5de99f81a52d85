"""`memwarden serve` over stdio attaches to the daemon: real MCP clients, one shared process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from memwarden.daemon.client import DaemonClient
from memwarden.daemon.place import DaemonPlace
from memwarden.errors import MemwardenError
from memwarden.settings_reader import load_hot_settings


def serve(**env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable, args=["-m", "memwarden", "serve"], env={**os.environ, **env}
    )


def test_two_stdio_clients_share_one_daemon_each_as_its_own_tenant(place: DaemonPlace) -> None:
    async def run() -> None:
        async with Client(serve()) as mine, Client(serve(MEMWARDEN_TENANT="acme")) as theirs:
            names = [t.name for t in (await mine.list_tools()).tools]
            assert names[:4] == ["memory_add", "memory_search", "memory_update", "memory_delete"]
            added = await mine.call_tool("memory_add", {"content": "Standup moved to 9:30 on Mondays"})
            assert not added.is_error
            assert (await theirs.call_tool("memory_search", {"query": "standup"})).structured_content[
                "hits"
            ] == []
            found = await mine.call_tool("memory_search", {"query": "standup"})
            assert found.structured_content["hits"][0]["id"] == added.structured_content["id"]
            bad = await theirs.call_tool("memory_add", {"content": ""})
            assert bad.is_error
            with DaemonClient.attach(place, load_hot_settings()) as probe:
                assert probe.call("ping")["clients"] == 3  # both sessions and this probe: one process

    anyio.run(run)


def test_a_client_with_other_settings_is_served_in_its_own_process(
    place: DaemonPlace, tmp_path: Path
) -> None:
    async def run() -> None:
        async with Client(serve()) as shared:
            await shared.call_tool("memory_add", {"content": "kept in the shared database"})
            other_db = str(tmp_path / "other.db")
            async with Client(serve(MEMWARDEN_DB=other_db)) as alone:
                result = await alone.call_tool("memory_search", {"query": "shared"})
                assert result.structured_content["hits"] == []  # its own database, its own process

    anyio.run(run)
    log = Path(os.environ["MEMWARDEN_LOG_FILE"]).read_text(encoding="utf-8")
    assert "serving in this process, not the shared daemon" in log and "MEMWARDEN_DB" in log


def test_only_mode_fails_rather_than_serve_alone(place: DaemonPlace, tmp_path: Path) -> None:
    with _started(place):  # a daemon on the test's database; this client names another one
        done = subprocess.run(
            [sys.executable, "-m", "memwarden", "serve"],
            input="",
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "MEMWARDEN_DAEMON": "only", "MEMWARDEN_DB": str(tmp_path / "x.db")},
        )
    assert done.returncode == 1
    assert "MEMWARDEN_DAEMON=only" in done.stderr and "MEMWARDEN_DB" in done.stderr


def _started(place: DaemonPlace) -> DaemonClient:
    from memwarden.daemon.launch import attach_or_start

    return attach_or_start(place, load_hot_settings())


def test_cli_search_and_add_go_through_the_daemon_and_say_so(place: DaemonPlace) -> None:
    def cli(*argv: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "memwarden", *argv],
            capture_output=True,
            text=True,
            env={**os.environ, **env},
            timeout=120,
            check=False,
        )

    # No daemon up: the CLI works in its own process, by keywords.
    added = cli("add", "Invoices go out on the first Monday", "--json")
    assert added.returncode == 0, added.stderr
    alone = json.loads(cli("search", "invoices", "--json").stdout)
    assert alone["via"] == "process" and alone["count"] == 1
    with _started(place):
        shared = json.loads(cli("search", "invoices", "--json").stdout)
        assert shared["via"] == "daemon" and [h["id"] for h in shared["hits"]] == [
            h["id"] for h in alone["hits"]
        ]
        text = cli("search", "invoices")
        # Said on stderr: stdout prints the same lines whichever process answered (docs/daemon.md).
        assert "memwarden daemon" in text.stderr and "memwarden daemon" not in text.stdout
        assert "Invoices go out on the first Monday" in text.stdout
        second = json.loads(cli("add", "Payroll runs on the 25th", "--json").stdout)
        assert json.loads(cli("search", "payroll", "--json").stdout)["hits"][0]["id"] == second["id"]
        bad = cli("add", "   ")
        assert bad.returncode == 1 and "content" in bad.stderr
        assert cli("search", "x", "--limit", "0").returncode == 1


def test_daemon_off_never_attaches(place: DaemonPlace) -> None:
    with _started(place) as client:
        found = subprocess.run(
            [sys.executable, "-m", "memwarden", "search", "x", "--json"],
            capture_output=True,
            text=True,
            env={**os.environ, "MEMWARDEN_DAEMON": "off"},
            timeout=60,
            check=True,
        )
        assert json.loads(found.stdout)["via"] == "process"
        assert client.call("ping")["clients"] == 1


def test_serving_through_the_daemon_writes_the_start_up_line(place: DaemonPlace) -> None:
    with _started(place):
        done = subprocess.run(
            [sys.executable, "-m", "memwarden", "serve"],
            input="",
            capture_output=True,
            text=True,
            timeout=120,
            env=dict(os.environ),
        )
    assert done.returncode == 0 and done.stdout == ""
    line = next(line for line in done.stderr.splitlines() if "serving MCP over stdio" in line)
    assert "through the shared daemon" in line and f"database {os.environ['MEMWARDEN_DB']}" in line
    assert "tools core" in line and f"log {os.environ['MEMWARDEN_LOG_FILE']}" in line


def test_cli_add_and_search_through_the_daemon_carry_context_thread_and_occurred_at(
    place: DaemonPlace,
) -> None:
    def cli(*argv: str, daemon: str = "only") -> subprocess.CompletedProcess[str]:
        # MEMWARDEN_DAEMON=only: the command fails rather than work in its own process, so a
        # success went through the daemon.
        return subprocess.run(
            [sys.executable, "-m", "memwarden", *argv],
            capture_output=True,
            text=True,
            env={**os.environ, "MEMWARDEN_DAEMON": daemon},
            timeout=120,
            check=False,
        )

    with _started(place) as client:
        added = cli(
            "add",
            "We chose Tuesday for the release train",
            "--context",
            "Which day suits the release train? Mail me at ana@example.com",
            "--thread",
            "planning-2026-11",
            "--occurred-at",
            "2026-11-03T09:30:00Z",
            "--json",
        )
        assert added.returncode == 0, added.stderr
        memory_id = json.loads(added.stdout)["id"]
        found = json.loads(cli("search", "release train", "--include-context", "--json").stdout)
        assert found["via"] == "daemon"
        hit = found["hits"][0]
        assert hit["id"] == memory_id
        assert hit["thread"] == "planning-2026-11"
        assert hit["occurred_at"].startswith("2026-11-03T09:30:00")
        # The context went through the daemon's intake: redacted like the content would be.
        assert hit["context"] == "Which day suits the release train? Mail me at [REDACTED:email]"
        plain = json.loads(cli("search", "release train", "--json").stdout)
        assert plain["via"] == "daemon" and "context" not in plain["hits"][0]
        shown = cli("search", "release train", "--include-context").stdout
        assert "context: Which day suits the release train?" in shown
        # Bad input through the daemon: a clear error, nothing stored, the daemon still up.
        bad = cli("add", "A memory from the future", "--occurred-at", "not a date")
        assert bad.returncode == 1 and "occurred_at" in bad.stderr
        with pytest.raises(MemwardenError, match="argument thread must be str or null"):
            client.call("add", {"content": "A memory with a numbered thread", "thread": 7})
        assert client.call("search", {"query": "future"})["hits"] == []
        assert client.call("search", {"query": "numbered"})["hits"] == []
    stored = json.loads(cli("get", memory_id, "--include-context", "--json", daemon="off").stdout)
    memory = stored["memories"][0]
    assert memory["thread"] == "planning-2026-11" and memory["context"].endswith("[REDACTED:email]")
