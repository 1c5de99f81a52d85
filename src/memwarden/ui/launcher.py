"""How ``memwarden ui`` finds, or starts, a loopback server and gets a one-time login link.

A loopback HTTP server (``memwarden serve --http 127.0.0.1:PORT``) publishes its dashboard in
the user's private runtime folder (``settings_paths.default_runtime_dir``, mode 0700, the same
folder the daemon uses): ``ui-<database>.json`` holds its address, its pid and its *launcher
key*, created 0600 and removed when the server stops. Whoever can read that file (only this
user) can ask the server for a fresh one-time link (``POST /ui/ticket`` with the key in the
``x-memwarden-launcher`` header); nobody else can. The server also prints one link on stderr
at start when no token is configured, since that link is then the only way in.

``launch`` reuses the server of the file when it answers, else starts ``memwarden serve
--http`` on a free loopback port in the background (its stderr goes to ``ui-<database>.log``
in the same folder, 0600) and waits for it to publish. ``launch_in_daemon`` (the default,
``MEMWARDEN_DAEMON`` not ``off``) asks the user's daemon to serve the dashboard instead, so the
dashboard shares the one process and the one model copy of the user's other clients
(``daemon/dashboard.py``).

The link never goes on a command line (``/proc/<pid>/cmdline`` is readable by every local
user): ``open_in_browser`` writes it into a 0600 HTML file in the same private folder that sends
the browser on (``<meta http-equiv="refresh">``), opens that file's path, and removes the file
once the server says the ticket was used (``POST /ui/ticket/pending``), or after the ticket's
five minutes. Standard library only.
"""

from __future__ import annotations

import hashlib
import html
import http.client
import json
import logging
import os
import secrets
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from memwarden.errors import ConfigError
from memwarden.net import is_loopback
from memwarden.peer import foreign_server
from memwarden.settings_paths import default_runtime_dir, is_postgres_url, sqlite_path

logger = logging.getLogger(__name__)

LAUNCHER_HEADER = "x-memwarden-launcher"
START_TIMEOUT_S = 60.0
TICKET_LIFE_S = 300.0  # sessions.TICKET_TTL: how long a login file can be of any use
LOGIN_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0; url={link}"><title>memwarden: opening the dashboard</title></head>
<body><p>Opening the memwarden dashboard&hellip; If nothing happens, <a href="{link}">open it here</a>
(the link works once, within 5 minutes).</p></body></html>
"""


@dataclass(frozen=True)
class Published:
    """A running dashboard as its state file describes it."""

    url: str  # http://127.0.0.1:PORT
    key: str
    pid: int


@dataclass(frozen=True)
class Login:
    """A one-time login to a running dashboard: its server, the ticket, and whether the server
    was reused (True) or started (False)."""

    server: Published
    ticket: str
    reused: bool

    @property
    def link(self) -> str:
        return f"{self.server.url}/ui/login?ticket={self.ticket}"


def state_path(database: str, folder: Path | None = None) -> Path:
    """The state file of the server of ``database`` (one per database URL)."""
    if not is_postgres_url(database):
        database = str(sqlite_path(database).resolve())
    digest = hashlib.sha256(database.encode("utf-8")).hexdigest()[:16]
    return (folder or default_runtime_dir()) / f"ui-{digest}.json"


def _private_folder(folder: Path) -> None:
    """Create the folder 0700 if needed; ConfigError when it is not private to this user."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if os.name == "nt":
        return
    info = os.lstat(folder)
    if not stat.S_ISDIR(info.st_mode):
        raise ConfigError(
            f"{folder} is not a folder; memwarden will not keep a launcher key there: remove it, "
            "or set XDG_RUNTIME_DIR to a folder of your own (mode 700)"
        )
    if info.st_uid != os.getuid():
        # Without XDG_RUNTIME_DIR the folder is $TMPDIR/memwarden-<uid>, in a folder every user
        # may write to: someone else can make it first. chmod would not help (it is theirs).
        raise ConfigError(
            f"{folder} belongs to user id {info.st_uid}, not to this user (user id {os.getuid()}): "
            "another user created it first, so memwarden will not keep a launcher key there; "
            "set XDG_RUNTIME_DIR (or TMPDIR) to a folder of your own (mode 700), or have root "
            f"remove {folder}"
        )
    if info.st_mode & 0o077:
        raise ConfigError(
            f"{folder} is open to other users (mode {stat.S_IMODE(info.st_mode):o}); "
            f"memwarden will not keep a launcher key there: run chmod 700 {folder}"
        )


def write_state(path: Path, url: str, key: str) -> None:
    """The state file, created 0600 and moved into place whole."""
    _private_folder(path.parent)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump({"url": url, "key": key, "pid": os.getpid()}, out)
    os.replace(partial, path)


def read_state(path: Path) -> Published | None:
    """The published server, or None when there is no usable file. A file others can read is
    refused (ConfigError): its key may have leaked."""
    try:
        with open(path, encoding="utf-8") as file:
            if os.name != "nt":
                info = os.fstat(file.fileno())
                if info.st_uid != os.getuid() or info.st_mode & 0o077:
                    raise ConfigError(
                        f"{path} is readable by other users (mode {stat.S_IMODE(info.st_mode):o}): "
                        "its launcher key may have leaked; stop that server and delete the file"
                    )
            body = json.load(file)
    except FileNotFoundError:
        return None
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    url, key, pid = body.get("url"), body.get("key"), body.get("pid")
    if not isinstance(url, str) or not isinstance(key, str) or not key or not isinstance(pid, int):
        return None
    return Published(url, key, pid)


@contextmanager
def published(
    database: str, host: str, port: int, *, key: str, ticket: str | None, stream: TextIO | None = None
) -> Iterator[None]:
    """While a server runs: its state file (loopback servers only) and, when ``ticket`` is
    given (no token configured), the one-time link on stderr."""
    out = stream or sys.stderr
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}"
    if ticket is not None:
        out.write(f"dashboard: open {url}/ui/login?ticket={ticket} (works once, within 5 minutes)\n")
        out.flush()
    path = state_path(database) if is_loopback(host) else None
    if path is not None:
        write_state(path, url, key)
    # uvicorn re-raises SIGTERM after its graceful shutdown; with the default handler that ends
    # the process on the spot, so turn it into SystemExit for the file to be removed below.
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        yield
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        if path is not None:
            current = _read_quietly(path)
            if current is not None and current.pid == os.getpid():
                path.unlink(missing_ok=True)


def _exit_on_sigterm(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _read_quietly(path: Path) -> Published | None:
    try:
        return read_state(path)
    except ConfigError:
        return None


def _ask(server: Published, path: str, form: dict[str, str], timeout: float) -> dict[str, object] | None:
    """POST ``form`` to ``path`` with the launcher key; the JSON answer, or None.

    The key goes only to a server of this user (``peer.foreign_server``): a server that died
    without removing its state file leaves its port free, and another local user listening
    there would otherwise get the key and hand ``memwarden ui`` a link to a page of theirs,
    same-site with every dashboard on this host. Such a port counts as no answer (a new server
    is started), with a warning naming who holds it."""
    parts = urllib.parse.urlsplit(server.url)
    if parts.scheme != "http" or not parts.hostname or not is_loopback(parts.hostname):
        return None  # a state file names loopback servers only (``published``)
    connection = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=timeout)
    try:
        connection.connect()
        reason = foreign_server(connection.sock, "the launcher key")
        if reason is not None:
            logger.warning("not reusing the dashboard server of the state file: %s", reason)
            return None
        connection.request(
            "POST",
            path,
            body=urllib.parse.urlencode(form).encode(),
            headers={LAUNCHER_HEADER: server.key, "content-type": "application/x-www-form-urlencoded"},
        )
        answer = connection.getresponse()
        if answer.status != 200:
            return None
        body = json.loads(answer.read())
    except (OSError, ValueError, http.client.HTTPException):
        return None
    finally:
        connection.close()
    return body if isinstance(body, dict) else None


def ask_ticket(server: Published, timeout: float = 5.0) -> str | None:
    """A fresh one-time ticket from a running server, or None when it does not answer."""
    ticket = (_ask(server, "/ui/ticket", {}, timeout) or {}).get("ticket")
    return ticket if isinstance(ticket, str) else None


def ticket_pending(login: Login, timeout: float = 5.0) -> bool | None:
    """Whether the server would still take ``login``'s ticket; None when it does not answer."""
    answer = _ask(login.server, "/ui/ticket/pending", {"ticket": login.ticket}, timeout)
    pending = None if answer is None else answer.get("pending")
    return pending if isinstance(pending, bool) else None


def write_login_file(link: str, folder: Path | None = None) -> Path:
    """A new HTML file, 0600 in the private runtime folder, that sends a browser to ``link``."""
    folder = folder or default_runtime_dir()
    _private_folder(folder)
    path = folder / f"ui-login-{secrets.token_hex(8)}.html"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(LOGIN_PAGE.format(link=html.escape(link, quote=True)))
    return path


def open_in_browser(
    login: Login,
    opener: Callable[[str], bool],
    *,
    folder: Path | None = None,
    timeout: float = TICKET_LIFE_S,
    poll: float = 0.25,
    slow: Callable[[], None] | None = None,
    slow_after: float = 15.0,
) -> bool:
    """Open ``login`` in the browser through a login file (``write_login_file``): ``opener``
    (``webbrowser.open``) gets the file's ``file://`` address, never the link. Waits until the
    server says the ticket was used (or expired, or the server is gone), at most ``timeout``,
    then removes the file; ``slow`` is called once if that takes over ``slow_after`` seconds.
    False when ``opener`` could not open a browser (the file is removed at once)."""
    path = write_login_file(login.link, folder)
    try:
        if not opener(path.as_uri()):
            return False
        started = time.monotonic()
        while time.monotonic() - started < timeout and ticket_pending(login):
            if slow is not None and time.monotonic() - started >= slow_after:
                slow()
                slow = None
            time.sleep(poll)
        return True
    finally:
        path.unlink(missing_ok=True)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(database: str, port: int, log: Path) -> subprocess.Popen[bytes]:
    """``memwarden serve --http 127.0.0.1:PORT`` in the background, its stderr in ``log``."""
    _private_folder(log.parent)
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "memwarden", "--db", database, "serve", "--http", f"127.0.0.1:{port}"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=fd,
            close_fds=True,
            start_new_session=True,  # outlives `memwarden ui` and its terminal
        )
    finally:
        os.close(fd)


def busy_port_error(port: int) -> ConfigError:
    """What ``memwarden ui --port N`` says when N is taken: the flag ``ui`` takes, not ``--http``."""
    return ConfigError(
        f"port {port} on 127.0.0.1 is already in use: stop the process that holds it, or choose "
        f"another port with memwarden ui --port {port + 1 if port < 65535 else 8765} "
        "(or leave --port out for a free one)"
    )


def _reuse(path: Path) -> Login | None:
    current = read_state(path)
    if current is not None:
        ticket = ask_ticket(current)
        if ticket is not None:
            return Login(current, ticket, reused=True)
    return None


def launch_in_daemon(settings: object, *, port: int | None = None) -> Login | None:
    """A one-time login to the dashboard the user's daemon serves (started, with the daemon,
    when needed); None when the daemon cannot serve this client (``auto``: the caller starts a
    server of its own, as with the daemon off). A server already serving this database, the
    daemon's or another, is reused."""
    from memwarden.daemon.attach import daemon_place
    from memwarden.daemon.client import DaemonUnavailable
    from memwarden.daemon.launch import attach_or_start

    database: str = settings.database_url()  # type: ignore[attr-defined]
    reused = _reuse(state_path(database))
    if reused is not None:
        return reused
    try:
        client = attach_or_start(daemon_place(), settings)
        with client:
            answer = client.call("dashboard", {"port": port}, timeout=START_TIMEOUT_S)
    except DaemonUnavailable as exc:
        if settings.daemon == "only":  # type: ignore[attr-defined]
            raise ConfigError(f"MEMWARDEN_DAEMON=only: {exc}") from None
        # When: the daemon refused these settings or could not start. Why: the dashboard must
        # open either way. What the user sees: the dashboard of a server of its own, as before.
        logger.warning("dashboard not served by the daemon: %s", exc)
        return None
    server = Published(str(answer["url"]), str(answer["key"]), int(answer["pid"]))
    return Login(server, str(answer["ticket"]), reused=bool(answer["reused"]))


def launch(database: str, *, port: int | None = None, timeout: float = START_TIMEOUT_S) -> Login:
    """A one-time login to the dashboard of ``database``, on the server that serves it (reused)
    or on one started now."""
    path = state_path(database)
    reused = _reuse(path)
    if reused is not None:
        return reused
    if port is not None:
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(("127.0.0.1", port))
        except OSError:
            # Said here, in the words of `ui`: the server would name its own flag (--http).
            raise busy_port_error(port) from None
    log = path.with_suffix(".log")
    process = start_server(database, port or free_port(), log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ConfigError(
                f"the dashboard server stopped at start (exit {process.returncode}): {_tail(log)}"
            )
        server = _read_quietly(path)
        if server is not None and server.pid == process.pid:
            ticket = ask_ticket(server)
            if ticket is not None:
                return Login(server, ticket, reused=False)
        time.sleep(0.1)
    process.terminate()
    raise ConfigError(f"the dashboard server did not answer within {timeout:.0f} s; its log: {log}")


def _tail(log: Path) -> str:
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        return f"see {log}"
    return lines[-1] if lines else f"see {log}"
