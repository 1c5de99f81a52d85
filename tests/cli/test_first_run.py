"""What a new user meets first: `make run`, the server's start-up line, its first refusals."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def _serve(cli_env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memwarden", "serve", *args],
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_run_stdout_starts_with_the_servers_first_json_rpc_line(cli_env: dict[str, str]) -> None:
    # The venv the tests run in is the one `make run` uses (VENV=its prefix): no install here.
    venv = Path(sys.prefix)
    with subprocess.Popen(
        ["make", "--no-print-directory", "-C", str(ROOT), "run", f"VENV={venv}"],
        env=cli_env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        _talk(process)


def _talk(process: subprocess.Popen[str]) -> None:
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(INIT) + "\n")
        process.stdin.flush()
        first = process.stdout.readline()
        answer = json.loads(first)  # the very first line is JSON-RPC: no recipe echo, no pip output
        assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "memwarden"
        process.stdin.close()
        assert process.wait(timeout=30) == 0
        assert process.stdout.read() == ""
        assert process.stderr is not None
        assert "serving MCP over stdio" in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_make_run_installs_the_runtime_only_and_make_test_the_test_extras() -> None:
    makefile = (ROOT / "Makefile").read_text()
    dry = subprocess.run(
        ["make", "-n", "-C", str(ROOT), "run", "VENV=/nonexistent-venv"],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "MAKEFLAGS": ""},
    )
    assert "pip install --quiet -e . >&2" in dry.stdout and "[test]" not in dry.stdout
    dry_test = subprocess.run(
        ["make", "-n", "-C", str(ROOT), "test", "VENV=/nonexistent-venv"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert "-e '.[test]' >&2" in dry_test.stdout
    assert "\t$(BIN)/memwarden serve" not in makefile  # the recipe line is silenced with @


def test_stdio_server_writes_its_start_up_line_on_stderr(cli_env: dict[str, str], db_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "memwarden", "serve"],
        env=cli_env,
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0 and result.stdout == ""
    line = next(line for line in result.stderr.splitlines() if "serving MCP" in line)
    assert "over stdio" in line and f"database {db_path.resolve()}" in line
    assert "embedder none (keyword search only)" in line and "tools core" in line
    assert f"log {cli_env['MEMWARDEN_LOG_FILE']}" in line


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_http_server_start_up_line_names_the_address(cli_env: dict[str, str]) -> None:
    port = _free_port()
    with subprocess.Popen(
        [sys.executable, "-m", "memwarden", "serve", "--http", f"127.0.0.1:{port}"],
        env={**cli_env, "MEMWARDEN_TOOLS": "all"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        try:
            assert process.stderr is not None
            line = process.stderr.readline()
            assert f"serving MCP over Streamable HTTP at http://127.0.0.1:{port}/mcp" in line, line
            assert "tools all" in line
        finally:
            process.terminate()
            process.wait(timeout=15)


def test_a_port_in_use_is_one_clear_line(cli_env: dict[str, str], db_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = _serve(cli_env, "--http", f"127.0.0.1:{port}")
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"memwarden: port {port} on 127.0.0.1 is already in use (another memwarden serve?): stop that "
        f"process or choose another port, e.g. --http 127.0.0.1:{port + 1}"
    ]
    assert "Traceback" not in result.stderr and not db_path.exists()


@pytest.mark.parametrize("address", ["localhost", "localhost:", "127.0.0.1:99999", ":8765"])
def test_an_address_without_a_port_names_the_expected_form(cli_env: dict[str, str], address: str) -> None:
    result = _serve(cli_env, "--http", address)
    assert result.returncode == 1
    assert f"--http / MEMWARDEN_HTTP {address!r} is not HOST:PORT" in result.stderr
    assert "127.0.0.1:8765" in result.stderr and len(result.stderr.strip().splitlines()) == 1


READ_COMMANDS = [
    ["search", "foo"],
    ["get", "01ABC"],
    ["list"],
    ["stats"],
    ["export"],
    ["review"],
    ["health"],
    ["delete", "01ABC"],
    ["update", "01ABC", "--content", "x"],
    ["audit", "verify"],
    ["vacuum"],
    ["backup"],
]


@pytest.mark.parametrize("command", READ_COMMANDS, ids=lambda c: " ".join(c))
def test_a_read_command_on_a_mistyped_database_path_says_so_and_creates_nothing(
    cli_env: dict[str, str], tmp_path: Path, command: list[str]
) -> None:
    typo = tmp_path / "typo" / "x.db"
    result = subprocess.run(
        [sys.executable, "-m", "memwarden", "--db", str(typo), *command],
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"memwarden: no database at {typo} (from --db): check the path; "
        "`memwarden add` or `memwarden serve` creates a new one"
    ]
    assert not typo.parent.exists()


def test_missing_database_from_the_environment_is_named_as_such(
    cli_env: dict[str, str], db_path: Path
) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "memwarden", "search", "foo"],
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1 and f"no database at {db_path} (from MEMWARDEN_DB)" in result.stderr
    assert not db_path.exists()


def test_writes_still_create_the_database(cli_env: dict[str, str], tmp_path: Path) -> None:
    fresh = tmp_path / "new" / "m.db"
    added = subprocess.run(
        [sys.executable, "-m", "memwarden", "--db", str(fresh), "add", "first memory"],
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert added.returncode == 0 and fresh.is_file()
    found = subprocess.run(
        [sys.executable, "-m", "memwarden", "--db", str(fresh), "search", "first"],
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert found.returncode == 0 and "first memory" in found.stdout
