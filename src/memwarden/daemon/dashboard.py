"""The dashboard served by the daemon: ``memwarden ui`` asks for it (op ``dashboard``).

One process and one model copy per user: the daemon that serves the user's MCP clients, CLI and
hooks also serves the web dashboard, on a loopback port, with the whole HTTP app of
``memwarden serve --http`` (``http.app.build_http_app``: the same security layer, ``/ui``,
``/mcp``, ``/healthz``, ``/hooks/recall``). It starts on the first ``memwarden ui`` and runs
until the daemon stops; it publishes its state file (``ui.launcher``) as a standalone server does,
so a ``memwarden ui`` with the daemon off reuses it too. Each request counts as activity for the
daemon's idle exit, so an open dashboard keeps the daemon up.
"""

from __future__ import annotations

import errno
import logging
import os
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import anyio

from memwarden.errors import ConfigError
from memwarden.ui.launcher import busy_port_error

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.config import Settings
    from memwarden.service import MemoryService

logger = logging.getLogger(__name__)

HOST = "127.0.0.1"
START_TIMEOUT_S = 30.0


def bind_loopback(port: int) -> socket.socket:
    """A listening socket on ``127.0.0.1:port`` (0: a free port); the busy-port ConfigError."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise busy_port_error(port) from None
        raise ConfigError(f"cannot serve the dashboard on {HOST}:{port}: {exc.strerror}") from None
    sock.set_inheritable(False)
    return sock


class DaemonDashboard:
    """The daemon's HTTP server, started on the first request for it."""

    def __init__(self, service: MemoryService, settings: Settings, *, touch: Callable[[], None]) -> None:
        self.service = service
        self.settings = settings
        self.touch = touch  # the daemon's activity clock
        self.url: str | None = None
        self._server: Any = None
        self._ui: Any = None
        self._state: Any = None  # the published state file's path
        self._lock = anyio.Lock()

    async def open(self, group: Any, port: int | None) -> dict[str, Any]:
        """Start the server (once), and answer with a fresh one-time login to it."""
        async with self._lock:
            reused = self._server is not None and not self._server.should_exit
            if not reused:
                await self._start(group, port or 0)
        assert self.url is not None
        return {
            "url": self.url,
            "key": self._ui.launcher_key,
            "ticket": self._ui.sessions.issue_ticket(),
            "pid": os.getpid(),
            "reused": reused,
        }

    async def _start(self, group: Any, port: int) -> None:
        import uvicorn

        from memwarden.http.app import build_http_app
        from memwarden.ui.launcher import state_path, write_state

        sock = bind_loopback(port)
        port = int(sock.getsockname()[1])
        app = build_http_app(self.service, self.settings, HOST)
        touch = self.touch

        async def counted(scope: Any, receive: Any, send: Any) -> None:
            touch()
            await app(scope, receive, send)

        config = uvicorn.Config(
            counted,
            host=HOST,
            port=port,
            log_config=None,  # as serve_http: keep the handlers the daemon's logging set up
            log_level="warning",
            access_log=False,
            lifespan="on",
        )
        server = _without_signal_handlers(uvicorn.Server)(config)
        group.start_soon(server.serve, [sock])
        deadline = time.monotonic() + START_TIMEOUT_S
        while not server.started:
            if server.should_exit or time.monotonic() > deadline:
                sock.close()
                raise ConfigError(f"the daemon's dashboard did not start on {HOST}:{port}; see its log")
            await anyio.sleep(0.02)
        self._server, self._ui = server, app.dashboard.state.ui
        self.url = f"http://{HOST}:{port}"
        self._state = state_path(self.settings.database_url())
        write_state(self._state, self.url, self._ui.launcher_key)
        logger.info("daemon %d serves the dashboard at %s/ui/", os.getpid(), self.url)

    async def close(self) -> None:
        """Stop serving and remove the state file (the daemon is stopping)."""
        self.remove_state()
        if self._server is not None:
            self._server.should_exit = True
            with anyio.move_on_after(5):
                while self._server.started and not getattr(self._server, "_memwarden_done", False):
                    await anyio.sleep(0.05)

    def remove_state(self) -> None:
        from memwarden.ui.launcher import read_state

        if self._state is None:
            return
        try:
            current = read_state(self._state)
        except ConfigError:
            return
        if current is not None and current.pid == os.getpid():
            self._state.unlink(missing_ok=True)


def _without_signal_handlers(base: type[Any]) -> type[Any]:
    """uvicorn's server without its SIGTERM/SIGINT handlers: the daemon handles those signals
    itself (``server.Daemon._stop_on_signal``) and stops the dashboard with everything else.
    (Not ``http.connections.quiet_server_class``: its loop error handler would replace the
    daemon's own, ``server._quiet_late_wakeups``.)"""

    class DaemonHttpServer(base):  # type: ignore[misc]
        @contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

        async def serve(self, sockets: Any = None) -> None:
            try:
                await super().serve(sockets)
            finally:
                self._memwarden_done = True

    return DaemonHttpServer
