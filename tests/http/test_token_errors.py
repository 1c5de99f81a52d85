"""A refused token says whether none was sent or it did not match, and nothing about the valid
ones (issue 38): the HTTP 401 body, the prompt hook's log line and ``memwarden doctor``, all
against a real server with a token."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx

from tests.hooks.test_hooks import prompt_payload, run_cli

ROUTE = "/hooks/recall"


def _refusal(url: str, headers: dict[str, str]) -> tuple[int, dict[str, str]]:
    answer = httpx.post(url + ROUTE, json={"query": "x"}, headers=headers, timeout=10)
    return answer.status_code, answer.json()


def test_a_401_says_missing_malformed_or_mismatched_and_reveals_nothing(
    http_server: tuple[str, str],
) -> None:
    url, token = http_server
    status, missing = _refusal(url, {})
    assert status == 401 and missing["reason"] == "token_missing" and "no token sent" in missing["message"]
    status, basic = _refusal(url, {"Authorization": "Basic dXNlcjpwYXNz"})
    assert status == 401 and basic["reason"] == "not_a_bearer_token"
    status, wrong = _refusal(url, {"Authorization": "Bearer not-the-token"})
    assert status == 401 and wrong["reason"] == "token_mismatch" and "does not match" in wrong["message"]
    # A near miss (the real token but its last character) is answered word for word as any other.
    assert _refusal(url, {"Authorization": f"Bearer {token[:-1]}"}) == (401, wrong)
    for body in (missing, basic, wrong):
        assert token not in json.dumps(body) and token[:8] not in json.dumps(body)
    assert (
        httpx.post(url + ROUTE, json={"query": "x"}, headers={"Authorization": f"Bearer {token}"}).status_code
        == 200
    )


def test_the_prompt_hook_logs_a_token_mismatch_and_doctor_names_it(
    http_server: tuple[str, str],
    cli_env: dict[str, str],
    tmp_path: Path,
) -> None:
    url, token = http_server
    env = {
        **cli_env,
        "MEMWARDEN_HOOK_SERVER": url,
        "MEMWARDEN_HTTP_TOKEN": "a-stale-token",
        "MEMWARDEN_HOOK_TIMEOUT_MS": "5000",
        "HOME": str(tmp_path),
    }
    repo = tmp_path / "acme"
    repo.mkdir()
    assert run_cli(env, "prompt", prompt_payload("how do I reach the Acme client", repo)).returncode == 0
    log = Path(env["MEMWARDEN_LOG_FILE"]).read_text(encoding="utf-8")
    assert "HTTP 401: token mismatch" in log and "MEMWARDEN_HTTP_TOKEN" in log

    def hooks_check(environment: dict[str, str]) -> dict[str, str]:
        done = subprocess.run(
            [sys.executable, "-m", "memwarden", "doctor", "--json"],
            env=environment,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
        return next(c for c in json.loads(done.stdout)["checks"] if c["name"] == "hooks")

    refused = hooks_check(env)
    assert refused["status"] == "fail" and "token mismatch" in refused["detail"]
    assert "MEMWARDEN_HTTP_TOKEN" in refused["fix"]
    accepted = hooks_check({**env, "MEMWARDEN_HTTP_TOKEN": token})
    if accepted["status"] == "ok":
        assert "accepts the hook's token" in accepted["detail"]
    else:  # a slow moment on a busy machine: then the warning is about the timeout, not the token
        assert accepted["status"] == "warn" and "too tight" in accepted["detail"], accepted
    # A budget no round trip fits: doctor says so and names the setting to raise.
    tight = hooks_check({**env, "MEMWARDEN_HTTP_TOKEN": token, "MEMWARDEN_HOOK_TIMEOUT_MS": "1"})
    assert tight["status"] == "warn" and "too tight" in tight["detail"]
    assert "MEMWARDEN_HOOK_TIMEOUT_MS=" in tight["fix"]
