"""Input past Python's parsing limits (JSON nested thousands deep, a number of 5,001 digits)
gets a clear ``invalid_input`` naming what is wrong, through the real HTTP routes and a real MCP
client session (the daemon's: ``tests/daemon/test_daemon_parser_limits.py``); nothing crashes and
nothing changes."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_helpers import call_error, mcp_client
from starlette.testclient import TestClient

from memwarden.app import build_service
from memwarden.config import Settings, load_settings
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
