"""Start the daemon, stay single, stop it: the parts that decide how many daemons there are.

Two clients that find no daemon at the same moment both start one; the lock file decides.
The daemon holds an exclusive lock on ``daemon.lock`` for its whole life: a second daemon that
cannot take it waits until the first answers on its socket and then exits quietly, or, if the
first is on its way out (idle), takes the lock when it is released. Each client keeps trying
to attach until its deadline, so both end up on the one daemon that won.
"""

from __future__ import annotations

import os
import sys
import time

from memwarden.daemon.client import AttachRefused, DaemonClient, DaemonUnavailable, _connect
from memwarden.daemon.place import DaemonPlace, default_transport
from memwarden.daemon.relay_log import get_logger
from memwarden.version import __version__

# Not typing's: a relay imports this module and stays resident for its client's whole session
# (docs/daemon.md, "The relay"); mypy reads it as True.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import subprocess
    from collections.abc import Callable
    from typing import IO, Any

    from memwarden.config import Settings

logger = get_logger(__name__)

START_TIMEOUT_S = 60.0  # a first start may migrate and back up the database before it listens
#: A started daemon takes the lock after its imports; past this, a free lock means it died.
RESPAWN_GRACE_S = 5.0
#: Daemons started again for one client before it gives up waiting (then the timeout decides).
RESPAWNS = 3
LOCK_WAIT_S = 60.0
STOP_WAIT_S = 20.0  # a stopping daemon drains its calls (server.DRAIN_S) and closes the store


class DaemonLock:
    """An exclusive, non-blocking lock on ``daemon.lock``, released when the process ends."""

    def __init__(self, place: DaemonPlace) -> None:
        self._file: IO[str] = open(place.lock_path, "a+", encoding="utf-8")  # noqa: SIM115 - held for life

    def try_acquire(self) -> bool:
        try:
            if sys.platform == "win32":
                import msvcrt

                self._file.seek(0)
                msvcrt.locking(self._file.fileno(), msvcrt.LK_NBLCK, 1)
            else:
                import fcntl

                fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        return True

    def release(self) -> None:
        self._file.close()  # closing the descriptor drops the lock on every platform


def wait_for_lock(lock: DaemonLock, place: DaemonPlace, timeout: float = LOCK_WAIT_S) -> bool:
    """True once this process holds the lock; False when another daemon is serving (or never let go)."""
    deadline = time.monotonic() + timeout
    while not lock.try_acquire():
        try:
            _connect(place, 0.5)[0].close()
            return False  # another daemon is up: the clients attach to it
        except DaemonUnavailable:
            pass  # it is still starting, or leaving: wait
        if time.monotonic() > deadline:
            logger.warning(
                "another memwarden daemon holds %s but does not answer; not starting", place.lock_path
            )
            return False
        time.sleep(0.05)
    return True


def run_daemon(
    settings: Settings,
    place: DaemonPlace,
    *,
    transport: str | None = None,
    version: str | None = None,
    dashboard: Callable[..., Any] | None = None,
    mcp_first: bool = False,
) -> int:
    """Be the daemon for ``place`` unless another one is: build the service, serve, clean up."""
    import anyio

    from memwarden.app import build_server_service
    from memwarden.daemon.server import Daemon

    place.prepare()
    lock = DaemonLock(place)
    try:
        if not wait_for_lock(lock, place):
            return 0
        service = build_server_service(settings)
        try:
            daemon = Daemon(
                service,
                settings,
                place,
                transport=transport or default_transport(),
                version=version or __version__,
                dashboard=dashboard,
                mcp_first=mcp_first,
            )
            anyio.run(daemon.run)
        finally:
            place.remove_files()
            service.close()
    finally:
        lock.release()
    return 0


def daemon_command(*, detach: bool, transport: str | None = None, for_mcp: bool = False) -> list[str]:
    command = [sys.executable, "-m", "memwarden.daemon", "--db", "-"]
    if transport:
        command += ["--transport", transport]
    if for_mcp:
        command += ["--for-mcp"]
    return command + (["--detach"] if detach else [])


def start_process(command: list[str], database: str) -> subprocess.Popen[bytes]:
    """Start ``command`` in its own session without stdio, the database on its stdin.

    The database goes through a pipe, not the command line, where ``ps`` would show a
    PostgreSQL URL's password; everything else is the inherited environment.
    """
    import subprocess  # here: a relay attaching to a running daemon starts nothing

    options: dict[str, Any] = {}
    if sys.platform == "win32":
        options["creationflags"] = subprocess.CREATE_NEW_PROCESS_GROUP | subprocess.DETACHED_PROCESS
    else:
        options["start_new_session"] = True
    child = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        close_fds=True,
        **options,
    )
    assert child.stdin is not None
    try:
        with child.stdin:
            child.stdin.write(database.encode("utf-8") + b"\n")
    except BrokenPipeError:
        pass  # the child is gone already (killed at once): its exit status tells the caller
    return child


def spawn_daemon(database: str, *, transport: str | None = None, for_mcp: bool = False) -> None:
    """Start the daemon detached: a short-lived launcher starts it and exits (so the daemon is
    nobody's child here, and no client is left to reap it)."""
    import subprocess

    launcher = start_process(daemon_command(detach=True, transport=transport, for_mcp=for_mcp), database)
    try:
        code = launcher.wait(timeout=30)
    except subprocess.TimeoutExpired:
        launcher.kill()
        launcher.wait()
        raise DaemonUnavailable("the memwarden daemon launcher did not finish") from None
    if code != 0:
        raise DaemonUnavailable(f"the memwarden daemon launcher failed (exit {code})")


def attach_running(place: DaemonPlace, settings: Any, **attach: Any) -> DaemonClient | None:
    """The running daemon, attached; None when none answers (or an older release's was stopped
    to make way for this one's). AttachRefused when it refuses these settings."""
    try:
        return DaemonClient.attach(place, settings, timeout=5.0, **attach)
    except AttachRefused as exc:
        if not replace_older_daemon(exc):
            raise
    except DaemonUnavailable:
        pass
    return None


def attach_or_start(
    place: DaemonPlace,
    settings: Any,
    *,
    mode: str = "call",
    tools: str = "core",
    server_settings: bool = False,
    timeout: float = START_TIMEOUT_S,
    transport: str | None = None,
) -> DaemonClient:
    """Attach to the running daemon, starting one first if none answers.

    AttachRefused when the daemon refuses these settings (the caller decides whether to work
    in-process); DaemonUnavailable when no daemon could be started within ``timeout``.
    """
    attach: dict[str, Any] = {"mode": mode, "tools": tools, "server_settings": server_settings}
    # Two stats first: with neither file there, no daemon answers, and trying would import the
    # loopback fallback's socket machinery into a relay for nothing.
    running = attach_running(place, settings, **attach) if place.may_be_up() else None
    if running is not None:
        return running
    place.prepare()
    database = database_argument(settings)
    deadline = time.monotonic() + timeout
    spawned, respawns, probed = time.monotonic(), 0, 0.0
    # A launcher that failed (its daemon killed before it was handed the database, say) is
    # retried at once, within the same bound on starts; when every start failed so, the call
    # fails with the launcher's reason.
    failed = _spawn_failure(database, transport, mode)
    if failed:
        spawned -= RESPAWN_GRACE_S
    while True:
        try:
            if not place.may_be_up():
                # Not listening yet: no attempt, which would try the loopback port of daemon.json
                # and import the socket module into a relay for nothing.
                raise DaemonUnavailable("the daemon has not created its socket yet")
            return DaemonClient.attach(place, settings, timeout=5.0, **attach)
        except AttachRefused:
            raise
        except DaemonUnavailable as exc:
            if time.monotonic() > deadline:
                raise DaemonUnavailable(
                    f"no memwarden daemon answered within {timeout:.0f} s ({exc}); see {settings.log_path()}"
                ) from None
            # The daemon started here died before it listened (killed, crashed): nobody holds
            # the daemon lock any more. Start another rather than wait out the whole timeout.
            if failed and respawns >= RESPAWNS:
                raise DaemonUnavailable(failed) from None
            now = time.monotonic()
            if now - spawned > RESPAWN_GRACE_S and now - probed > 1.0 and respawns < RESPAWNS:
                probed = now  # the lock file is opened once a second, not on every attach try
                if lock_is_free(place):
                    logger.warning(
                        "the memwarden daemon started for this client exited before it listened; "
                        "starting another"
                    )
                    spawned, respawns = time.monotonic(), respawns + 1
                    failed = _spawn_failure(database, transport, mode)
                    if failed:
                        spawned -= RESPAWN_GRACE_S
        time.sleep(0.05)


def _spawn_failure(database: str, transport: str | None, mode: str) -> str:
    """Start a daemon: "" when its launcher succeeded, else why not (logged)."""
    try:
        spawn_daemon(database, transport=transport, for_mcp=mode == "mcp")
    except DaemonUnavailable as exc:
        logger.warning("%s", exc)
        return str(exc)
    return ""


def lock_is_free(place: DaemonPlace) -> bool:
    """True when no daemon holds (or is starting with) the daemon lock: none is alive for ``place``."""
    probe = DaemonLock(place)
    try:
        return probe.try_acquire()
    finally:
        probe.release()


def database_argument(settings: Any) -> str:
    """The database as a started process reads it from its standard input: a resolved SQLite
    path (the child may run elsewhere) or the PostgreSQL URL."""
    from memwarden.settings_paths import is_postgres_url, sqlite_file_name

    url: str = settings.database_url()
    # os.path.realpath as Path.resolve() has it, without pathlib (and urllib.parse) in a relay.
    return url if is_postgres_url(url) else os.path.realpath(sqlite_file_name(url))


def release_key(version: str) -> tuple[int, ...]:
    """``0.10.2`` as (0, 10, 2), to tell which of two releases is newer (a suffix such as
    ``rc1`` counts for nothing: such a pair is taken as the same release, and left alone)."""
    parts = []
    for piece in version.split("."):
        digits = ""
        for char in piece:
            if not char.isdigit():
                break
            digits += char
        parts.append(int(digits or 0))
    while parts and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def replace_older_daemon(refusal: AttachRefused) -> bool:
    """Stop the daemon that refused this client for being an older memwarden; True once it has
    gone (the caller then starts this version's). A newer daemon is left alone: the older
    client serves in its own process, and two releases in use never take turns stopping each
    other."""
    theirs, pid = refusal.details.get("version"), refusal.details.get("pid")
    if refusal.code != "version_differs" or not isinstance(theirs, str) or not isinstance(pid, int):
        return False
    if release_key(theirs) >= release_key(__version__):
        return False
    logger.warning("replacing the memwarden %s daemon (pid %d) with memwarden %s", theirs, pid, __version__)
    if not terminate_daemon(pid):
        raise DaemonUnavailable(
            f"the memwarden {theirs} daemon (pid {pid}) did not stop within {STOP_WAIT_S:.0f} s"
        )
    return True


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive, and not ours to signal
    return True


def is_daemon_process(pid: int) -> bool:
    """Whether ``pid`` runs ``memwarden.daemon`` (read from /proc where there is one): a pid a
    daemon's answer named is checked before any signal goes to it."""
    if not os.path.isdir("/proc/self"):
        return pid_alive(pid)  # no /proc (macOS): the pid came over this user's private socket
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            return b"memwarden.daemon" in file.read()
    except OSError:
        return False


def terminate_daemon(pid: int, timeout: float = STOP_WAIT_S) -> bool:
    """SIGTERM to the daemon ``pid`` (it finishes its calls, closes the store, removes its socket),
    then wait until it has gone; False when it is still there after ``timeout`` seconds."""
    if not pid_alive(pid):
        return True
    if not is_daemon_process(pid):
        raise DaemonUnavailable(f"process {pid} is not a memwarden daemon; not signalling it")
    try:
        import signal  # only to stop a daemon

        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return True
    return wait_gone(pid, timeout)


def wait_gone(pid: int, timeout: float = STOP_WAIT_S) -> bool:
    deadline = time.monotonic() + timeout
    while pid_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True
