"""cli/entry.py: the cyclic garbage collector is off while a command starts, and back on for
every command but ``--version``, ``search`` and the hooks (which end within about 100 ms)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from cli_runner import run_memwarden

from memwarden.app import build_service
from memwarden.config import load_settings

# Runs the real entry point in a fresh interpreter and reports, from an atexit handler (the
# short commands end with os._exit once those handlers ran), whether the collector is on and
# whether the command returned to the interpreter.
PROBE = (
    "import atexit, gc, sys\n"
    "sys.argv = ['memwarden', *sys.argv[1:]]\n"
    "state = {'returned': False}\n"
    "atexit.register(lambda: print('GC', gc.isenabled(), state['returned'], file=sys.stderr))\n"
    "from memwarden.cli.entry import main\n"
    "try:\n"
    "    code = main()\n"
    "except SystemExit as exc:\n"
    "    code = exc.code\n"
    "state['returned'] = True\n"
    "sys.exit(code)\n"
)


def probe(env: dict[str, str], *args: str, stdin: str = "") -> tuple[bool, bool, int]:
    """(collector on, returned to the interpreter, exit code) of one command."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    line = next(line for line in done.stderr.splitlines() if line.startswith("GC "))
    _, enabled, returned = line.split()
    return enabled == "True", returned == "True", done.returncode


@pytest.fixture
def stored(cli_env: dict[str, str]) -> dict[str, str]:
    subprocess.run(
        [sys.executable, "-m", "memwarden", "add", "the client prefers email"],
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=120,
        check=True,
    )
    return cli_env


def test_search_and_version_run_without_the_collector_and_skip_the_teardown(stored: dict[str, str]) -> None:
    assert probe(stored, "search", "client", "--json") == (False, False, 0)
    assert probe(stored, "--version") == (False, False, 0)


def test_the_prompt_hook_runs_without_the_collector_and_skips_the_teardown(stored: dict[str, str]) -> None:
    payload = (
        '{"session_id": "s", "cwd": "/tmp", "hook_event_name": "UserPromptSubmit", "prompt": "client email?"}'
    )
    assert probe(stored, "hook", "prompt", stdin=payload) == (False, False, 0)


@pytest.mark.parametrize(
    ("args", "exit_code"),
    [
        (("list", "--json"), 0),
        (("stats",), 0),
        (("search", "--no-such-flag"), 2),  # a usage error, through the full parser
        (("no-such-command",), 2),
    ],
)
def test_every_other_command_turns_it_back_on(
    stored: dict[str, str], args: tuple[str, ...], exit_code: int
) -> None:
    assert probe(stored, *args) == (True, True, exit_code)


def test_importing_the_cli_leaves_the_collector_alone() -> None:
    code = "import gc; import memwarden.cli.main, memwarden.__init__; print(gc.isenabled())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "True"


def run_cli(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """A real process: this file tests the console entry itself (tests/cli_runner.py)."""
    return run_memwarden(env, *args, stdin=stdin, timeout=120)


def test_the_output_and_exit_code_are_whole_after_the_short_exit(stored: dict[str, str]) -> None:
    # An answer larger than a pipe's buffer (64 KiB), so it is still being written at the exit.
    service = build_service(load_settings(db=stored["MEMWARDEN_DB"], embedder="none"), embeddings=False)
    for n in range(100):
        service.memories.add(f"the client prefers email for invoice batch {n} " + "detail " * 150)
    service.close()
    done = run_cli(stored, "search", "client email invoice", "--limit", "100", "--json")
    assert done.returncode == 0, done.stderr
    assert len(done.stdout) > 65_536
    assert len(json.loads(done.stdout)["hits"]) == 100
    assert done.stderr == ""
    # A failure keeps its message and exit code.
    missing = run_cli({**stored, "MEMWARDEN_DB": stored["MEMWARDEN_DB"] + ".absent"}, "search", "client")
    assert missing.returncode == 1
    assert "no database at" in missing.stderr


def test_atexit_handlers_still_run(stored: dict[str, str], tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    code = (
        "import atexit, sys\n"
        f"atexit.register(lambda: open({str(marker)!r}, 'w').write('yes'))\n"
        "sys.argv = ['memwarden', 'search', 'client', '--json']\n"
        "from memwarden.cli.entry import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=stored, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert marker.read_text() == "yes"


def test_a_plain_serve_without_the_daemon_serves_mcp_in_its_process_with_the_collector_on(
    cli_env: dict[str, str],
) -> None:
    # cli_env sets MEMWARDEN_DAEMON=off: the plain ``serve`` (cli/plain_serve.py) serves itself.
    assert cli_env.get("MEMWARDEN_DAEMON") == "off"
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    session = "\n".join(
        json.dumps(message)
        for message in (
            initialize,
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        )
    )
    assert probe(cli_env, "serve", stdin=session + "\n") == (True, True, 0)
    done = run_cli(cli_env, "serve", stdin=session + "\n")
    assert done.returncode == 0, done.stderr
    answers = {answer["id"]: answer for answer in map(json.loads, done.stdout.splitlines())}
    assert answers[1]["result"]["serverInfo"]["name"] == "memwarden"
    assert "memory_add" in {tool["name"] for tool in answers[2]["result"]["tools"]}


def test_a_plain_serve_refuses_a_file_that_is_not_a_database_in_one_line(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n", encoding="utf-8")
    done = run_cli({**cli_env, "MEMWARDEN_DB": str(notes)}, "serve")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"memwarden: {notes} (from MEMWARDEN_DB) is not a memwarden database (not a SQLite file): "
        "check the path, or set --db / MEMWARDEN_DB to your database"
    ]
    assert notes.read_text(encoding="utf-8") == "not a database\n"  # nothing written to it
