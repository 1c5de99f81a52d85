"""Second attack round (issue 33 item 6): one token crowding everyone else out of the dashboard.

Sessions are capped (``sessions.MAX_SESSIONS``) and the least recently used one went when the
cap was reached, whoever held it: a confined token that logged in that many times logged the
operator out. Now an actor past ``MAX_SESSIONS_PER_ACTOR`` ends its own oldest session.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from test_ui_http import login
from ui_helpers import HOST, TOKEN, fill

from memwarden.app import build_service
from memwarden.govern.identity import token_digest
from memwarden.http.app import build_http_app
from memwarden.ui import sessions


def token_login(client: TestClient, token: str) -> None:
    client.cookies.clear()
    nonce = re.search(r'name="csrf" value="([^"]+)"', client.get("/ui/login").text)
    assert nonce is not None
    r = client.post("/ui/login", data={"csrf": nonce.group(1), "token": token}, headers={"origin": HOST})
    assert r.status_code == 303


def test_one_token_logging_in_many_times_ends_only_its_own_sessions(
    settings_for: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The global cap lowered so that crowding it takes a few dozen logins, not a thousand.
    monkeypatch.setattr(sessions, "MAX_SESSIONS", sessions.MAX_SESSIONS_PER_ACTOR + 10)
    tokens = tmp_path / "tokens.json"
    entry = {"sha256": token_digest("mwt_mallory-token"), "actor": "mallory", "tenants": ["globex"]}
    tokens.write_text(json.dumps({"tokens": [entry]}), encoding="utf-8")
    settings = settings_for(tokens_file=str(tokens), http_token=TOKEN)
    service = build_service(settings, ops=True)
    try:
        fill(service, backup=False)
        app = build_http_app(service, settings)
        operator = TestClient(app, base_url=HOST, follow_redirects=False)
        login(operator, app)
        mallory = TestClient(app, base_url=HOST, follow_redirects=False)
        token_login(mallory, "mwt_mallory-token")
        first = dict(mallory.cookies)
        for _ in range(sessions.MAX_SESSIONS + 5):
            token_login(mallory, "mwt_mallory-token")
        assert mallory.get("/ui/").status_code == 200  # the newest session works
        assert operator.get("/ui/").status_code == 200, "the operator was logged out"
        mallory.cookies.clear()
        mallory.cookies.update(first)
        assert mallory.get("/ui/").status_code == 303  # mallory's oldest session ended
    finally:
        service.close()
