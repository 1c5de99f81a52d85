"""The dashboard's one-time login and another local account (user id 65534, as in
tests/test_local_users.py; running a process as another user needs root, which CI has).

- ``memwarden ui`` opens the browser on a 0600 file, never on the link: another user reading
  every ``/proc/*/cmdline`` while it runs sees the file's path and no ticket, and cannot read
  the file, which is gone once the browser has logged in.
- A server without a token answers no other user on ``/ui`` (pages, login page, static
  files, the one-time link): their attempt does not spend the link, and a session cookie they
  send ends that session. With a token configured, the one-time link is still refused to them.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from ui_helpers import CHROMIUM

from memwarden.ui.launcher import ask_ticket, free_port, read_state, state_path
from tests.test_local_users import OTHER, other_python

PLAIN_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}  # the other user's: no proxy, nothing of ours
pytestmark = pytest.mark.skipif(
    not hasattr(os, "getuid") or os.getuid() != 0, reason="running a process as another user needs root"
)

# Run as the other user: read every process's command line until stdin closes, then try to
# read the login files it saw named there.
SCANNER = r"""
import json, os, select, sys
tickets, files, rounds = [], set(), 0
needle, me = b"ticket" + b"=", str(os.getpid())
while True:
    ready, _, _ = select.select([sys.stdin], [], [], 0)
    if ready and not os.read(0, 1):
        break
    rounds += 1
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or pid == me:
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                line = f.read()
        except OSError:
            continue
        if needle in line:
            tickets.append(line.decode("utf-8", "replace"))
        files.update(p.decode() for p in line.split(b"\0") if b"ui-login-" in p)
read = {}
for name in files:
    path = name.removeprefix("file://")
    try:
        with open(path, encoding="utf-8") as f:
            read[name] = f.read()
    except OSError as exc:
        read[name] = type(exc).__name__
print(json.dumps({"tickets": tickets, "files": sorted(files), "read": read, "rounds": rounds}))
"""

# Run as the other user: ask the server for a path, with a cookie when given; print the status
# line and the body.
ASK = r"""
import sys, urllib.request, urllib.error
url, cookie = sys.argv[1], sys.argv[2]
request = urllib.request.Request(url, headers={"Cookie": f"memwarden_session={cookie}"} if cookie else {})
class Stay(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args):
        return None
try:
    with urllib.request.build_opener(Stay).open(request, timeout=30) as answer:
        print(answer.status, answer.read().decode())
except urllib.error.HTTPError as answer:
    print(answer.code, answer.read().decode())
"""

# The "browser" memwarden ui opens (through $BROWSER): Debian's Chromium driven by Playwright,
# given the address memwarden passed, which it records with where the browser ended up.
BROWSER = """#!{python}
import json, os, stat, sys
from pathlib import Path
from playwright.sync_api import sync_playwright

address = sys.argv[1]
record = {{"argv": sys.argv[1:]}}
if address.startswith("file://"):
    record["mode"] = stat.S_IMODE(os.stat(address.removeprefix("file://")).st_mode)
with sync_playwright() as play:
    browser = play.chromium.launch(executable_path={chromium!r}, args=["--no-sandbox"])
    page = browser.new_page()
    page.goto(address)
    page.wait_for_url("**/ui/", timeout=30000)
    record["landed"] = page.url
    record["heading"] = page.locator("h1").inner_text()
    browser.close()
Path(os.environ["UI_TEST_BROWSER_RECORD"]).write_text(json.dumps(record))
"""


def ask_as_other_user(url: str, cookie: str = "") -> tuple[int, str]:
    done = subprocess.run(
        [other_python(), "-I", "-c", ASK, url, cookie],
        user=OTHER,
        group=OTHER,
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
        env=PLAIN_ENV,
    )
    assert done.returncode == 0, done.stderr
    status, _, body = done.stdout.partition(" ")
    return int(status), body


@pytest.fixture
def ui_env(cli_env: dict[str, str], tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment of ``memwarden ui``; the server it starts is stopped at the end."""
    env = {**cli_env, "XDG_RUNTIME_DIR": str(tmp_path / "run"), "XDG_DATA_HOME": str(tmp_path / "data")}
    yield env
    path = tmp_path / "run" / "memwarden" / state_path(env["MEMWARDEN_DB"], Path(".")).name
    server = read_state(path) if path.exists() else None
    if server is not None:
        os.kill(server.pid, signal.SIGTERM)
        deadline = time.monotonic() + 20
        while path.exists() and time.monotonic() < deadline:
            time.sleep(0.1)


def test_memwarden_ui_never_puts_the_link_on_a_command_line_and_removes_its_login_file(
    ui_env: dict[str, str], tmp_path: Path
) -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: apt-get install -y chromium (make test does)")
    browser = tmp_path / "browser"
    browser.write_text(BROWSER.format(python=sys.executable, chromium=CHROMIUM), encoding="utf-8")
    browser.chmod(0o755)
    record = tmp_path / "browser.json"
    env = {**ui_env, "BROWSER": str(browser), "UI_TEST_BROWSER_RECORD": str(record)}
    scanner = subprocess.Popen(
        [other_python(), "-I", "-c", SCANNER],
        user=OTHER,
        group=OTHER,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd="/",
        env=PLAIN_ENV,
    )
    try:
        done = subprocess.run(
            [sys.executable, "-m", "memwarden", "ui"], env=env, capture_output=True, text=True, timeout=180
        )
    finally:
        out, _ = scanner.communicate(timeout=60)  # closes its stdin: it stops scanning
    assert done.returncode == 0, done.stderr
    assert "ticket=" not in done.stdout + done.stderr  # the browser used it: no fallback link printed
    opened = json.loads(record.read_text(encoding="utf-8"))
    address = opened["argv"][0]
    folder = Path(ui_env["XDG_RUNTIME_DIR"]) / "memwarden"
    assert address.startswith(f"file://{folder}/ui-login-") and "ticket" not in " ".join(opened["argv"])
    assert opened["mode"] == 0o600
    assert opened["landed"].endswith("/ui/") and opened["heading"] == "Overview"
    assert not Path(address.removeprefix("file://")).exists()
    assert list(folder.glob("ui-login-*")) == []
    seen = json.loads(out)
    assert seen["rounds"] > 0 and seen["tickets"] == []
    assert address in seen["files"]  # it did see the browser's command line, with the file's path
    assert set(seen["read"].values()) <= {"PermissionError", "FileNotFoundError"}


def test_without_a_token_another_user_gets_no_dashboard_and_cannot_spend_the_link(
    ui_env: dict[str, str],
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memwarden", "ui", "--no-browser"],
        env=ui_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    link = done.stdout.strip().rsplit(" ", 1)[-1]
    base = link.split("/ui/", 1)[0]
    for url in (link, f"{base}/ui/login", f"{base}/ui/", f"{base}/ui/static/app.css", f"{base}/ui/memories"):
        status, body = ask_as_other_user(url)
        assert status == 403, (url, status, body[:300])
        assert "user id 65534" in body and "MEMWARDEN_HTTP_TOKEN" in body
    with httpx.Client(base_url=base, follow_redirects=False) as mine:
        login = mine.get(link)  # the other user's try did not spend it
        assert login.status_code == 303 and login.headers["location"] == "/ui/"
        cookie = mine.cookies.get("memwarden_session")
        assert cookie and mine.get("/ui/").status_code == 200
        status, body = ask_as_other_user(f"{base}/ui/", cookie)
        assert status == 403 and "Overview" not in body
        ended = mine.get("/ui/")  # the cookie leaked: that session is over
        assert ended.status_code == 303 and ended.headers["location"].startswith("/ui/login")


def test_with_a_token_another_user_still_cannot_use_a_one_time_link(ui_env: dict[str, str]) -> None:
    env = {**ui_env, "MEMWARDEN_HTTP_TOKEN": "mwt_local-users-token-0123456789"}
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "memwarden", "serve", "--http", f"127.0.0.1:{port}"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        path = Path(ui_env["XDG_RUNTIME_DIR"]) / "memwarden" / state_path(env["MEMWARDEN_DB"], Path(".")).name
        deadline, ticket = time.monotonic() + 60, None
        while ticket is None and time.monotonic() < deadline:
            server = read_state(path) if path.exists() else None
            ticket = ask_ticket(server) if server is not None else None
            if ticket is None:
                assert process.poll() is None, "the server stopped at start"
                time.sleep(0.1)
        assert server is not None and ticket is not None
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        link = f"{server.url}/ui/login?ticket={ticket}"
        assert ask_as_other_user(f"{server.url}/ui/login")[0] == 200  # a token login is open to all
        status, body = ask_as_other_user(link)
        assert status == 403 and "for the user who runs the memwarden server" in body
        with httpx.Client(follow_redirects=False) as mine:
            assert mine.get(link).status_code == 303  # not spent by the refused try
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=20)
