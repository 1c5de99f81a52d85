"""The prompt hook through a real memwarden HTTP server on loopback, and the fallback around it."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from audit_rows import audit_rows
from http_servers import free_port

from memwarden.hooks.loopback import loopback_address, plain_loopback_address, post_json
from memwarden.net import LoopbackError
from tests.hooks.test_hooks import prompt_payload, run_cli

RECALL = "/hooks/recall"


@pytest.fixture(scope="module")
def refusing_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """One real server for the bad-input tables of this module: each case is refused before
    anything is read or written, so the cases need no server of their own."""
    from cli_runner import cli_environment
    from http_servers import start_http_server, stop_http_server

    folder = tmp_path_factory.mktemp("refusing")
    token = "test-token-0123456789"
    env = cli_environment(folder / "memwarden.db", folder, MEMWARDEN_HTTP_TOKEN=token, MEMWARDEN_TOOLS="all")
    process, port = start_http_server(env)
    try:
        yield f"http://127.0.0.1:{port}", token
    finally:
        stop_http_server(process)


def _add(env: dict[str, str], text: str, project: str) -> str:
    out = subprocess.run(
        [sys.executable, "-m", "memwarden", "add", text, "--project", project, "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return str(json.loads(out.stdout)["id"])


def test_recall_route_answers_the_merged_hits_for_the_token(
    http_server: tuple[str, str],
    cli_env: dict[str, str],
) -> None:
    url, token = http_server
    acme = _add(cli_env, "The Acme client prefers email", "acme")
    general = _add(cli_env, "The user prefers email summaries", "default")
    _add(cli_env, "The Globex client prefers email too", "globex")
    answer = httpx.post(
        url + RECALL,
        json={"query": "prefers email", "projects": ["acme", "default"], "limit": 5},
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert answer.status_code == 200
    assert sorted(h["id"] for h in answer.json()["hits"]) == sorted([acme, general])
    assert all("injection_flags" in h and "score" in h for h in answer.json()["hits"])
    # One search for the caller, however many projects: one audit row naming them all.
    searches = [r for r in audit_rows(cli_env["MEMWARDEN_DB"]) if r["action"] == "search"]
    assert len(searches) == 1
    assert searches[0]["project"] == "acme" and searches[0]["detail"]["projects"] == ["acme", "default"]
    assert sorted(searches[0]["memory_ids"]) == sorted([acme, general])


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"projects": ["a"]}, "query"),
        ({"query": 3}, "query"),
        ({"query": "x", "projects": "acme"}, "projects"),
        ({"query": "x", "projects": []}, "projects"),
        ({"query": "x", "projects": [1]}, "projects"),
        ({"query": "x", "limit": 0}, "limit"),
        ({"query": "x", "limit": True}, "limit"),
        ([1, 2], "body"),
        ({"query": "x" * 5000}, "query"),
    ],
)
def test_recall_route_rejects_bad_input_with_a_clear_400(
    refusing_server: tuple[str, str],
    body: object,
    field: str,
) -> None:
    url, token = refusing_server
    answer = httpx.post(url + RECALL, json=body, headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_input" and answer.json()["field"] == field


def test_recall_route_needs_the_token_and_json(http_server: tuple[str, str]) -> None:
    url, token = http_server
    assert httpx.post(url + RECALL, json={"query": "x"}, timeout=10).status_code == 401
    auth = {"Authorization": f"Bearer {token}"}
    answer = httpx.post(
        url + RECALL, content=b"{nope", headers={**auth, "content-type": "application/json"}, timeout=10
    )
    assert answer.status_code == 400 and answer.json()["error"] == "invalid_input"
    # A page can send text/plain without a CORS preflight: the security layer refuses it (issue 14).
    plain = httpx.post(
        url + RECALL, content=b'{"query": "x"}', headers={**auth, "content-type": "text/plain"}, timeout=10
    )
    assert plain.status_code == 415 and plain.json()["error"] == "unsupported_media_type"


def test_prompt_hook_asks_the_server_and_prints_what_it_found(
    http_server: tuple[str, str],
    cli_env: dict[str, str],
    tmp_path: Path,
) -> None:
    url, token = http_server
    memory = _add(cli_env, "The Acme client prefers email over phone calls", "acme")
    # The hook cannot see the database: only the server can answer.
    env = {
        **cli_env,
        "MEMWARDEN_DB": str(tmp_path / "elsewhere.db"),
        "MEMWARDEN_HOOK_SERVER": url,
        "MEMWARDEN_HTTP_TOKEN": token,
        "MEMWARDEN_HOOK_TIMEOUT_MS": "5000",
    }
    repo = tmp_path / "acme"
    repo.mkdir()
    result = run_cli(env, "prompt", prompt_payload("how do I contact the Acme client, email?", repo))
    assert result.returncode == 0 and result.stderr == ""
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert memory in context and "prefers email over phone calls" in context


def test_prompt_hook_falls_back_to_the_database_when_the_server_is_down(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    memory = _add(cli_env, "The Acme client prefers email over phone calls", "acme")
    env = {**cli_env, "MEMWARDEN_HOOK_SERVER": f"http://127.0.0.1:{free_port()}"}
    repo = tmp_path / "acme"
    repo.mkdir()
    result = run_cli(env, "prompt", prompt_payload("contact the Acme client by email", repo))
    assert result.returncode == 0 and memory in result.stdout
    assert "server not used" in Path(cli_env["MEMWARDEN_LOG_FILE"]).read_text(encoding="utf-8")


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A loopback port that accepts connections and never answers (a hung server)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    thread.join(timeout=5)
    for conn in accepted:
        conn.close()
    listener.close()


def test_a_hung_server_costs_only_the_timeout(silent_server: str) -> None:
    import time

    started = time.monotonic()
    with pytest.raises(LoopbackError, match="within 50 ms"):
        post_json(silent_server, RECALL, {"query": "x"}, token=None, timeout=0.05)
    assert time.monotonic() - started < 1.0


@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.5:8765",
        "https://127.0.0.1:8765",
        "http://example.com",
        "ftp://127.0.0.1",
        "http://127.0.0.1:notaport",
    ],
)
def test_prompts_are_only_sent_to_loopback_http(url: str) -> None:
    with pytest.raises(LoopbackError):
        loopback_address(url)


def test_loopback_addresses_are_accepted() -> None:
    assert loopback_address("http://127.0.0.1:8765") == ("127.0.0.1", 8765, "")
    assert loopback_address("http://localhost:9000/base/") == ("localhost", 9000, "/base")
    assert loopback_address("http://[::1]:8765")[:2] == ("::1", 8765)


PROMPT = "/hooks/prompt"


def test_prompt_route_answers_the_whole_hook_for_the_token(
    http_server: tuple[str, str],
    cli_env: dict[str, str],
    tmp_path: Path,
) -> None:
    url, token = http_server
    memory = _add(cli_env, "The Acme client prefers email over phone calls", "acme")
    _add(cli_env, "The Globex client prefers email too", "globex")
    auth = {"Authorization": f"Bearer {token}"}
    # The server never looks at the session's folder (a server must not answer questions about
    # its own file system): the hook names the project. Here cwd is a repository named "globex"
    # on this machine, which changes nothing.
    (tmp_path / "globex" / ".git").mkdir(parents=True)
    hook = json.dumps(prompt_payload("how do I reach them, email?", tmp_path / "globex"))
    body = {"input": hook, "project": "acme", "limit": 5, "max_tokens": 600}
    answer = httpx.post(url + PROMPT, json=body, headers=auth, timeout=10)
    assert answer.status_code == 200
    context = json.loads(answer.json()["text"])["hookSpecificOutput"]["additionalContext"]
    assert memory in context and "Globex" not in context  # the named project and default
    everywhere = httpx.post(url + PROMPT, json={**body, "project": None}, headers=auth, timeout=10)
    assert "Globex" in json.loads(everywhere.json()["text"])["hookSpecificOutput"]["additionalContext"]
    trivial = {**body, "input": json.dumps(prompt_payload("ok", tmp_path))}
    assert httpx.post(url + PROMPT, json=trivial, headers=auth, timeout=10).json() == {"text": None}
    assert httpx.post(url + PROMPT, json=body, timeout=10).status_code == 401
    searches = [r for r in audit_rows(cli_env["MEMWARDEN_DB"]) if r["action"] == "search"]
    assert [s["detail"].get("projects") for s in searches] == [["acme", "default"], None]
    assert searches[1]["project"] is None


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"limit": 5, "max_tokens": 600}, "input"),
        ({"input": 3, "limit": 5, "max_tokens": 600}, "input"),
        ({"input": "{", "limit": 5, "max_tokens": 600}, "input"),
        ({"input": '{"hook_event_name": "Stop"}', "limit": 5, "max_tokens": 600}, "input"),
        ({"input": "{}", "project": 1, "limit": 5, "max_tokens": 600}, "project"),
        ({"input": "{}", "limit": 21, "max_tokens": 600}, "limit"),
        ({"input": "{}", "limit": 5, "max_tokens": 20_001}, "max_tokens"),
        ({"input": "{}", "limit": 5}, "max_tokens"),
        ({"input": "{}", "limit": 5, "max_tokens": 600, "tenant": "x"}, "tenant"),
        ([1], "body"),
    ],
)
def test_prompt_route_rejects_bad_input_with_a_clear_400(
    refusing_server: tuple[str, str],
    body: object,
    field: str,
) -> None:
    url, token = refusing_server
    answer = httpx.post(url + PROMPT, json=body, headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_input" and answer.json()["field"] == field


def test_the_hook_through_the_server_prints_what_the_usual_path_prints_and_imports_almost_nothing(
    http_server: tuple[str, str],
    cli_env: dict[str, str],
    tmp_path: Path,
) -> None:
    url, token = http_server
    _add(cli_env, "The Acme client prefers email over phone calls", "acme")
    env = {
        **cli_env,
        "MEMWARDEN_DB": str(tmp_path / "elsewhere.db"),  # only the server can answer
        "MEMWARDEN_HOOK_SERVER": url + "/",
        "MEMWARDEN_HTTP_TOKEN": token,
        "MEMWARDEN_HOOK_TIMEOUT_MS": "5000",
    }
    stdin = json.dumps(prompt_payload("how do I contact the Acme client, email?", tmp_path / "acme"))
    heavy = ("typing", "re", "json", "enum", "socket", "urllib.parse", "memwarden.hooks.commands")
    quick = (
        "import atexit, sys\n"
        f"atexit.register(lambda: sys.stderr.write(repr(sorted(m for m in {heavy!r} if m in sys.modules))))\n"
        "sys.argv = ['memwarden', 'hook', 'prompt']\n"
        "from memwarden.cli.entry import main\n"
        "raise SystemExit(main())\n"
    )
    usual = "from memwarden.cli.main import main\nmain(['hook', 'prompt'])\n"
    ran = [
        subprocess.run(
            [sys.executable, "-c", code],
            input=stdin,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        for code in (quick, usual)
    ]
    assert ran[0].stderr == "[]"
    assert "prefers email over phone calls" in ran[0].stdout
    assert ran[0].stdout == ran[1].stdout
    log = Path(cli_env["MEMWARDEN_LOG_FILE"])
    assert "not used" not in (log.read_text(encoding="utf-8") if log.exists() else "")


def test_a_hung_server_is_waited_for_once_by_the_hook(
    silent_server: str, cli_env: dict[str, str], tmp_path: Path
) -> None:
    memory = _add(cli_env, "The Acme client prefers email over phone calls", "acme")
    env = {**cli_env, "MEMWARDEN_HOOK_SERVER": silent_server, "MEMWARDEN_HOOK_TIMEOUT_MS": "300"}
    result = run_cli(env, "prompt", prompt_payload("contact the Acme client by email", tmp_path / "acme"))
    assert result.returncode == 0 and memory in result.stdout
    log = Path(cli_env["MEMWARDEN_LOG_FILE"]).read_text(encoding="utf-8").splitlines()
    assert len(log) == 1 and "server not used (no answer from 127.0.0.1" in log[0]


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8765",
        "http://127.0.0.1:8765/",
        " http://127.1.2.3/base/ ",
        "http://127.0.0.1",
        "http://127.0.0.1@evil.example:8765",
        "http://evil.example@127.0.0.1:8765",
        "http://127.0.0.1.evil.example:8765",
        "http://127.0.0.1:8765@evil.example",
        "http://127.0.0.1:0",
        "http://127.0.0.1:65536",
        "http://127.0.0.1:+80",
        "http://127.0.0.1:8765?x=1",
        "http://127.0.0.1:8765#frag",
        "http://127.0.0.1%2f@evil.example",
        "http://127.0.0.1\\@evil.example",
        "http://256.0.0.1",
        "http://127.0.0.1:8765\t",
        "http://localhost:8765",
        "http://[::1]:8765",
        "HTTP://127.0.0.1:8765",
        "https://127.0.0.1",
        "http://10.0.0.5",
    ],
)
def test_the_quick_path_reads_only_plain_loopback_urls_and_reads_them_as_urllib_does(url: str) -> None:
    plain = plain_loopback_address(url)
    if plain is None:
        return  # the usual path reads it (and refuses what is not loopback)
    assert plain == loopback_address(url)
    assert plain[0].startswith("127.")


def test_plain_loopback_urls_that_the_quick_path_reads() -> None:
    assert plain_loopback_address("http://127.0.0.1:8765/") == ("127.0.0.1", 8765, "")
    assert plain_loopback_address(" http://127.1.2.3/base/ ") == ("127.1.2.3", 80, "/base")
    for other in (
        "http://localhost:8765",
        "http://127.0.0.1@evil.example",
        "http://10.0.0.5",
        "http://127.0.0.1:0",
    ):
        assert plain_loopback_address(other) is None
