"""``memwarden ui`` and a port another local user holds (user id 65534; needs root).

A dashboard server killed without cleanup (``kill -9``, out of memory) leaves its state file
behind; its port is then free for anyone. Another user listening there used to receive the
launcher key in the ``x-memwarden-launcher`` header and could answer with a ticket of their
own, so ``memwarden ui`` opened the browser on their page (same-site with every dashboard on
127.0.0.1). The launcher now sends nothing to a port it does not own and starts a new server.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from test_ui_ticket_local_users import OTHER, PLAIN_ENV, other_python

from memwarden.ui.launcher import Login, Published, ask_ticket, free_port, ticket_pending

pytestmark = pytest.mark.skipif(
    not hasattr(os, "getuid") or os.getuid() != 0, reason="running a process as another user needs root"
)

# Run as the other user: listen on the port, print every request's path and launcher header,
# answer every POST with a ticket of its own choosing.
SQUATTER = r"""
import http.server, json, sys
class Squat(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        print(self.path, self.headers.get("x-memwarden-launcher"), flush=True)
        body = json.dumps({"ticket": "squatter-ticket", "pending": True}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Squat)
print("ready", flush=True)
server.serve_forever()
"""


def requests_seen(process: subprocess.Popen[str]) -> str:
    """What the listener printed after "ready" (it is stopped first)."""
    process.terminate()
    out, _ = process.communicate(timeout=30)
    return out


@pytest.fixture
def squatter() -> Iterator[tuple[int, subprocess.Popen[str]]]:
    """(port, process) of a listener user 65534 runs; stopped at the end."""
    port = free_port()
    with subprocess.Popen(
        [other_python(), "-I", "-c", SQUATTER, str(port)],
        user=OTHER,
        group=OTHER,
        stdout=subprocess.PIPE,
        text=True,
        cwd="/",
        env=PLAIN_ENV,
    ) as process:
        try:
            assert process.stdout is not None and process.stdout.readline().strip() == "ready"
            yield port, process
        finally:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=30)


def test_the_launcher_key_never_reaches_a_port_another_user_holds(
    squatter: tuple[int, subprocess.Popen[str]], caplog: pytest.LogCaptureFixture
) -> None:
    port, process = squatter
    stale = Published(f"http://127.0.0.1:{port}", "launcher-key-of-a-dead-server", pid=2**22 + 1)
    started = time.monotonic()
    assert ask_ticket(stale) is None
    assert ticket_pending(Login(stale, "some-ticket", reused=True)) is None
    assert time.monotonic() - started < 10
    assert requests_seen(process) == "", "the other user's server was sent a request"
    assert f"user id {OTHER}" in caplog.text and "not sending it the launcher key" in caplog.text


def test_the_launcher_still_asks_a_server_of_this_user() -> None:
    """The same check lets this user's own server through (the same listener, run as us)."""
    port = free_port()
    with subprocess.Popen(
        [sys.executable, "-I", "-c", SQUATTER, str(port)], stdout=subprocess.PIPE, text=True
    ) as process:
        try:
            assert process.stdout is not None and process.stdout.readline().strip() == "ready"
            own = Published(f"http://127.0.0.1:{port}", "launcher-key", pid=process.pid)
            assert ask_ticket(own) == "squatter-ticket"
            assert requests_seen(process) == "/ui/ticket launcher-key\n"
        finally:
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=30)
