"""Input past Python's parsing limits (JSON nested thousands deep, a number of 5,001 digits)
gets a clear ``invalid_input`` / ``bad_frame`` naming what is wrong, through the real HTTP
routes, a real daemon and a real MCP client session; nothing crashes and nothing changes."""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_helpers import call_error, mcp_client
from starlette.testclient import TestClient

from memwarden.app import build_service
from memwarden.config import Settings, load_settings
from memwarden.config_hot import load_hot_settings
from memwarden.daemon.client import DaemonClient, DaemonUnavailable
from memwarden.daemon.launch import attach_or_start
from memwarden.daemon.place import DaemonPlace
from memwarden.daemon.protocol import hello_frame
from memwarden.http.app import build_http_app
from memwarden.service import MemoryService

TOKEN = "mwt_bad-input-token-0123456789"
HOST = "http://127.0.0.1:8765"
DEEP = "[" * 100_000 + "]" * 100_000
BIG = "1" + "0" * 5000  # past int()'s 4,300-digit limit


# -- HTTP: the prompt hook's route and the dashboard ---------------------------------------------


@pytest.fixture
def http_service(tmp_path: Path) -> Iterator[tuple[Settings, MemoryService]]:
    settings = load_settings(
        db=str(tmp_path / "http.db"),
        log_file=str(tmp_path / "memwarden.log"),
        backup_dir=str(tmp_path / "backups"),
        embedder="none",
        http_token=TOKEN,
    )
    service = build_service(settings, ops=True)
    yield settings, service
    service.close()


@pytest.fixture
def http(http_service: tuple[Settings, MemoryService]) -> Iterator[TestClient]:
    settings, service = http_service
    with TestClient(build_http_app(service, settings), base_url=HOST, follow_redirects=False) as client:
        yield client


def _prompt_body(hook_input: str) -> dict[str, Any]:
    return {"input": hook_input, "project": None, "limit": 5, "max_tokens": 600}


@pytest.mark.parametrize(
    ("hook_input", "says"),
    [
        (DEEP, "nested"),
        ('{"prompt": ' + DEEP + "}", "nested"),
        ('{"hook_event_name": "UserPromptSubmit", "prompt": ' + BIG + "}", "digits"),
    ],
    ids=["deep", "deep-in-object", "huge-number"],
)
def test_hook_prompt_input_past_the_parser_limits_is_invalid_input(
    http: TestClient, hook_input: str, says: str
) -> None:
    r = http.post(
        "/hooks/prompt", json=_prompt_body(hook_input), headers={"authorization": f"Bearer {TOKEN}"}
    )
    assert r.status_code == 400, r.text
    body = r.json()
    assert body["error"] == "invalid_input" and body["field"] == "input"
    assert says in body["message"] and "hook input" in body["message"]
    ok = http.post(
        "/hooks/prompt",
        json=_prompt_body(json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "where is the key"})),
        headers={"authorization": f"Bearer {TOKEN}"},
    )
    assert ok.status_code == 200


def _dashboard_login(http: TestClient) -> str:
    """Log in to the dashboard with the operator token; the session's CSRF token."""
    import re

    form = http.get("/ui/login")
    nonce = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)  # type: ignore[union-attr]
    assert http.post("/ui/login", data={"csrf": nonce, "token": TOKEN}).status_code == 303
    page = http.get("/ui/")
    return re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)  # type: ignore[union-attr]


@pytest.mark.parametrize("value", [BIG, "99999999999999999999", "²", "1e999", "-5"])
def test_dashboard_numbers_past_their_range_are_a_400_naming_the_field(
    http: TestClient, http_service: tuple[Settings, MemoryService], value: str
) -> None:
    _, service = http_service
    memory = service.memories.add("The office plant is watered on Fridays", project="ops").memory
    csrf = _dashboard_login(http)
    audit = http.get("/ui/audit", params={"before": value})
    assert audit.status_code == 400 and "before must be a whole number" in audit.text
    edit = http.post(
        f"/ui/memories/{memory.id}/edit", data={"csrf": csrf, "content": "changed", "if_version": value}
    )
    assert edit.status_code == 400 and "if_version must be a whole number" in edit.text
    assert service.memories.get([memory.id])[0][0].content == "The office plant is watered on Fridays"


# -- MCP: memory_import's inline data ------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ('{"memories": [{"content": "x", "version": ' + BIG + "}]}", "digits"),
        (DEEP, "nested too deeply"),
    ],
    ids=["huge-number", "deep"],
)
def test_memory_import_data_past_the_parser_limits_is_a_tool_error_naming_data(
    http_service: tuple[Settings, MemoryService], data: str, says: str
) -> None:
    settings, service = http_service

    async def run() -> None:
        async with mcp_client(service) as client:
            message = await call_error(client, "memory_import", {"data": data})
            assert says in message and "import data" in message, message

    anyio.run(run)
    with sqlite3.connect(settings.database_url().removeprefix("sqlite:///")) as db:
        assert db.execute("SELECT count(*) FROM memories").fetchone() == (0,)


# -- the daemon's attach protocol ----------------------------------------------------------------


@pytest.fixture
def daemon(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[DaemonPlace, DaemonClient]]:
    """A real daemon process in a runtime folder of its own, and a call-mode client of it."""
    runtime = tempfile.mkdtemp(prefix="mwd")  # short: a Unix socket path holds at most ~107 bytes
    monkeypatch.setenv("XDG_RUNTIME_DIR", runtime)
    monkeypatch.setenv("MEMWARDEN_DB", str(tmp_path / "daemon.db"))
    monkeypatch.setenv("MEMWARDEN_LOG_FILE", str(tmp_path / "memwarden.log"))
    monkeypatch.setenv("MEMWARDEN_BACKUP_DIR", str(tmp_path / "backups"))
    monkeypatch.setenv("MEMWARDEN_DAEMON", "auto")
    monkeypatch.setenv("MEMWARDEN_DAEMON_IDLE_S", "120")
    place = DaemonPlace(Path(runtime) / "memwarden")
    client = attach_or_start(place, load_hot_settings())
    pid = client.call("ping")["pid"]
    try:
        yield place, client
    finally:
        client.close()
        try:
            with DaemonClient.attach(place, load_hot_settings(), timeout=5) as stopper:
                stopper.call("stop")
        except DaemonUnavailable:
            pass
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        else:
            os.kill(pid, signal.SIGKILL)


def _exchange(place: DaemonPlace, *lines: bytes) -> list[dict[str, Any]]:
    """Send each line as one client; the answer line to each (until the daemon closes)."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(15)
        sock.connect(str(place.socket_path))
        answers = []
        for line in lines:
            sock.sendall(line)
            answer = b""
            while not answer.endswith(b"\n"):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                answer += chunk
            if not answer:
                break
            answers.append(json.loads(answer))
        return answers


@pytest.mark.parametrize(
    ("hello", "says"),
    [
        (b"[" * 30_000 + b"]" * 30_000 + b"\n", "nested"),
        (b'{"memwarden":' + b"[" * 20_000 + b"]" * 20_000 + b"}\n", "nested"),
        (b'{"memwarden":1' + b"0" * 5000 + b"}\n", "digits"),
    ],
    ids=["deep", "deep-in-object", "huge-number"],
)
def test_a_hello_past_the_parser_limits_gets_bad_frame_and_the_daemon_stays_up(
    daemon: tuple[DaemonPlace, DaemonClient], hello: bytes, says: str
) -> None:
    place, client = daemon
    [answer] = _exchange(place, hello)
    assert answer["ok"] is False and answer["error"]["code"] == "bad_frame"
    assert says in answer["error"]["message"]
    assert client.call("ping")["pid"]
    log = Path(os.environ["MEMWARDEN_LOG_FILE"])
    assert "RecursionError" not in (log.read_text(encoding="utf-8") if log.exists() else "")


def test_calls_past_the_parser_limits_get_clear_errors_on_the_same_connection(
    daemon: tuple[DaemonPlace, DaemonClient],
) -> None:
    place, client = daemon
    hello = json.dumps(hello_frame(load_hot_settings(), mode="call")).encode() + b"\n"

    def hook_prompt(request_id: int, hook_input: str) -> bytes:
        return (
            json.dumps({"id": request_id, "op": "hook_prompt", "args": _prompt_body(hook_input)}).encode()
            + b"\n"
        )

    answers = _exchange(
        place,
        hello,
        b'{"id":2,"op":"search","args":' + b"[" * 30_000 + b"]" * 30_000 + b"}\n",
        b'{"id":1' + b"0" * 5000 + b',"op":"ping"}\n',
        hook_prompt(8, DEEP),
        hook_prompt(9, '{"prompt":1' + "0" * 5000 + "}"),
        b'{"id":10,"op":"ping","args":{}}\n',
    )
    assert answers[0]["ok"] is True
    errors = [(a.get("id"), a["error"]["code"], a["error"]["message"]) for a in answers[1:5]]
    assert [e[:2] for e in errors] == [
        (None, "bad_frame"),
        (None, "bad_frame"),
        (8, "invalid_input"),
        (9, "invalid_input"),
    ]
    assert "nested" in errors[0][2] and "digits" in errors[1][2]
    assert "input" in errors[2][2] and "nested" in errors[2][2] and "digits" in errors[3][2]
    assert answers[5]["ok"] is True and answers[5]["id"] == 10
    assert client.call("ping")["pid"]
