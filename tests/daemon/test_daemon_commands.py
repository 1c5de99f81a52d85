"""``memwarden daemon status|stop|restart``, SIGTERM, and a daemon of another version replaced."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import anyio
import pytest
from conftest import alive, wait_until
from mcp import Client, StdioServerParameters

from memwarden.daemon.client import DaemonClient
from memwarden.daemon.place import DaemonPlace
from memwarden.version import __version__


def memwarden(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memwarden", *argv], capture_output=True, text=True, timeout=120, check=False
    )


def status_json() -> dict[str, object]:
    answer = memwarden("daemon", "status", "--json")
    return dict(json.loads(answer.stdout))


def start_posing_as(version: str, place: DaemonPlace) -> int:
    """A real daemon that reports (and requires of its clients) another memwarden version."""
    subprocess.run(
        [sys.executable, "-m", "memwarden.daemon", "--db", "-", "--detach", "--as-version", version],
        input=os.environ["MEMWARDEN_DB"] + "\n",
        text=True,
        timeout=60,
        check=True,
    )
    wait_until(lambda: status_json().get("version") == version, timeout=60, what="the posing daemon")
    pid = status_json()["pid"]
    assert isinstance(pid, int)
    return pid


def test_status_with_no_daemon_says_not_running_and_exits_3(place: DaemonPlace) -> None:
    answer = memwarden("daemon", "status")
    assert answer.returncode == 3
    assert answer.stdout == "memwarden daemon: not running\n"
    as_json = memwarden("daemon", "status", "--json")
    assert as_json.returncode == 3
    assert json.loads(as_json.stdout)["running"] is False


def test_status_reports_pid_version_socket_uptime_clients_and_model(
    place: DaemonPlace, client: DaemonClient
) -> None:
    status = status_json()
    assert status["running"] is True
    assert status["pid"] == client.info["pid"]
    assert status["version"] == __version__
    assert status["socket"] == str(place.socket_path)
    assert isinstance(status["uptime_s"], float)
    assert status["clients"] == 1  # the fixture's connection, not the status call itself
    assert status["model"] == {"embedder": "none", "name": None, "state": "off", "loaded": False}
    text = memwarden("daemon", "status")
    assert text.returncode == 0
    assert text.stdout.startswith(
        f"memwarden daemon: running (pid {client.info['pid']}, memwarden {__version__})"
    )
    assert "  clients  1\n" in text.stdout
    assert "  model    none" in text.stdout


def test_stop_ends_the_daemon_and_removes_its_socket(place: DaemonPlace, client: DaemonClient) -> None:
    pid = client.info["pid"]
    client.close()
    answer = memwarden("daemon", "stop")
    assert (answer.returncode, answer.stdout) == (0, f"memwarden daemon: stopped (pid {pid})\n")
    assert not alive(pid)
    assert not place.socket_path.exists()
    again = memwarden("daemon", "stop", "--json")
    assert again.returncode == 0
    assert json.loads(again.stdout) == {"stopped": None, "pid": None}


def test_restart_replaces_the_daemon_with_a_new_process(place: DaemonPlace, client: DaemonClient) -> None:
    old = client.info["pid"]
    client.close()
    answer = memwarden("daemon", "restart", "--json")
    assert answer.returncode == 0, answer.stderr
    body = json.loads(answer.stdout)
    assert body["stopped"] is True and body["pid"] == old
    assert body["started"] != old and alive(body["started"])
    assert not alive(old)
    assert status_json()["pid"] == body["started"]


def test_an_unknown_subcommand_is_one_line_and_exit_2(place: DaemonPlace) -> None:
    answer = memwarden("daemon", "reboot")
    assert answer.returncode == 2
    assert answer.stderr == "memwarden daemon: unknown subcommand 'reboot'; use status, stop or restart\n"


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_and_sigint_stop_the_daemon_gracefully(
    place: DaemonPlace, client: DaemonClient, number: signal.Signals
) -> None:
    pid = client.info["pid"]
    assert client.call("add", {"content": "Rotate the staging keys every quarter"})["id"]
    os.kill(pid, number)
    wait_until(lambda: not alive(pid), timeout=30, what=f"the daemon to leave on {number.name}")
    assert not place.socket_path.exists()
    # The store was closed: SQLite removes the write-ahead log when its last connection closes.
    assert not os.path.exists(os.environ["MEMWARDEN_DB"] + "-wal")
    assert os.path.exists(os.environ["MEMWARDEN_DB"])
    assert memwarden("daemon", "status").returncode == 3


def _serve_one_search() -> list[object]:
    async def run() -> list[object]:
        server = StdioServerParameters(
            command=sys.executable, args=["-m", "memwarden", "serve"], env=dict(os.environ)
        )
        async with Client(server) as mcp:
            added = await mcp.call_tool("memory_add", {"content": "The release train leaves on Thursdays"})
            assert not added.is_error
            found = await mcp.call_tool("memory_search", {"query": "release train"})
            assert found.structured_content is not None
            return list(found.structured_content["hits"])

    return anyio.run(run)


def test_a_daemon_of_an_older_version_is_replaced_by_the_first_new_client(place: DaemonPlace) -> None:
    old = start_posing_as("0.0.1", place)
    status = status_json()
    assert status["running"] is True and status["version"] == "0.0.1"
    assert "0.0.1" in str(status["note"])
    assert len(_serve_one_search()) == 1
    assert not alive(old)
    status = status_json()
    assert status["version"] == __version__ and status["pid"] != old


def test_a_daemon_of_a_newer_version_is_left_alone_and_stop_still_ends_it(place: DaemonPlace) -> None:
    newer = start_posing_as("99.0.0", place)
    assert len(_serve_one_search()) == 1  # served in the client's own process
    assert alive(newer)
    answer = memwarden("daemon", "stop")
    assert (answer.returncode, answer.stdout) == (0, f"memwarden daemon: stopped (pid {newer})\n")
    assert not alive(newer)


def test_a_stopped_daemon_stays_stopped_until_an_attached_client_needs_it(place: DaemonPlace) -> None:
    async def run() -> None:
        server = StdioServerParameters(
            command=sys.executable, args=["-m", "memwarden", "serve"], env=dict(os.environ)
        )
        async with Client(server) as mcp:
            assert not (await mcp.call_tool("memory_add", {"content": "Invoices go out on the 3rd"})).is_error
            first = status_json()["pid"]
            stopped = await anyio.to_thread.run_sync(memwarden, "daemon", "stop")
            assert stopped.returncode == 0, stopped.stderr
            assert (await anyio.to_thread.run_sync(memwarden, "daemon", "status")).returncode == 3
            found = await mcp.call_tool("memory_search", {"query": "invoices"})
            assert not found.is_error and found.structured_content is not None
            assert len(found.structured_content["hits"]) == 1
            assert status_json()["pid"] != first

    anyio.run(run)
