"""Starting a real ``memwarden serve --http`` for a test, on a port no other test holds.

The server is asked for port 0: it binds a port the kernel picks, holds it from then on, and
names it in its start-up line on stderr, where the port is read back. No port is picked here
and let go, so no other process (pytest-xdist workers start servers at the same moment) can
take it in between.
"""

from __future__ import annotations

import re
import socket
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import httpx
from cli_runner import memwarden_command

SERVER_START_TIMEOUT = 60.0
_START_LINE = re.compile(rb"Streamable HTTP at http://\S+:(\d+)/mcp")


def pick_port(host: str = "127.0.0.1") -> int:
    """A port the kernel gives out for ``host``: bound at 0, read back, released (for servers
    other than ``memwarden serve --http``, which binds port 0 itself)."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def _port_when_healthy(
    process: subprocess.Popen[Any], log: IO[bytes], probe_host: str, timeout: float
) -> int:
    """The port the start-up line names, once ``/healthz`` answers on it."""
    deadline = time.monotonic() + timeout
    port = 0
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            said = log.read().decode("utf-8", errors="replace")
            raise AssertionError(f"server exited with {process.returncode}: {said}")
        if not port:
            log.seek(0)
            found = _START_LINE.search(log.read())
            if found is None:
                time.sleep(0.05)
                continue
            port = int(found.group(1))
        try:
            if httpx.get(f"http://{probe_host}:{port}/healthz", timeout=1.0).status_code == 200:
                return port
        except httpx.HTTPError:
            time.sleep(0.05)
    stop_http_server(process)
    raise AssertionError(
        f"the server did not answer /healthz within {timeout} s (port {port or 'not named'})"
    )


def start_http_server(
    env: Mapping[str, str],
    *,
    host: str = "127.0.0.1",
    probe_host: str = "127.0.0.1",
    args: Sequence[str] = (),
    timeout: float = SERVER_START_TIMEOUT,
    stderr_file: Path | None = None,
    **popen: Any,
) -> tuple[subprocess.Popen[Any], int]:
    """Start ``memwarden serve --http HOST:0 *args`` with ``env`` and wait for ``/healthz``
    (asked on ``probe_host``); the process and the port it took. Its stderr goes to
    ``stderr_file``, or an unnamed file (a pipe nobody reads could fill and stall the server).
    ``popen`` goes to ``subprocess.Popen`` (``preexec_fn``, ``cwd``)."""
    bracketed = f"[{host}]" if ":" in host else host
    with stderr_file.open("w+b") if stderr_file else tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            memwarden_command("serve", "--http", f"{bracketed}:0", *args),
            env=dict(env),
            stdout=subprocess.DEVNULL,
            stderr=log,
            **popen,
        )
        return process, _port_when_healthy(process, log, probe_host, timeout)


def stop_http_server(process: subprocess.Popen[Any]) -> None:
    """Stop the server (SIGTERM, then SIGKILL if it has not left within 10 s)."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def free_port() -> int:
    """A port to give a server that cannot bind port 0 itself; a test that starts ``memwarden
    serve --http`` uses ``http_servers.start_http_server``, which lets the server bind port 0."""
    return pick_port()


def wait_for_http(url: str, process: subprocess.Popen, timeout: float = SERVER_START_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(
                f"server exited with {process.returncode}: {process.stderr.read() if process.stderr else ''}"
            )
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.05)
    raise AssertionError(f"{url} did not answer within {timeout} s")
