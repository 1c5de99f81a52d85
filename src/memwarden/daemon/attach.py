"""How the commands use the daemon, by ``MEMWARDEN_DAEMON``: ``auto`` (default), ``off``, ``only``.

- ``serve`` over stdio (``serve_through_daemon``): ``auto`` attaches, starting the daemon when
  none runs, and serves in its own process when the daemon refuses it or cannot start (the log
  says why); ``only`` fails instead; ``off`` never attaches.
- ``search``, ``add`` and the hooks (``call_daemon``): ``auto`` uses the daemon when it is up
  and never starts it (a one-shot command should not leave a process behind unasked);
  ``only`` starts it when needed and fails rather than work in-process.

Importing this module costs next to nothing; the socket client is imported when a daemon
is there to ask.
"""

from __future__ import annotations

import os
import sys

from memwarden.daemon.place import DaemonPlace
from memwarden.daemon.relay_log import get_logger, set_up_on_first_log
from memwarden.errors import ConfigError
from memwarden.settings_paths import default_runtime_dir_name

# Not typing's: a relay imports this module and stays resident for its client's whole session
# (docs/daemon.md, "The relay"); mypy reads it as True.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

logger = get_logger(__name__)


def daemon_place() -> DaemonPlace:
    return DaemonPlace(default_runtime_dir_name())


def log_file_name(settings: Any) -> str:
    """``settings.log_path()`` as a string, without importing pathlib (and urllib.parse) into a
    relay for one file name: the setting ``MEMWARDEN_LOG_FILE``, else ``memwarden.log`` in the
    data folder, as ``settings_paths.SettingsPaths.log_path`` has it."""
    return str(settings.log_file or os.path.join(settings.data_dir_name(), "memwarden.log"))


def log_relay(settings: Any) -> None:
    """Log to the log file and stderr as a server does, without the redacting filter
    (``app.configure_logging``) whose rules a relay would import and compile for nothing: a relay
    logs only its own lines (the daemon's state, a refusal naming settings), never what the
    client sent. Set up when the first line is logged (``relay_log.py``): most relays log none.
    A ``serve`` that ends up serving in its own process sets the full logging up."""

    def set_up() -> None:
        import logging

        handlers: list[logging.Handler] = [logging.StreamHandler()]
        try:
            path = log_file_name(settings)
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            handlers.append(logging.FileHandler(path, encoding="utf-8"))
        except OSError:
            pass
        logging.basicConfig(
            level=settings.log_level,
            format="%(asctime)s %(levelname)s %(name)s: %(message)s",
            handlers=handlers,
            force=True,
        )

    set_up_on_first_log(set_up)


def serve_through_daemon(settings: Any, *, tools: str) -> int | None:
    """Relay this process's stdio MCP session to the daemon; None means: serve in-process.

    A daemon that answers is attached at once. When none does, the relay starts one while it
    already reads the client: the handshake is answered from the answer the daemon gave last
    time (or the one shipped with the package, ``daemon/handshake.py``) and replayed to the
    daemon once it is up, so the client does not wait for the daemon's start.
    """
    if settings.daemon == "off":
        return None
    log_relay(settings)
    from memwarden.daemon.client import DaemonClient, DaemonUnavailable
    from memwarden.daemon.launch import attach_or_start, attach_running
    from memwarden.daemon.relay import relay_stdio

    place = daemon_place()
    attach: dict[str, Any] = {"mode": "mcp", "tools": tools, "server_settings": True}
    try:
        client = attach_running(place, settings, **attach) if place.may_be_up() else None
    except DaemonUnavailable as exc:  # refused these settings, or an older daemon would not stop
        if settings.daemon == "only":
            raise ConfigError(f"MEMWARDEN_DAEMON=only: {exc}") from None
        # When: the daemon refused these settings or could not be replaced. Why: a client must
        # get a server either way. What the client sees: a normal server in its own process (cold).
        logger.warning("serving in this process, not the shared daemon: %s", exc)
        return None

    def announce(attached: DaemonClient) -> None:
        if attached.info.get("own"):
            return  # a server of this client's own: the relay has said so already
        sys.stderr.write(
            f"memwarden {attached.info.get('version')}: serving MCP over stdio through the shared "
            f"daemon (pid {attached.info.get('pid')}, {place.folder}); database "
            f"{settings.database_url()}; embedder {settings.embedder} (in the daemon); tools {tools}; "
            f"log {log_file_name(settings)}; MEMWARDEN_DAEMON=off serves in this process\n"
        )
        sys.stderr.flush()

    def reconnect() -> DaemonClient:
        # No daemon (none yet, or it died under this client): find the one another client
        # started, or start it.
        return attach_or_start(place, settings, **attach)

    from memwarden.daemon.handshake import KeptAnswers

    # The daemon's answer to this client's handshake is saved for the next start either way.
    kept = KeptAnswers(settings.data_dir_name(), tools)
    if client is not None:
        announce(client)
        return relay_stdio(client, reconnect=reconnect, kept=kept)
    from memwarden.daemon.place import PlaceError

    try:
        place.prepare()  # a folder the daemon cannot use is found before the client is read
    except PlaceError as exc:
        if settings.daemon == "only":
            raise ConfigError(f"MEMWARDEN_DAEMON=only: {exc}") from None
        # When: the runtime folder is not this user's private folder. Why: no daemon may listen
        # there, and nothing of the client has been read yet. What the client sees: a normal
        # server in this process (cold), as when the daemon refuses it.
        logger.warning("serving in this process, not the shared daemon: %s", exc)
        return None
    own = (
        None
        if settings.daemon == "only" or os.name == "nt"
        else (lambda: serve_in_own_process(settings, tools))
    )
    return relay_stdio(
        None, connect=reconnect, reconnect=reconnect, kept=kept, fallback=own, on_attached=announce
    )


def serve_in_own_process(settings: Any, tools: str) -> Any:
    """A connection to a server of this client's own (``daemon/own_process.py``) on a socket
    pair, which the relay replays the session to when no daemon could be had after all."""
    import _socket
    import subprocess

    from memwarden.daemon.client import DaemonClient
    from memwarden.daemon.launch import database_argument

    ours, theirs = _socket.socketpair()
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "memwarden.daemon.own_process", "--tools", tools],
            stdin=theirs.fileno(),
            stdout=theirs.fileno(),
            close_fds=True,
        )
    finally:
        theirs.close()
    ours.sendall(database_argument(settings).encode("utf-8") + b"\n")
    return DaemonClient(ours, {"pid": child.pid, "own": True}, bytearray())


def call_daemon(
    settings: Any, op: str, args: dict[str, Any], *, timeout: float, start: bool = True
) -> Any | None:
    """The daemon's answer to one call, or None when the command should work in its own process.

    A memwarden error from the daemon (bad input, say) is raised as in-process. With
    ``MEMWARDEN_DAEMON=only`` a daemon that cannot be reached is a ConfigError, never None, and
    one that is not running is started first (unless ``start=False``: the hooks never wait for
    a daemon to start).
    """
    if settings.daemon == "off":
        return None
    place = daemon_place()
    if settings.daemon == "auto" and not place.may_be_up():
        return None  # no daemon up: answered before the socket machinery is imported
    from memwarden.daemon.client import (
        AttachRefused,
        DaemonClient,
        DaemonForeign,
        DaemonLostMidCall,
        DaemonUnavailable,
    )

    def ask() -> Any:
        if settings.daemon == "only" and start:
            from memwarden.daemon.launch import attach_or_start

            client = attach_or_start(place, settings)
        else:
            client = DaemonClient.attach(place, settings, timeout=timeout)
        with client:
            return client.call(op, args, timeout=timeout)

    try:
        try:
            return ask()
        except DaemonLostMidCall as exc:
            # The daemon died during the call: ask once more (its successor, if a relay or an
            # ``only`` client starts one), then work in this process as for no daemon.
            logger.info("the daemon went away during %s (%s); asking once more", op, exc)
            return ask()
    except AttachRefused as exc:
        if settings.daemon == "only":
            raise ConfigError(f"MEMWARDEN_DAEMON=only: {exc}") from None
        logger.info("daemon not used: %s", exc)
        return None
    except DaemonForeign as exc:
        if settings.daemon == "only":
            raise ConfigError(f"MEMWARDEN_DAEMON=only: {exc}") from None
        # When: daemon.json names a port another user now holds (the daemon was killed). Why:
        # the token and the request must not reach them. What the caller sees: this line on
        # stderr (logging is not set up yet for these commands) and the work done in-process.
        logger.warning("not using the memwarden daemon: %s; working in this process", exc)
        return None
    except DaemonUnavailable as exc:
        if settings.daemon == "only":
            raise ConfigError(f"MEMWARDEN_DAEMON=only: {exc}") from None
        return None
