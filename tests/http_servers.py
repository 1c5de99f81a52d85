"""Starting a real ``memwarden serve --http`` for a test, on a port no other test holds.

``memwarden serve`` takes a fixed HOST:PORT (port 0 is refused), so a test cannot let the
server bind port 0 and read the port back. The port is picked the same way instead (a socket
bound at port 0, its port read back and let go) and the one race left, another process taking
that port before the server binds it, is met by starting again on a new port: the server ends
at once with a line saying the port is in use (``cli/serve_start.check_port_free``, or
uvicorn's bind error). With pytest-xdist several workers start servers at the same moment.
"""

from __future__ import annotations

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
#: How many ports a start tries before the test fails.
START_ATTEMPTS = 5
_TAKEN = ("already in use", "Errno 98")


def pick_port(host: str = "127.0.0.1") -> int:
    """A port the kernel gives out for ``host``: bound at 0, read back, released."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


class PortTaken(Exception):
    """The server ended because another process took its port first."""


def _wait_until_healthy(url: str, process: subprocess.Popen[Any], log: IO[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            said = log.read().decode("utf-8", errors="replace")
            if any(sign in said for sign in _TAKEN):
                raise PortTaken(said)
            raise AssertionError(f"server exited with {process.returncode}: {said}")
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.05)
    stop_http_server(process)
    raise AssertionError(f"{url} did not answer within {timeout} s")


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
    """Start ``memwarden serve --http HOST:PORT *args`` with ``env`` and wait for ``/healthz``
    (asked on ``probe_host``); the process and its port. Its stderr goes to ``stderr_file``,
    or an unnamed file (a pipe nobody reads could fill and stall the server). ``popen`` goes to
    ``subprocess.Popen`` (``preexec_fn``, ``cwd``)."""
    said = ""
    for _ in range(START_ATTEMPTS):
        port = pick_port(host)
        with stderr_file.open("w+b") if stderr_file else tempfile.TemporaryFile() as log:
            process = subprocess.Popen(
                memwarden_command("serve", "--http", f"{host}:{port}", *args),
                env=dict(env),
                stdout=subprocess.DEVNULL,
                stderr=log,
                **popen,
            )
            try:
                _wait_until_healthy(f"http://{probe_host}:{port}/healthz", process, log, timeout)
            except PortTaken as taken:
                said = str(taken)
                continue
            return process, port
    raise AssertionError(f"no port free for the server after {START_ATTEMPTS} tries: {said}")


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
    serve --http`` uses ``http_servers.start_http_server``, which starts again on a taken port."""
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
