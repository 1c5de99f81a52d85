"""The HTTP server under connection floods: a real ``memwarden serve --http`` subprocess with a
small open-file limit, driven through real sockets.

Idle connections that never send a request, and requests whose body stalls, must neither kill
the server nor leave it deaf: it closes them after a few seconds (``http.app.HEAD_TIMEOUT_S``,
``http.guard.BODY_TIMEOUT_S``) and keeps answering everyone else.
"""

from __future__ import annotations

import resource
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from http_servers import start_http_server

from memwarden.http.connections import HEAD_TIMEOUT_S
from memwarden.http.guard import BODY_TIMEOUT_S

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX open-file limits")

TOKEN = "limits-token-0123456789"
START_TIMEOUT_S = 30.0


def _limit_files(soft: int, hard: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    return apply


class Server:
    def __init__(self, process: subprocess.Popen[bytes], base: str, port: int, log: Path) -> None:
        self.process = process
        self.base = base
        self.port = port
        self.log = log

    def alive(self) -> bool:
        return self.process.poll() is None

    def recall(self, timeout: float = 3.0) -> int:
        """An authenticated request: the status, or 0 when the server did not answer."""
        try:
            r = httpx.post(
                f"{self.base}/hooks/recall",
                json={"query": "anything"},
                headers={"authorization": f"Bearer {TOKEN}"},
                timeout=timeout,
            )
        except httpx.HTTPError:
            return 0
        return r.status_code

    def recall_within(self, seconds: float) -> float:
        """Seconds until an authenticated request got its 200 (retrying refusals); fails after ``seconds``."""
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            assert self.alive(), f"the server exited: {self.log.read_text(errors='replace')[-2000:]}"
            if self.recall() == 200:
                return time.monotonic() - start
            time.sleep(0.2)
        raise AssertionError(f"no answer within {seconds} s; server alive: {self.alive()}")


@pytest.fixture
def start_server(cli_env: dict[str, str], tmp_path: Path) -> Iterator[Callable[..., Server]]:
    started: list[Server] = []

    def start(*, soft: int, hard: int, **env: str) -> Server:
        stderr = tmp_path / f"stderr-{len(started)}.txt"
        process, port = start_http_server(
            {**cli_env, "MEMWARDEN_HTTP_TOKEN": TOKEN, **env},
            timeout=START_TIMEOUT_S,
            stderr_file=stderr,
            preexec_fn=_limit_files(soft, hard),
        )
        server = Server(process, f"http://127.0.0.1:{port}", port, stderr)
        started.append(server)
        return server

    yield start
    for server in started:
        server.process.terminate()
        try:
            server.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait(timeout=10)


def _connect(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    sock.settimeout(0)
    return sock


def _closed_by_server(sock: socket.socket) -> bool:
    """Whether the server closed ``sock`` (a refusal it wrote first is read past)."""
    try:
        while sock.recv(4096):
            pass
    except BlockingIOError:
        return False
    except OSError:
        pass  # reset
    return True


def test_idle_connections_past_the_open_file_limit_leave_the_server_answering(
    start_server: Callable[..., Server],
) -> None:
    """100 connections that send nothing against a server allowed 64 open files (at the
    default log level, where the log file used to be reopened just when no descriptor was
    left): the server stays up, answers within a few seconds, and closes the idle ones."""
    server = start_server(soft=64, hard=64)
    idle = [_connect(server.port) for _ in range(100)]
    try:
        waited = server.recall_within(HEAD_TIMEOUT_S + 10)
        assert waited < HEAD_TIMEOUT_S + 10
        deadline = time.monotonic() + HEAD_TIMEOUT_S + 5
        while time.monotonic() < deadline and not all(_closed_by_server(s) for s in idle):
            time.sleep(0.2)
        assert all(_closed_by_server(s) for s in idle), "idle connections are still held open"
    finally:
        for sock in idle:
            sock.close()
    assert server.recall_within(5) < 5
    assert server.alive()


def _trickle_head(port: int, outcome: list[float]) -> None:
    """Slowloris: a request head sent one header line every half second; the seconds until
    the server closed the connection go into ``outcome``."""
    with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
        start = time.monotonic()
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        while time.monotonic() - start < HEAD_TIMEOUT_S + 5:
            try:
                sock.sendall(b"X-a: b\r\n")
                answer = sock.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                answer = b""
            if answer == b"" or answer.startswith(b"HTTP/1.1 408 "):
                outcome.append(time.monotonic() - start)
                return


def test_stalled_bodies_get_408_and_slow_heads_are_closed_within_their_deadlines(
    start_server: Callable[..., Server],
) -> None:
    """A request that sends its head and a few body bytes, then nothing: 408 (and the
    connection closed) within the body deadline, on the API and on the dashboard's login,
    which reads its form before any other check. A head that trickles in a line at a time
    is closed at the head deadline."""
    server = start_server(soft=64, hard=1024)
    slow_head: list[float] = []
    trickling = threading.Thread(target=_trickle_head, args=(server.port, slow_head), daemon=True)
    trickling.start()
    heads = [
        (
            b"POST /hooks/recall HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
            + TOKEN.encode()
            + b'\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"query":'
        ),
        (
            b"POST /ui/login HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\ncsrf="
        ),
    ]
    stalled = []
    for head in heads:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=BODY_TIMEOUT_S + 5)
        sock.sendall(head)
        stalled.append(sock)
    start = time.monotonic()
    try:
        for sock in stalled:
            answer = b""
            while chunk := sock.recv(4096):
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
            assert b"request_timeout" in answer
        assert time.monotonic() - start < BODY_TIMEOUT_S + 3
    finally:
        for sock in stalled:
            sock.close()
    trickling.join(timeout=HEAD_TIMEOUT_S + 6)
    assert slow_head and slow_head[0] < HEAD_TIMEOUT_S + 2, "a trickling request head was read forever"
    assert server.recall_within(5) < 5
    # The server raised its soft open-file limit to the hard limit at start.
    limits = Path(f"/proc/{server.process.pid}/limits")
    if limits.exists():
        line = next(x for x in limits.read_text().splitlines() if x.startswith("Max open files"))
        assert line.split()[3:5] == ["1024", "1024"], line


def test_at_debug_the_log_holds_no_memory_content_from_other_libraries(
    start_server: Callable[..., Server], cli_env: dict[str, str]
) -> None:
    """MEMWARDEN_LOG_LEVEL=DEBUG is for memwarden's own messages: sse_starlette, the MCP SDK,
    httpx, uvicorn and anyio log whole messages at DEBUG, and stay at INFO and above. An MCP
    session of protocol 2025-06-18 gets its answers as server-sent events (sse_starlette)."""
    server = start_server(soft=1024, hard=1024, MEMWARDEN_LOG_LEVEL="DEBUG")
    secret = "zanzibar-quokka-7781 is the vault phrase"
    headers = {"accept": "application/json, text/event-stream", "authorization": f"Bearer {TOKEN}"}
    with httpx.Client(base_url=server.base, headers=headers, timeout=30) as http:
        init = http.post(
            "/mcp",
            json={
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            },
        )
        assert init.status_code == 200, init.text
        http.headers["mcp-session-id"] = init.headers["mcp-session-id"]
        http.headers["mcp-protocol-version"] = "2025-06-18"
        http.post("/mcp", json={"jsonrpc": "2.0", "method": "notifications/initialized"})
        for number, (tool, arguments) in enumerate(
            [("memory_add", {"content": secret}), ("memory_search", {"query": "zanzibar quokka"})], 1
        ):
            answer = http.post(
                "/mcp",
                json={
                    "jsonrpc": "2.0",
                    "id": number,
                    "method": "tools/call",
                    "params": {"name": tool, "arguments": arguments},
                },
            )
            assert answer.status_code == 200 and "event-stream" in answer.headers["content-type"]
        assert "quokka" in answer.text
    log = Path(cli_env["MEMWARDEN_LOG_FILE"]).read_text(encoding="utf-8")
    assert "zanzibar" not in log and "quokka" not in log
    for name in ("sse_starlette", "mcp", "httpx", "httpcore", "uvicorn", "anyio"):
        debug = [line for line in log.splitlines() if f" DEBUG {name}" in line]
        assert debug == [], debug[:3]
