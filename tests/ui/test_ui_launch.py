"""``memwarden ui`` for real: it starts a loopback server in the background, reuses it the next
time, its one-time links work once, and its launcher key sits in a 0600 file of a 0700 folder;
``serve --http`` without a token prints a one-time link on stderr."""

from __future__ import annotations

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

from memwarden.ui.launcher import free_port, read_state, state_path


@pytest.fixture
def ui_env(cli_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    runtime = tmp_path / "run"
    return {**cli_env, "XDG_RUNTIME_DIR": str(runtime), "XDG_DATA_HOME": str(tmp_path / "data")}


def _ui(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memwarden", "ui", "--no-browser", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )


def _link(out: str) -> str:
    return out.strip().rsplit(" ", 1)[-1]


@pytest.fixture
def state_file(ui_env: dict[str, str]) -> Iterator[Path]:
    path = Path(ui_env["XDG_RUNTIME_DIR"]) / "memwarden" / state_path(ui_env["MEMWARDEN_DB"], Path(".")).name
    yield path
    # Stop the server `memwarden ui` started (its pid is in the state file), then check it
    # removed its state file on the way out.
    if path.exists():
        server = read_state(path)
        assert server is not None
        os.kill(server.pid, signal.SIGTERM)
        deadline = time.monotonic() + 20
        while path.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not path.exists(), "the server left its launcher file behind"


def test_ui_starts_a_server_then_reuses_it_and_each_link_works_once(
    ui_env: dict[str, str], state_file: Path
) -> None:
    first = _ui(ui_env)
    assert first.returncode == 0, first.stderr
    assert "started a server" in first.stdout
    link = _link(first.stdout)
    assert link.startswith("http://127.0.0.1:") and "/ui/login?ticket=" in link

    # The launcher key: a 0600 file in a 0700 folder of this user.
    assert stat.S_IMODE(state_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(state_file.parent.stat().st_mode) == 0o700
    server = read_state(state_file)
    assert server is not None and link.startswith(server.url)

    with httpx.Client(follow_redirects=True) as browser:
        r = browser.get(link)  # follows the redirect to the overview with the session cookie
        assert r.status_code == 200 and "Overview" in r.text
    with httpx.Client() as other:
        again = other.get(link, follow_redirects=False)
        assert again.status_code == 401 and "already used or has expired" in again.text
        assert "memwarden_session" not in again.cookies

    second = _ui(ui_env)
    assert second.returncode == 0, second.stderr
    assert "reusing the running server" in second.stdout
    link2 = _link(second.stdout)
    assert link2 != link and link2.startswith(server.url)
    assert read_state(state_file) == server  # same process, same key
    with httpx.Client(follow_redirects=True) as browser:
        assert browser.get(link2).status_code == 200

    # Without the launcher key (or with a wrong one) nobody gets a ticket.
    form = {"content-type": "application/x-www-form-urlencoded"}
    assert httpx.post(f"{server.url}/ui/ticket", headers=form).status_code == 403
    assert (
        httpx.post(f"{server.url}/ui/ticket", headers={**form, "x-memwarden-launcher": "guess"}).status_code
        == 403
    )


def test_ui_refuses_a_launcher_file_others_can_read(ui_env: dict[str, str], state_file: Path) -> None:
    state_file.parent.mkdir(mode=0o700, parents=True)
    state_file.write_text('{"url": "http://127.0.0.1:9", "key": "k", "pid": 1}', encoding="utf-8")
    state_file.chmod(0o644)
    done = _ui(ui_env)
    assert done.returncode == 1 and "readable by other users" in done.stderr
    state_file.unlink()


def test_ui_bad_port_is_refused(ui_env: dict[str, str], state_file: Path) -> None:
    done = _ui(ui_env, "--port", "70000")
    assert done.returncode == 1 and "--port 70000 is not a port" in done.stderr
    assert not state_file.exists()


def test_ui_replaces_a_stale_launcher_file(ui_env: dict[str, str], state_file: Path) -> None:
    # A server that died without cleaning up: the file names a port nobody listens on.
    state_file.parent.mkdir(mode=0o700, parents=True)
    fd = os.open(state_file, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, f'{{"url": "http://127.0.0.1:{free_port()}", "key": "old", "pid": 1}}'.encode())
    os.close(fd)
    done = _ui(ui_env)
    assert done.returncode == 0 and "started a server" in done.stdout, done.stderr
    server = read_state(state_file)
    assert server is not None and server.key != "old"


def test_serve_http_without_a_token_prints_a_one_time_link(ui_env: dict[str, str]) -> None:
    port = free_port()
    with subprocess.Popen(
        [sys.executable, "-m", "memwarden", "serve", "--http", f"127.0.0.1:{port}"],
        env=ui_env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as server:
        try:
            assert server.stderr is not None
            line = ""
            deadline = time.monotonic() + 60
            while "ticket=" not in line and time.monotonic() < deadline:
                line = server.stderr.readline()
                assert line, "serve exited before printing the link"
            link = line.split("open ", 1)[1].split(" ", 1)[0]
            assert link.startswith(f"http://127.0.0.1:{port}/ui/login?ticket=")
            with httpx.Client(follow_redirects=True) as browser:
                for _ in range(100):
                    try:
                        r = browser.get(link)
                        break
                    except httpx.ConnectError:
                        time.sleep(0.1)
                assert r.status_code == 200 and "Overview" in r.text
            assert httpx.get(link, follow_redirects=False).status_code == 401
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=20)
