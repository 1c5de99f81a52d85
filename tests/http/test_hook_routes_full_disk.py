"""The hook routes on a full disk (issue 35, the soak's HTTP 500s): a real ``memwarden serve
--http`` whose database lives on a small tmpfs that fills up. A search writes its audit row
before it answers, so a full disk refuses it; the routes say so with a 503 whose ``reason`` is
``disk_full`` and whose message says to free space, never a 500, and the prompt hook falls back
as it does for any other refusal. Mounting needs root: elsewhere the tests skip and say so."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from audit_rows import audit_rows
from http_servers import start_http_server, stop_http_server

from memwarden.errors import InvalidInput, StorageError
from memwarden.http.error_answers import status_for
from memwarden.rate_limits import RateLimited
from tests.hooks.test_hooks import prompt_payload, run_cli
from tests.small_disk import fill, small_disk


def _add(env: dict[str, str], text: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "memwarden", "add", text, "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return str(json.loads(done.stdout)["id"])


def _assert_disk_full_answer(answer: httpx.Response, database: Path) -> None:
    assert answer.status_code == 503, answer.text
    body = answer.json()
    assert body["error"] == "storage_error" and body["reason"] == "disk_full"
    assert f"the disk is full (database or disk is full) at {database}" in body["message"]
    assert "free space there" in body["message"]


def test_the_hook_routes_answer_a_full_disk_with_a_503_and_the_hook_falls_back(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    with small_disk(tmp_path / "disk", "3m") as disk:
        database = disk / "memwarden.db"
        # The log stays off the small disk, so the hook's fallback can be read afterwards.
        env = {**cli_env, "MEMWARDEN_DB": str(database)}
        memory = _add(env, "We deploy the release on Thursday after the review")
        process, port = start_http_server(env)
        url = f"http://127.0.0.1:{port}"
        try:
            recall = {"query": "deploy release", "limit": 5}
            hook = json.dumps(prompt_payload("when do we deploy the release?", tmp_path))
            prompt = {"input": hook, "project": None, "limit": 5, "max_tokens": 600}
            before = httpx.post(url + "/hooks/recall", json=recall, timeout=30)
            assert [h["id"] for h in before.json()["hits"]] == [memory]
            rows = len(audit_rows(database))

            fill(disk)
            _assert_disk_full_answer(httpx.post(url + "/hooks/recall", json=recall, timeout=30), database)
            _assert_disk_full_answer(httpx.post(url + "/hooks/prompt", json=prompt, timeout=30), database)

            # The hook asks the server first (MEMWARDEN_HOOK_SERVER), is refused, searches the
            # database itself, which is refused for the same reason: it prints nothing and
            # exits 0 (a hook never breaks the session), and its log says both.
            hooked = run_cli(
                {**env, "MEMWARDEN_HOOK_SERVER": url, "MEMWARDEN_HOOK_TIMEOUT_MS": "10000"},
                "prompt",
                prompt_payload("when do we deploy the release?", tmp_path),
            )
            assert (hooked.returncode, hooked.stdout, hooked.stderr) == (0, "", "")
            log = Path(env["MEMWARDEN_LOG_FILE"]).read_text(encoding="utf-8")
            assert "server not used (server answered HTTP 503); searched the database" in log
            assert "prompt hook failed: the search was refused because its audit row" in log

            (disk / "filler").unlink()
            after = httpx.post(url + "/hooks/recall", json=recall, timeout=30)
            assert after.status_code == 200 and [h["id"] for h in after.json()["hits"]] == [memory]
        finally:
            stop_http_server(process)
        # The refused searches left no row; the two answered ones left one each.
        assert len(audit_rows(database)) == rows + 1


def test_each_error_kind_has_its_status_and_a_failed_store_is_never_a_500() -> None:
    assert status_for(InvalidInput("query must be a string", field="query")) == 400
    assert status_for(RateLimited("slow down", retry_after_s=3)) == 429
    for condition in ("full", "readonly", "busy", "corrupt", "cantopen", None):
        assert status_for(StorageError("the database failed", condition=condition)) == 503


@pytest.mark.parametrize(
    ("condition", "reason", "retry_after"),
    [("full", "disk_full", None), ("busy", "database_busy", "1"), (None, "storage_unavailable", None)],
)
def test_a_storage_refusal_names_its_reason_and_only_a_busy_database_says_when_to_retry(
    condition: str | None, reason: str, retry_after: str | None
) -> None:
    from memwarden.http.error_answers import error_response, refusal_log

    answer = error_response(
        StorageError("the database failed", condition=condition),
        route="/hooks/recall",
        refusals=refusal_log(),
    )
    assert answer.status_code == 503
    assert json.loads(bytes(answer.body))["reason"] == reason
    assert answer.headers.get("retry-after") == retry_after
