"""Wrong bearer tokens are counted per sender: past ten a minute, the sender's requests answer 429
with Retry-After whatever token they carry (a short MEMWARDEN_HTTP_TOKEN cannot be found by
trying), while other senders and the open liveness answer are untouched."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx

from memwarden.app import build_service
from memwarden.config import Settings, load_settings
from memwarden.http.app import build_http_app
from memwarden.token_guesses import LIMIT

MCP_BODY = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def test_a_real_server_locks_out_a_guesser_after_ten_wrong_tokens(http_server: tuple[str, str]) -> None:
    base, token = http_server
    with httpx.Client(base_url=base, timeout=30) as http:
        # Requests without any token are not guesses: they never lock anyone out.
        for _ in range(LIMIT + 5):
            missing = http.post("/hooks/recall", json={"query": "x"}, headers=HEADERS)
            assert missing.status_code == 401 and missing.json()["reason"] == "token_missing"
        right = {**HEADERS, "authorization": f"Bearer {token}"}
        assert http.post("/hooks/recall", json={"query": "x"}, headers=right).status_code == 200
        for n in range(LIMIT):
            wrong = http.post(
                "/hooks/recall",
                json={"query": "x"},
                headers={**HEADERS, "authorization": f"Bearer guess-{n}"},
            )
            assert wrong.status_code == 401 and wrong.json()["reason"] == "token_mismatch"
        # The right token now gets the same refusal as a wrong one: the answer tells nothing.
        for headers in (right, {**HEADERS, "authorization": "Bearer guess-next"}):
            locked = http.post("/hooks/recall", json={"query": "x"}, headers=headers)
            assert locked.status_code == 429, locked.text
            assert locked.json()["reason"] == "too_many_wrong_tokens"
            assert 1 <= int(locked.headers["retry-after"]) <= 60
        deep = http.get("/healthz", params={"deep": "1"}, headers={"authorization": f"Bearer {token}"})
        assert deep.status_code == 429 and int(deep.headers["retry-after"]) >= 1
        assert http.post("/mcp", json=MCP_BODY, headers=right).status_code == 429
        assert http.get("/healthz").json()["status"] == "ok"  # liveness stays open


def _send(app: Any, path: str, token: str, client: tuple[str, int], **kw: Any) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=client)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8765") as http:
            return await http.request(
                kw.get("method", "POST"),
                path,
                json=kw.get("json", {"query": "x"}),
                headers={**HEADERS, "authorization": f"Bearer {token}"},
            )

    return anyio.run(go)


def test_one_senders_guessing_locks_out_only_that_sender(settings: Settings) -> None:
    tokened = load_settings(**{**settings.model_dump(), "http_token": "right-token-0123456789"})
    service = build_service(tokened, embeddings=False)
    try:
        app = build_http_app(service, tokened, "127.0.0.1")
        guesser, owner = ("127.0.0.2", 40000), ("127.0.0.3", 40000)
        for n in range(LIMIT):
            assert _send(app, "/hooks/recall", f"guess-{n}", guesser).status_code == 401
        assert _send(app, "/hooks/recall", "right-token-0123456789", guesser).status_code == 429
        # Deep health is a token check too: a wrong token there counts, and the lock holds there.
        deep = _send(app, "/healthz?deep=1", "right-token-0123456789", guesser, method="GET", json=None)
        assert deep.status_code == 429
        assert _send(app, "/hooks/recall", "right-token-0123456789", owner).status_code == 200
        for n in range(LIMIT):
            wrong = _send(app, "/healthz?deep=1", f"guess-{n}", owner, method="GET", json=None)
            assert wrong.status_code == 401
        assert _send(app, "/hooks/recall", "right-token-0123456789", owner).status_code == 429
    finally:
        service.close()


def test_doctor_says_when_the_hook_server_locked_this_user_out(
    http_server: tuple[str, str], cli_env: dict[str, str], tmp_path: Path
) -> None:
    url, token = http_server
    for n in range(LIMIT):
        httpx.post(f"{url}/hooks/recall", json={"query": "x"}, headers={"authorization": f"Bearer g{n}"})
    env = {**cli_env, "MEMWARDEN_HOOK_SERVER": url, "MEMWARDEN_HTTP_TOKEN": token, "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "memwarden", "doctor", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    hooks = next(c for c in json.loads(done.stdout)["checks"] if c["name"] == "hooks")
    assert hooks["status"] == "fail" and "too many wrong tokens" in hooks["detail"], hooks
    assert "wait a minute" in hooks["fix"]
