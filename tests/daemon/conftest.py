"""A real daemon process per test, in a runtime folder of its own (tests/conftest.py keeps every
other test off the daemon)."""

from __future__ import annotations

import json
import os
import signal
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memwarden.daemon.client import DaemonClient, DaemonUnavailable
from memwarden.daemon.launch import attach_or_start
from memwarden.daemon.place import DaemonPlace
from memwarden.settings_reader import HotSettings, load_hot_settings

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test here with the ``place`` fixture starts a real daemon process (seconds each):
    ``make test-fast`` leaves it to ``make test`` through the ``slow`` marker. The hook sees the
    whole session's items, hence the folder check."""
    for item in items:
        if HERE in item.path.parents and "place" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


def wait_until(check, timeout: float = 20.0, what: str = "condition") -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie child of this test process counts as gone
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        return True


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[DaemonPlace]:
    """The daemon's folder, and the environment every client and daemon of the test inherits."""
    runtime = tempfile.mkdtemp(prefix="mwd")  # short: a Unix socket path holds at most ~107 bytes
    monkeypatch.setenv("XDG_RUNTIME_DIR", runtime)
    monkeypatch.setenv("MEMWARDEN_DB", str(tmp_path / "memwarden.db"))
    monkeypatch.setenv("MEMWARDEN_LOG_FILE", str(tmp_path / "memwarden.log"))
    monkeypatch.setenv("MEMWARDEN_BACKUP_DIR", str(tmp_path / "backups"))
    monkeypatch.setenv("MEMWARDEN_DAEMON", "auto")
    monkeypatch.setenv("MEMWARDEN_DAEMON_IDLE_S", "120")
    where = DaemonPlace(Path(runtime) / "memwarden")
    yield where
    stop_daemon(where)


def stop_daemon(place: DaemonPlace) -> None:
    """Ask the test's daemon to stop; kill it (by its pid) if it does not within a bounded wait."""
    try:
        with DaemonClient.attach(place, load_hot_settings(), timeout=5) as client:
            pid = client.call("ping")["pid"]
            client.call("stop")
    except DaemonUnavailable:
        return  # nothing running
    try:
        wait_until(lambda: not alive(pid), timeout=15, what="the daemon to stop")
    except AssertionError:
        os.kill(pid, signal.SIGKILL)


@pytest.fixture
def settings() -> HotSettings:
    return load_hot_settings()


@pytest.fixture
def client(place: DaemonPlace, settings: HotSettings) -> Iterator[DaemonClient]:
    """A call-mode client of a freshly started daemon."""
    connection = attach_or_start(place, settings)
    yield connection
    connection.close()


def raw_exchange(place: DaemonPlace, *lines: bytes) -> list[dict[str, object]]:
    """Send raw bytes as one client and read every answer line until the daemon closes or goes quiet."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(15)
        sock.connect(str(place.socket_path))
        answers = []
        for line in lines:
            sock.sendall(line)
            answer = b""
            while not answer.endswith(b"\n"):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                answer += chunk
            if answer:
                answers.append(json.loads(answer))
        return answers
