"""What ``memwarden serve`` tells a person before it serves, and what it checks first.

Every server writes one start-up line on stderr (stdout carries MCP over stdio): transport,
address or stdio, database, embedder and its state, tools profile, log file. An address
without a port, or a port already taken, stops start-up with one line, before the database
is opened. Port 0 asks for a free port: the start-up line names the one the server holds.
"""

from __future__ import annotations

import errno
import socket
import sys
from typing import TYPE_CHECKING, TextIO

from memwarden.errors import ConfigError
from memwarden.settings_paths import is_postgres_url, sqlite_path
from memwarden.version import __version__

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.config import Settings
    from memwarden.service import MemoryService


#: uvicorn's default backlog, which the server keeps.
LISTEN_BACKLOG = 2048


def bind_listener(host: str, port: int) -> socket.socket:
    """The server's socket, bound (port 0: a free port the kernel picks, read back with
    ``getsockname``); a taken port or an unknown host becomes one ConfigError line.

    Binds as uvicorn would (SO_REUSEADDR), so a port left in TIME_WAIT by a previous run is
    free. The server is then handed this socket: nothing can take the port in between.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ConfigError(f"cannot serve on {host}:{port}: unknown host ({exc.strerror})") from None
    family, kind, proto, _, sockaddr = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(sockaddr)
        # Listening at once: a client that read the start-up line and connects before the
        # server's loop runs waits in the backlog instead of being refused.
        sock.listen(LISTEN_BACKLOG)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ConfigError(
                f"port {port} on {host} is already in use (another memwarden serve?): stop that "
                f"process or choose another port, e.g. --http {host}:{port + 1}"
            ) from None
        raise ConfigError(f"cannot serve on {host}:{port}: {exc.strerror}") from None
    return sock


def check_port_free(host: str, port: int) -> None:
    """Bind the address once and let it go (``doctor``): a taken port is one ConfigError line."""
    bind_listener(host, port).close()


def listening_address(host: str, sock: socket.socket) -> str:
    """``HOST:PORT`` (``[v6]:PORT``) as the user named the host, with the port ``sock`` holds
    (the one the kernel gave for port 0)."""
    port = sock.getsockname()[1]
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def database_label(settings: Settings) -> str:
    """The database as a person recognises it: the SQLite file, or the PostgreSQL host (no password)."""
    url = settings.database_url()
    if is_postgres_url(url):
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        return f"postgresql://{parts.hostname or 'localhost'}{':' + str(parts.port) if parts.port else ''}{parts.path}"
    return str(sqlite_path(url).resolve())


def embedder_label(service: MemoryService, settings: Settings) -> str:
    vectors = service.searcher.vectors
    if vectors is None:
        return "none (keyword search only)"
    state = vectors.state
    if state == "failed":
        return f"{settings.embedder} (failed: {vectors.error}; keyword search only)"
    if state == "loading":
        return f"{settings.embedder} (loading in the background; keyword search until ready)"
    return f"{settings.embedder} ({state})"


def startup_line(
    service: MemoryService, settings: Settings, *, address: str | None, notes: tuple[str, ...] = ()
) -> str:
    """The line; ``notes`` (a new database, unknown settings) end it, each after a semicolon."""
    where = f"Streamable HTTP at http://{address}/mcp" if address else "stdio"
    return (
        f"memwarden {__version__}: serving MCP over {where}; database {database_label(settings)}; "
        f"embedder {embedder_label(service, settings)}; tools {settings.tools}; log {settings.log_path()}"
    ) + "".join(f"; {note}" for note in notes)


def announce(
    service: MemoryService,
    settings: Settings,
    *,
    address: str | None,
    stream: TextIO | None = None,
    notes: tuple[str, ...] = (),
) -> None:
    """Write the start-up line on stderr (never stdout: it carries MCP over stdio)."""
    out = stream or sys.stderr
    out.write(startup_line(service, settings, address=address, notes=notes) + "\n")
    out.flush()
