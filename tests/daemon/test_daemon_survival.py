"""An MCP client outlives the daemon: its relay finds or starts a new one and replays the session."""

from __future__ import annotations

import os
import signal
import sqlite3
import sys
import threading
import time
from pathlib import Path

import anyio
import pytest
from mcp import Client, MCPError, StdioServerParameters

from memwarden.daemon.client import DaemonClient, DaemonUnavailable
from memwarden.daemon.place import DaemonPlace
from memwarden.settings_reader import load_hot_settings

KILLS = 5


def _daemon_pid(place: DaemonPlace) -> int | None:
    try:
        with DaemonClient.attach(place, load_hot_settings(), timeout=2.0) as client:
            return int(client.info["pid"])
    except DaemonUnavailable:
        return None


def test_a_client_keeps_working_while_the_daemon_is_killed_five_times(place: DaemonPlace) -> None:
    acknowledged: list[str] = []
    restart_errors: list[str] = []
    killed: list[int] = []

    async def call(client: Client, tool: str, arguments: dict[str, object]) -> dict[str, object]:
        """One tool call; a request the daemon died under fails, naming the restart (a retry can
        meet the next kill too: the kills come faster than a daemon starts here)."""
        for _attempt in range(KILLS + 1):
            try:
                result = await client.call_tool(tool, arguments)
            except MCPError as exc:
                assert "daemon" in exc.message and "retry" in exc.message, exc.message
                assert exc.data == {"reason": "daemon_restarted", "retry": True}
                restart_errors.append(exc.message)
                continue
            assert not result.is_error, result
            assert result.structured_content is not None
            return result.structured_content
        raise AssertionError("unreachable")

    async def killer(first_pid: int) -> None:
        """Kill the daemon by its pid each time a new one serves, five times in all."""
        last = first_pid
        while len(killed) < KILLS:
            pid = await anyio.to_thread.run_sync(_daemon_pid, place)
            if pid is None or pid == last:
                await anyio.sleep(0.2)
                continue
            await anyio.sleep(0.3)  # let some calls run on this daemon, then kill it mid-stream
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
            last = pid

    async def run() -> None:
        server = StdioServerParameters(
            command=sys.executable, args=["-m", "memwarden", "serve"], env=dict(os.environ)
        )
        async with Client(server) as client:
            # The relay answers the handshake before the daemon it starts is up (docs/daemon.md
            # "Starting fast"): wait for that daemon, then kill it.
            with anyio.fail_after(60):
                while (first := _daemon_pid(place)) is None:
                    await anyio.sleep(0.05)
            os.kill(first, signal.SIGKILL)
            killed.append(first)
            with anyio.fail_after(240):
                async with anyio.create_task_group() as group:
                    group.start_soon(killer, first)
                    n = 0
                    while len(killed) < KILLS or n < 10:
                        n += 1
                        added = await call(
                            client, "memory_add", {"content": f"Deploy note number {n} for ops"}
                        )
                        acknowledged.append(str(added["id"]))
                        found = await call(client, "memory_search", {"query": f"deploy note {n}"})
                        assert isinstance(found["hits"], list)
            # Every call after the last kill succeeds on the first try.
            for n in range(3):
                result = await client.call_tool("memory_add", {"content": f"After the storm, note {n}"})
                assert not result.is_error
                acknowledged.append(str(result.structured_content["id"]))  # type: ignore[index]

    anyio.run(run)
    assert len(killed) == KILLS
    # One request at a time: each kill fails at most the one request in flight.
    assert len(restart_errors) <= KILLS
    database = Path(os.environ["MEMWARDEN_DB"])
    with sqlite3.connect(database) as connection:
        stored = {row[0] for row in connection.execute("SELECT id FROM memories")}
    assert set(acknowledged) <= stored, set(acknowledged) - stored


def _launched(entry: Path) -> bool:
    """True once the process's launcher has exited (its parent is no `--detach` launcher any
    more): the launcher reports a child that dies before that as a failed start."""
    try:
        parent = (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
        return b"--detach" not in Path(f"/proc/{parent}/cmdline").read_bytes()
    except (OSError, IndexError):
        return True


def _daemon_processes(runtime: str) -> list[int]:
    """Pids of `python -m memwarden.daemon` processes of this test's runtime folder."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        daemon = b"memwarden.daemon" in cmdline and b"--detach" not in cmdline  # not its launcher
        if daemon and f"XDG_RUNTIME_DIR={runtime}".encode() in environ.split(b"\0") and _launched(entry):
            found.append(int(entry.name))
    return found


def test_a_daemon_killed_before_it_listens_is_started_again_not_waited_for(place: DaemonPlace) -> None:
    """The daemon a call starts dies during its start-up: the caller starts another within
    seconds instead of waiting out the whole start timeout (60 s) for a dead process."""
    from memwarden.daemon.launch import START_TIMEOUT_S, attach_or_start

    runtime = os.environ["XDG_RUNTIME_DIR"]
    killed: list[int] = []

    def kill_the_first() -> None:
        deadline = time.monotonic() + 30
        while not killed and time.monotonic() < deadline:
            for pid in _daemon_processes(runtime):
                if not place.may_be_up():  # still starting: not listening yet
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
            time.sleep(0.005)

    hunter = threading.Thread(target=kill_the_first)
    hunter.start()
    started = time.monotonic()
    client = attach_or_start(place, load_hot_settings())
    took = time.monotonic() - started
    hunter.join()
    try:
        assert killed, "the test never saw the daemon starting"
        assert int(client.info["pid"]) not in killed
        assert took < START_TIMEOUT_S / 2, f"waited {took:.1f} s for a dead daemon"
    finally:
        client.close()


def _failing_launchers(monkeypatch: pytest.MonkeyPatch, failures: int) -> list[int]:
    """The first ``failures`` launchers exit 1 at once, as one whose daemon was killed before it
    was handed the database does; the later ones are the real launcher. Returns the exit codes
    asked for, one per start."""
    from memwarden.daemon import launch

    real = launch.daemon_command
    starts: list[int] = []

    def command(*, detach: bool, **options: object) -> list[str]:
        if detach and len(starts) < failures:
            starts.append(1)
            return [sys.executable, "-c", "import sys; sys.exit(1)"]
        starts.append(0)
        return real(detach=detach, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(launch, "daemon_command", command)
    return starts


def test_a_launcher_that_fails_is_tried_again_not_fatal(
    place: DaemonPlace, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memwarden.daemon.launch import RESPAWN_GRACE_S, attach_or_start

    starts = _failing_launchers(monkeypatch, failures=1)
    started = time.monotonic()
    client = attach_or_start(place, load_hot_settings())
    took = time.monotonic() - started
    try:
        assert starts[:2] == [1, 0], starts
        assert client.call("ping")["pid"]
        assert took < RESPAWN_GRACE_S + 20, f"took {took:.1f} s"
    finally:
        client.close()


def test_launchers_that_keep_failing_end_the_call_with_their_reason(
    place: DaemonPlace, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memwarden.daemon.launch import RESPAWNS, START_TIMEOUT_S, attach_or_start

    starts = _failing_launchers(monkeypatch, failures=100)
    started = time.monotonic()
    with pytest.raises(DaemonUnavailable, match=r"launcher failed \(exit 1\)"):
        attach_or_start(place, load_hot_settings())
    assert len(starts) == RESPAWNS + 1
    assert time.monotonic() - started < START_TIMEOUT_S / 4
