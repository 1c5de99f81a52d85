"""`memwarden serve` answers the MCP handshake before the daemon is up (docs/daemon.md "Starting
fast"): from the answer the daemon gave last time, or the one shipped with the package, then
replays it to the daemon and forwards what the client queued meanwhile.

Each test holds the daemon's lock (``daemon.lock``) while the client shakes hands: the daemon
``serve`` starts waits for it, so nothing can answer on the socket, and the handshake the client
gets was given by the relay alone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import wait_until
from mcp import Client, MCPError, StdioServerParameters

from memwarden.daemon.client import DaemonClient, DaemonUnavailable
from memwarden.daemon.handshake import SAVED_FILE, SHIPPED_FILE, KeptAnswers, read_answers
from memwarden.daemon.launch import DaemonLock
from memwarden.daemon.place import DaemonPlace
from memwarden.version import __version__

QUEUED_WAIT_S = 0.5  # how long a call must stay unanswered while the daemon cannot start


@contextmanager
def daemon_held_back(place: DaemonPlace) -> Iterator[DaemonLock]:
    """Hold the daemon's lock: a daemon started now waits (up to a minute) until it is released."""
    place.prepare()
    lock = DaemonLock(place)
    assert lock.try_acquire(), "a daemon already holds the lock"
    try:
        yield lock
    finally:
        lock.release()


def daemon_answers(place: DaemonPlace, settings: Any) -> bool:
    try:
        DaemonClient.attach(place, settings, timeout=1.0).close()
    except DaemonUnavailable:
        return False
    return True


async def handshake_then_add(
    place: DaemonPlace, settings: Any, *, mode: str = "auto"
) -> tuple[str | None, dict[str, Any], int]:
    """Shake hands while the daemon is held back, queue a memory_add, then let the daemon start:
    (the instructions the client got, the add's result, hits of a search for it)."""
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "memwarden", "serve"], env=dict(os.environ)
    )
    results: dict[str, Any] = {}
    with daemon_held_back(place) as lock:
        async with Client(server, mode=mode) as client:  # type: ignore[arg-type]  # "auto" | "legacy"
            assert not daemon_answers(place, settings)  # the relay answered alone
            instructions = client.instructions

            async def add() -> None:
                results["add"] = await client.call_tool(
                    "memory_add", {"content": "Release notes go to the ops channel"}
                )

            async with anyio.create_task_group() as group:
                group.start_soon(add)
                await anyio.sleep(QUEUED_WAIT_S)
                assert "add" not in results  # queued in the relay until a daemon has the session
                lock.release()  # the daemon `serve` started takes the lock and comes up
            found = await client.call_tool("memory_search", {"query": "release notes"})
    added = results["add"]
    assert not added.is_error, added
    assert found.structured_content is not None
    return instructions, added.structured_content, len(found.structured_content["hits"])


@pytest.mark.parametrize("mode", ["auto", "legacy"])  # server/discover (2026), initialize
def test_the_handshake_is_answered_before_the_daemon_is_up_then_tools_work(
    place: DaemonPlace, settings: Any, tmp_path: Path, mode: str
) -> None:
    instructions, added, hits = anyio.run(lambda: handshake_then_add(place, settings, mode=mode))
    assert instructions is not None and instructions.startswith("memwarden is long-term memory")
    assert added["duplicate"] is False and hits == 1
    # The daemon's answer to the replayed handshake is saved beside the database for next time.
    saved = read_answers(str(tmp_path / SAVED_FILE))
    assert saved and all(key.startswith(f"memwarden={__version__} ") for key in saved)
    assert all(result.get("instructions") == instructions for result in saved.values())


def _planted(tmp_path: Path, entries: dict[str, dict[str, Any]]) -> Path:
    path = tmp_path / SAVED_FILE
    path.write_text(json.dumps({"format": 1, "answers": entries}), encoding="utf-8")
    return path


def _shipped_for(profile: str) -> dict[str, dict[str, Any]]:
    """The shipped answers of this install for ``profile`` (every handshake the SDK negotiates)."""
    kept = KeptAnswers(".", profile)
    assert kept.releases is not None
    return {
        key: result
        for key, result in read_answers(SHIPPED_FILE).items()
        if key.startswith(f"{kept.releases} tools={profile} ")
    }


def test_a_saved_answer_of_another_version_or_profile_is_never_served(
    place: DaemonPlace, settings: Any, tmp_path: Path
) -> None:
    other_version, other_profile = {}, {}
    for key, result in _shipped_for("core").items():
        other_version[key.replace(f"memwarden={__version__} ", "memwarden=0.0.1 ")] = {
            **result,
            "instructions": "PLANTED for memwarden 0.0.1",
        }
    for key, result in _shipped_for("all").items():
        other_profile[key] = {**result, "instructions": "PLANTED for the all profile"}
    saved = _planted(tmp_path, {**other_version, **other_profile})
    instructions, _added, hits = anyio.run(lambda: handshake_then_add(place, settings))
    assert instructions is not None and "PLANTED" not in instructions and hits == 1
    # The daemon's own answer replaced the entries no client of this install can use.
    wait_until(lambda: "0.0.1" not in saved.read_text(encoding="utf-8"), what="the saved answers rewritten")
    assert all(key.startswith(f"memwarden={__version__} ") for key in read_answers(str(saved)))


def test_the_saved_answer_comes_first_and_the_daemons_answer_replaces_it(
    place: DaemonPlace, settings: Any, tmp_path: Path
) -> None:
    planted = {
        key: {**result, "instructions": "SAVED last time"} for key, result in _shipped_for("core").items()
    }
    saved = _planted(tmp_path, planted)
    instructions, _added, hits = anyio.run(lambda: handshake_then_add(place, settings))
    assert instructions == "SAVED last time" and hits == 1

    def planted_left() -> int:
        answers = read_answers(str(saved)).values()
        return sum(result.get("instructions") == "SAVED last time" for result in answers)

    # The entry of the handshake this client made now holds the daemon's answer; the others stay.
    wait_until(lambda: planted_left() == len(planted) - 1, what="the daemon's answer saved")


def test_a_corrupt_saved_file_is_ignored(place: DaemonPlace, settings: Any, tmp_path: Path) -> None:
    (tmp_path / SAVED_FILE).write_bytes(b'{"format": 1, "answers": {"x": ')
    assert read_answers(str(tmp_path / SAVED_FILE)) == {}
    instructions, _added, hits = anyio.run(lambda: handshake_then_add(place, settings))
    assert instructions is not None and instructions.startswith("memwarden is long-term memory") and hits == 1
    assert read_answers(str(tmp_path / SAVED_FILE))  # rewritten whole from the daemon's answer


@contextmanager
def newer_daemon_paused(place: DaemonPlace) -> Iterator[subprocess.Popen[bytes]]:
    """A daemon of a newer memwarden that holds the lock but is paused before it listens: a
    `serve` started now finds no daemon, answers the handshake and starts one, which waits for
    the lock. Resumed (SIGCONT), the newer daemon listens and refuses this release's clients."""
    place.prepare()
    newer = subprocess.Popen(
        [sys.executable, "-m", "memwarden.daemon", "--as-version", "99.0.0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def newer_holds_lock() -> bool:
        probe = DaemonLock(place)
        try:
            return not probe.try_acquire()
        finally:
            probe.release()  # closing the file drops the lock if this probe took it

    try:
        deadline = time.monotonic() + 60
        while not newer_holds_lock():
            assert time.monotonic() < deadline, "the newer daemon never took its lock"
            time.sleep(0.01)
        newer.send_signal(signal.SIGSTOP)
        assert not place.may_be_up(), "the newer daemon listened before it could be paused"
        yield newer
    finally:
        newer.send_signal(signal.SIGCONT)
        newer.terminate()
        newer.wait(timeout=30)


async def call_once_the_newer_daemon_refuses(newer: subprocess.Popen[bytes]) -> Any:
    """Shake hands (answered by the relay), resume the newer daemon, then call a tool: its result,
    or the MCPError it raised."""
    server = StdioServerParameters(
        command=sys.executable, args=["-m", "memwarden", "serve"], env=dict(os.environ)
    )
    async with Client(server) as client:
        newer.send_signal(signal.SIGCONT)
        try:
            added = await client.call_tool("memory_add", {"content": "Backups rotate every Sunday"})
        except MCPError as exc:
            return exc
        found = await client.call_tool("memory_search", {"query": "backups rotate"})
        assert found.structured_content is not None
        return added, len(found.structured_content["hits"])


def test_when_no_daemon_can_be_had_each_queued_request_gets_a_clear_error(
    place: DaemonPlace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MEMWARDEN_DAEMON=only: the queued call gets an error naming the refusal; serve exits 1."""
    monkeypatch.setenv("MEMWARDEN_DAEMON", "only")
    with newer_daemon_paused(place) as newer:
        error = anyio.run(call_once_the_newer_daemon_refuses, newer)
    assert isinstance(error, MCPError), error
    assert error.data == {"reason": "daemon_unavailable", "retry": False}
    assert "99.0.0" in error.message and "did not run" in error.message, error.message


def test_with_auto_a_client_answered_early_is_served_in_its_own_process_when_no_daemon_takes_it(
    place: DaemonPlace,
) -> None:
    """MEMWARDEN_DAEMON=auto: the session is replayed to a server of the client's own, as when
    `serve` waited for the daemon and then served in its own process."""
    with newer_daemon_paused(place) as newer:
        outcome = anyio.run(call_once_the_newer_daemon_refuses, newer)
    assert not isinstance(outcome, MCPError), outcome
    added, hits = outcome
    assert not added.is_error and hits == 1


def test_a_runtime_folder_others_can_open_is_refused_before_the_client_is_read(place: DaemonPlace) -> None:
    """No daemon may listen in a folder other users can open: `serve` finds that before it reads
    the client, so with MEMWARDEN_DAEMON=auto it serves in its own process from the first line."""
    os.makedirs(place.folder, mode=0o700, exist_ok=True)
    os.chmod(place.folder, 0o755)

    async def run() -> int:
        server = StdioServerParameters(
            command=sys.executable, args=["-m", "memwarden", "serve"], env=dict(os.environ)
        )
        async with Client(server) as client:
            await client.call_tool("memory_add", {"content": "Standups start at nine"})
            found = await client.call_tool("memory_search", {"query": "standups"})
            assert found.structured_content is not None
            return len(found.structured_content["hits"])

    assert anyio.run(run) == 1
    assert not place.may_be_up()  # served in its own process: no daemon was started
    log = Path(os.environ["MEMWARDEN_LOG_FILE"]).read_text(encoding="utf-8")
    assert "serving in this process, not the shared daemon" in log and "chmod 700" in log


def test_a_relay_that_starts_the_daemon_imports_no_heavy_module(place: DaemonPlace, tmp_path: Path) -> None:
    """The kept answers are read with the standard library: answering the handshake itself, the
    relay still imports neither the MCP SDK nor pydantic (tests/daemon/test_relay_footprint.py)."""
    from test_relay_footprint import HEAVY, INITIALIZE, RSS_BOUND_KB

    imports = tmp_path / "imports.txt"
    with imports.open("wb") as stderr:
        relay = subprocess.Popen(
            [sys.executable, "-X", "importtime", "-m", "memwarden", "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
        assert relay.stdin is not None and relay.stdout is not None
        try:
            relay.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
            relay.stdin.flush()
            answer = json.loads(relay.stdout.readline())
            assert answer["result"]["serverInfo"] == {"name": "memwarden", "version": __version__}
            relay.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
            relay.stdin.write(b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n')
            relay.stdin.flush()
            listed = json.loads(relay.stdout.readline())  # from the daemon, once it is up
            assert listed["id"] == 2 and {tool["name"] for tool in listed["result"]["tools"]} >= {
                "memory_add"
            }
            status = Path(f"/proc/{relay.pid}/status").read_text(encoding="utf-8")
            rss_kb = int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1])
        finally:
            relay.stdin.close()
            code = relay.wait(timeout=60)
            relay.stdout.close()
    assert code == 0
    imported = {
        line.rsplit("|", 1)[1].strip()
        for line in imports.read_text(encoding="utf-8").splitlines()
        if line.startswith("import time:")
    }
    assert sorted(name for name in imported if name.split(".")[0] in HEAVY) == []
    assert rss_kb < RSS_BOUND_KB, f"relay resident memory {rss_kb} kB"


def test_a_client_of_a_running_daemon_leaves_the_daemons_answer_saved(
    place: DaemonPlace, settings: Any, tmp_path: Path
) -> None:
    """With the daemon up, the handshake goes to it as before; its answer is saved all the same,
    so the next start without a daemon is answered from it."""
    from memwarden.daemon.launch import attach_or_start

    attach_or_start(place, settings).close()

    async def run() -> str | None:
        server = StdioServerParameters(
            command=sys.executable, args=["-m", "memwarden", "serve"], env=dict(os.environ)
        )
        async with Client(server, mode="legacy") as client:
            await client.list_tools()
            return client.instructions

    instructions = anyio.run(run)
    saved = read_answers(str(tmp_path / SAVED_FILE))
    assert [key.split()[-2] for key in saved] == ["initialize"]  # method, then the revision
    assert next(iter(saved.values()))["instructions"] == instructions
