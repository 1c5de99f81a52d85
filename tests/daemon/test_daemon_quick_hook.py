"""The prompt hook answered whole by the daemon (hooks/quick.py): same output, fewer imports,
and every failure handed to the usual path."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from memwarden.daemon.client import AttachRefused, DaemonClient
from memwarden.daemon.launch import attach_or_start
from memwarden.daemon.place import DaemonPlace
from memwarden.errors import InvalidInput
from memwarden.settings_reader import HotSettings, load_hot_settings

# What the hook process must not import when the daemon answers it: the standard library's
# costly modules (typing alone is about 15 ms on the bench machine) and every module that
# parses, searches or renders (the daemon runs those).
NOT_IN_THE_HOOK = (
    "typing",
    "re",
    "json",
    "enum",
    "functools",
    "collections",
    "pathlib",
    "logging",
    "socket",
    "selectors",
    "hashlib",
    "memwarden.hooks.commands",
    "memwarden.hooks.payload",
    "memwarden.hooks.render",
    "memwarden.cli.main",
    "memwarden.store",
    "memwarden.search",
)


def hook_input(prompt: str, cwd: Path) -> str:
    return json.dumps(
        {"session_id": "s1", "cwd": str(cwd), "hook_event_name": "UserPromptSubmit", "prompt": prompt}
    )


def run_entry(
    stdin: str, *args: str, after: tuple[str, ...] = (), env: dict[str, str] | None = None
) -> tuple[str, list[str]]:
    """``memwarden [args] hook prompt [after]`` through the console script's entry point: its output, and
    which of NOT_IN_THE_HOOK it had imported when it exited."""
    code = (
        "import atexit, sys\n"
        f"watch = {NOT_IN_THE_HOOK!r}\n"
        "atexit.register(lambda: sys.stderr.write('loaded:' + ','.join(sorted(m for m in watch if m in sys.modules)) + '\\n'))\n"
        f"sys.argv = ['memwarden', *{list(args)!r}, 'hook', 'prompt', *{list(after)!r}]\n"
        "from memwarden.cli.entry import main\n"
        "raise SystemExit(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=stdin,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    loaded = [line for line in done.stderr.splitlines() if line.startswith("loaded:")]
    assert loaded, done.stderr
    return done.stdout, [m for m in loaded[-1].removeprefix("loaded:").split(",") if m]


def usual_path(stdin: str, *argv: str) -> str:
    """The same hook through ``cli.main`` (the daemon's ``recall`` call, rendered in the hook)."""
    code = f"import sys\nfrom memwarden.cli.main import main\nmain({list(argv or ('hook', 'prompt'))!r})\n"
    done = subprocess.run(
        [sys.executable, "-c", code], input=stdin, capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout


@pytest.fixture
def keyword_daemon(place: DaemonPlace, monkeypatch: pytest.MonkeyPatch) -> Iterator[DaemonClient]:
    monkeypatch.setenv("MEMWARDEN_EMBEDDER", "none")
    monkeypatch.setenv("MEMWARDEN_HOOK_TIMEOUT_MS", "5000")  # a loaded test machine, not the hook budget
    with attach_or_start(place, load_hot_settings()) as client:
        yield client


def log_text(settings: HotSettings) -> str:
    path = settings.log_path()
    return path.read_text(encoding="utf-8") if path.exists() else ""


def test_the_daemon_answers_the_whole_hook_with_the_usual_output_and_the_hook_imports_almost_nothing(
    keyword_daemon: DaemonClient, tmp_path: Path
) -> None:
    repo = tmp_path / "shop"
    (repo / ".git").mkdir(parents=True)
    keyword_daemon.call("add", {"content": "The customer wants to be reached by email", "project": "shop"})
    keyword_daemon.call("add", {"content": "I prefer answers about email in English"})  # default
    keyword_daemon.call("add", {"content": "Another shop sends email on Fridays", "project": "other"})
    stdin = hook_input("how do we reach them, email?", repo / "src")
    out, loaded = run_entry(stdin)
    assert loaded == []
    answer = json.loads(out)
    context = answer["hookSpecificOutput"]["additionalContext"]
    # The session's project (the repository above cwd) and default, not the other project.
    assert "reached by email" in context and "in English" in context and "Fridays" not in context
    assert out == usual_path(stdin)
    # --db, --project and a trivial prompt, read as the usual path reads them.
    out, loaded = run_entry(stdin, "--db", os.environ["MEMWARDEN_DB"], after=("--project", "other"))
    assert loaded == []
    assert "Fridays" in out and "reached by email" not in out
    assert out == usual_path(
        stdin, "--db", os.environ["MEMWARDEN_DB"], "hook", "prompt", "--project", "other"
    )
    assert run_entry(hook_input("ok", repo))[0] == ""


def test_hook_input_that_is_not_json_is_logged_by_the_usual_path_and_the_daemon_stays_up(
    keyword_daemon: DaemonClient, settings: HotSettings
) -> None:
    for bad in ("{not json", "[1, 2]", json.dumps({"hook_event_name": "Stop", "session_id": "s"})):
        out, _ = run_entry(bad)
        assert out == ""
    lines = [line for line in log_text(settings).splitlines() if "prompt hook ignored its input" in line]
    assert len(lines) == 3, log_text(settings)
    assert "hook input is not JSON" in lines[0] and "HookInputError" not in lines[0]
    assert "not a JSON object" in lines[1] and "is for 'Stop'" in lines[2]
    assert keyword_daemon.call("ping")["clients"] >= 1


def test_the_hook_prompt_call_names_each_bad_argument(keyword_daemon: DaemonClient, tmp_path: Path) -> None:
    good = {"input": hook_input("reach by email?", tmp_path), "limit": 5, "max_tokens": 600}
    cases = [
        ({"limit": 5, "max_tokens": 600}, "input must be a string"),
        ({**good, "input": 3}, "input must be a string"),
        ({**good, "limit": 0}, r"limit must be a whole number from 1 to 20 \(MEMWARDEN_HOOK_LIMIT\)"),
        ({**good, "limit": "5"}, "limit must be a whole number"),
        ({**good, "limit": True}, "limit must be a whole number"),
        ({**good, "max_tokens": 10}, "max_tokens must be a whole number from 50 to 20000"),
        ({**good, "project": 7}, "project must be a string or null"),
        ({**good, "tenant": "other"}, r"unknown field\(s\) tenant"),
    ]
    for args, message in cases:
        with pytest.raises(InvalidInput, match=message):
            keyword_daemon.call("hook_prompt", args)
    with pytest.raises(InvalidInput, match="hook input is not JSON"):
        keyword_daemon.call("hook_prompt", {**good, "input": "{"})
    assert keyword_daemon.call("hook_prompt", good) == {"text": None}  # nothing stored yet
    keyword_daemon.call("add", {"content": "The customer wants to be reached by email"})
    text = keyword_daemon.call("hook_prompt", good)["text"]
    assert "reached by email" in json.loads(text)["hookSpecificOutput"]["additionalContext"]


def test_a_daemon_that_never_answers_is_asked_once_then_the_database_answers(
    place: DaemonPlace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A socket that accepts and stays silent: the hook waits its timeout once, searches the
    database itself (no second wait through the usual path's daemon call) and logs why."""
    monkeypatch.setenv("MEMWARDEN_DAEMON", "off")
    done = subprocess.run(
        [sys.executable, "-m", "memwarden", "add", "The customer wants to be reached by email"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "stored" in done.stdout
    place.prepare()
    silent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    silent.bind(place.socket_file)
    silent.listen(8)
    accepted: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                accepted.append(silent.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    try:
        out, _ = run_entry(
            hook_input("reach by email?", tmp_path),
            env={"MEMWARDEN_DAEMON": "auto", "MEMWARDEN_HOOK_TIMEOUT_MS": "300"},
        )
    finally:
        silent.close()
        for conn in accepted:
            conn.close()
        os.unlink(place.socket_file)
    assert "reached by email" in out
    assert len(accepted) == 1
    log = log_text(load_hot_settings())
    assert "prompt hook daemon not used (the daemon did not answer in time); searched the database" in log


def test_one_call_with_the_hello_in_the_same_write_answers_or_is_refused_by_name(
    keyword_daemon: DaemonClient, place: DaemonPlace, settings: HotSettings
) -> None:
    added = DaemonClient.call_once(
        place, settings, "add", {"content": "Deploys go out on Tuesdays"}, timeout=5
    )
    found = DaemonClient.call_once(place, settings, "search", {"query": "deploys"}, timeout=5)
    assert [h["id"] for h in found["hits"]] == [added["memory"]["id"]]
    with pytest.raises(AttachRefused) as refused:
        DaemonClient.call_once(place, load_hot_settings(redaction="off"), "ping", {}, timeout=5)
    assert refused.value.code == "settings_differ" and "MEMWARDEN_REDACTION" in refused.value.reason
    with pytest.raises(Exception, match="op must be one of"):
        DaemonClient.call_once(place, settings, "drop_everything", {}, timeout=5)
    assert keyword_daemon.call("search", {"query": "deploys"})["hits"][0]["id"] == added["memory"]["id"]


def test_a_socket_left_by_a_killed_daemon_means_no_daemon_and_nothing_is_logged(
    place: DaemonPlace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMWARDEN_DAEMON", "off")
    subprocess.run(
        [sys.executable, "-m", "memwarden", "add", "The customer wants to be reached by email"],
        capture_output=True,
        timeout=60,
        check=True,
    )
    place.prepare()
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(place.socket_file)  # bound, never listening: connecting is refused
    stale.close()
    try:
        out, _ = run_entry(hook_input("reach by email?", tmp_path), env={"MEMWARDEN_DAEMON": "auto"})
    finally:
        os.unlink(place.socket_file)
    assert "reached by email" in out
    assert "daemon" not in log_text(load_hot_settings())
