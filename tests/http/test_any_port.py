"""`memwarden serve --http HOST:0`: the kernel picks a free port, the server holds it from the
check to the serving, and the start-up line names it (tests read the port back from there)."""

from __future__ import annotations

import re
import socket
import subprocess
import time
from pathlib import Path

import httpx
from cli_runner import memwarden_command
from http_servers import stop_http_server


def _serve_on_port_zero(
    env: dict[str, str], host: str, log: Path
) -> tuple[subprocess.Popen[bytes], int, str]:
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            memwarden_command("serve", "--http", f"{host}:0"),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        said = log.read_text(encoding="utf-8", errors="replace")
        found = re.search(r"Streamable HTTP at http://(\S+):(\d+)/mcp", said)
        if found:
            return process, int(found.group(2)), found.group(1)
        assert process.poll() is None, said
        time.sleep(0.05)
    stop_http_server(process)
    raise AssertionError("no start-up line naming the port")


def test_port_zero_serves_on_the_port_the_start_line_names(cli_env: dict[str, str], tmp_path: Path) -> None:
    process, port, host = _serve_on_port_zero(cli_env, "127.0.0.1", tmp_path / "stderr")
    try:
        assert host == "127.0.0.1" and port > 0
        deadline = time.monotonic() + 30
        while True:
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        assert answer.status_code == 200 and answer.json()["status"] == "ok"
        # The port is held: a second server asked for it by number is refused in one line.
        taken = subprocess.run(
            memwarden_command("serve", "--http", f"127.0.0.1:{port}"),
            env=cli_env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert taken.returncode == 1 and f"port {port} on 127.0.0.1 is already in use" in taken.stderr
    finally:
        stop_http_server(process)


def test_port_zero_on_ipv6_loopback_names_the_port_in_brackets(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    process, port, host = _serve_on_port_zero(cli_env, "[::1]", tmp_path / "stderr")
    try:
        assert host == "[::1]" and port > 0
        with socket.create_connection(("::1", port), timeout=10):
            pass  # the kernel's port, on the IPv6 loopback
    finally:
        stop_http_server(process)
