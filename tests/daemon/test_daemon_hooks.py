"""The prompt hook asks the warm daemon (by meaning too) and falls back to the database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import stop_daemon, wait_until

from memwarden.daemon.launch import attach_or_start
from memwarden.daemon.place import DaemonPlace
from memwarden.settings_reader import load_hot_settings


def prompt_hook(prompt: str, cwd: Path, **env: str) -> dict[str, object] | None:
    payload = {
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(cwd),
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }
    done = subprocess.run(
        [sys.executable, "-m", "memwarden", "hook", "prompt"],
        input=json.dumps(payload),
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return json.loads(done.stdout) if done.stdout.strip() else None


@pytest.mark.slow
def test_the_prompt_hook_finds_by_meaning_through_the_daemon_and_by_keyword_without_it(
    place: DaemonPlace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMWARDEN_EMBEDDER", "builtin")
    monkeypatch.setenv("MEMWARDEN_HOOK_TIMEOUT_MS", "5000")  # a loaded test machine, not the hook budget
    settings = load_hot_settings()
    with attach_or_start(place, settings) as client:
        wait_until(lambda: client.call("ping")["vectors"]["state"] == "ready", timeout=120, what="the model")
        client.call("add", {"content": "The customer wants to be reached by email, never by telephone"})
        # The add does not wait for the model: its vector comes from the background queue.
        question = "how should I get in touch with the client?"
        wait_until(
            lambda: bool(client.call("search", {"query": question})["hits"]), timeout=60, what="the embedding"
        )
    # No word of the prompt is in the memory: only the vector path can find it.
    found = prompt_hook(question, tmp_path)
    assert found is not None
    assert "reached by email" in str(found["hookSpecificOutput"])  # type: ignore[index]
    # A keyword the memory holds still works, and without a daemon the database answers alone.
    stop_daemon(place)
    assert not place.socket_path.exists()
    found = prompt_hook("who prefers email here?", tmp_path)
    assert found is not None and "reached by email" in str(found["hookSpecificOutput"])  # type: ignore[index]
    assert prompt_hook("how should I get in touch with the client?", tmp_path) is None


def test_the_prompt_hook_through_the_daemon_imports_neither_the_store_nor_socket_py(
    place: DaemonPlace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The daemon answers the hook, so the hook's process loads no store and no search code, and
    talks over the Unix socket with the C socket type and string paths (socket.py, selectors,
    hashlib, hmac and pathlib cost it about 14 ms of imports)."""
    monkeypatch.setenv("MEMWARDEN_EMBEDDER", "none")
    # What this test checks is the imports of a hook the daemon answers: on a loaded machine the
    # default 80 ms budget can run out first, and the hook then rightly answers on its own.
    monkeypatch.setenv("MEMWARDEN_HOOK_TIMEOUT_MS", "5000")
    with attach_or_start(place, load_hot_settings()) as client:
        client.call("add", {"content": "The customer wants to be reached by email"})
    payload = json.dumps(
        {
            "session_id": "s1",
            "cwd": str(tmp_path),
            "hook_event_name": "UserPromptSubmit",
            "prompt": "reach by email?",
        }
    )
    code = (
        "import io, sys\n"
        f"sys.stdin = io.StringIO({payload!r})\n"
        "from memwarden.cli.main import main\n"
        "main(['hook', 'prompt'])\n"
        "heavy = {'socket', 'selectors', 'hashlib', '_hashlib', 'hmac', 'pathlib', 'urllib.parse', 'memwarden.store',"
        " 'memwarden.search.searcher'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    answer, loaded = done.stdout.strip().splitlines()
    assert "reached by email" in answer
    assert loaded == "[]"
