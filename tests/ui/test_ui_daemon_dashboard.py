"""``memwarden ui`` with the daemon on: the user's daemon serves the dashboard (one process, one
model copy per user), a real Chromium logs in and reads a memory; a busy ``--port`` names the flag
``ui`` takes, with the daemon on and off."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ui_helpers import WAIT_MS

from memwarden.ui.launcher import read_state, state_path

pytestmark = pytest.mark.slow  # starts a real daemon


@pytest.fixture
def daemon_env(cli_env: dict[str, str], tmp_path: Path) -> Iterator[dict[str, str]]:
    runtime = tempfile.mkdtemp(prefix="mwu")  # short: a Unix socket path holds ~107 bytes
    env = {
        **cli_env,
        "XDG_RUNTIME_DIR": runtime,
        "MEMWARDEN_DAEMON": "auto",
        "MEMWARDEN_DAEMON_IDLE_S": "120",
    }
    yield env
    # The daemon's pid is in the dashboard's state file: SIGTERM stops it gracefully, and it
    # removes the state file on the way out. A daemon without a dashboard is stopped by hand.
    path = Path(runtime) / "memwarden" / state_path(env["MEMWARDEN_DB"], Path(".")).name
    server = read_state(path) if path.exists() else None
    if server is not None:
        os.kill(server.pid, signal.SIGTERM)
        deadline = time.monotonic() + 20
        while path.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not path.exists(), "the daemon left the dashboard's state file behind"
    stopped = _run(env, "daemon", "stop")
    assert stopped.returncode == 0, stopped.stderr


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memwarden", *args], env=env, capture_output=True, text=True, timeout=120
    )


def test_the_daemon_serves_the_dashboard_and_a_browser_reads_a_memory(
    daemon_env: dict[str, str], browser: Any
) -> None:
    added = _run(
        {**daemon_env, "MEMWARDEN_DAEMON": "off"}, "add", "The client prefers email over phone calls"
    )
    assert added.returncode == 0, added.stderr
    first = _run(daemon_env, "ui", "--no-browser")
    assert first.returncode == 0, first.stderr
    assert "served by the memwarden daemon" in first.stdout
    link = first.stdout.strip().rsplit(" ", 1)[-1]
    state = (
        Path(daemon_env["XDG_RUNTIME_DIR"])
        / "memwarden"
        / state_path(daemon_env["MEMWARDEN_DB"], Path(".")).name
    )
    server = read_state(state)
    assert server is not None and link.startswith(server.url)
    cmdline = Path(f"/proc/{server.pid}/cmdline").read_bytes()
    assert b"memwarden.daemon" in cmdline  # the daemon itself, not a `serve --http` of its own

    second = _run(daemon_env, "ui", "--no-browser")
    assert second.returncode == 0 and "reusing the running server" in second.stdout, second.stderr
    assert read_state(state) == server  # the same process, the same key

    page = browser.new_page()
    try:
        page.goto(link, timeout=WAIT_MS)
        assert "Overview" in page.content()
        page.goto(f"{server.url}/ui/memories", timeout=WAIT_MS)
        assert "prefers email over phone calls" in page.content()
    finally:
        page.close()
    # A search through the same daemon (the CLI asks it when it is up) sees the same database.
    found = _run(daemon_env, "search", "email")
    assert found.returncode == 0 and "prefers email" in found.stdout, found.stderr


@pytest.mark.parametrize("daemon", ["off", "auto"])
def test_ui_on_a_busy_port_suggests_the_port_flag_ui_takes(daemon_env: dict[str, str], daemon: str) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen(1)
        port = holder.getsockname()[1]
        done = _run({**daemon_env, "MEMWARDEN_DAEMON": daemon}, "ui", "--no-browser", "--port", str(port))
    assert done.returncode == 1, done.stdout
    assert f"port {port} on 127.0.0.1 is already in use" in done.stderr
    assert f"memwarden ui --port {port + 1}" in done.stderr and "--http" not in done.stderr
