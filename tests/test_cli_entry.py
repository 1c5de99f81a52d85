"""cli/entry.py: the cyclic garbage collector is off while a command starts, and back on for
every command but ``--version``, ``search`` and the hooks (which end within about 100 ms)."""

import subprocess
import sys

import pytest

# Runs the real entry point in a fresh interpreter and reports whether the collector is on
# once the command has returned.
PROBE = (
    "import gc, sys\n"
    "sys.argv = ['memwarden', *sys.argv[1:]]\n"
    "from memwarden.cli.entry import main\n"
    "try:\n"
    "    code = main()\n"
    "except SystemExit as exc:\n"
    "    code = exc.code\n"
    "print('GC', gc.isenabled(), code, file=sys.stderr)\n"
)


def probe(env: dict[str, str], *args: str, stdin: str = "") -> tuple[bool, int]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    line = next(line for line in done.stderr.splitlines() if line.startswith("GC "))
    _, enabled, code = line.split()
    return enabled == "True", int(code)


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


def test_search_and_version_run_without_the_collector(stored: dict[str, str]) -> None:
    assert probe(stored, "search", "client", "--json") == (False, 0)
    assert probe(stored, "--version") == (False, 0)


def test_the_prompt_hook_runs_without_the_collector(stored: dict[str, str]) -> None:
    payload = (
        '{"session_id": "s", "cwd": "/tmp", "hook_event_name": "UserPromptSubmit", "prompt": "client email?"}'
    )
    assert probe(stored, "hook", "prompt", stdin=payload) == (False, 0)


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
    assert probe(stored, *args) == (True, exit_code)


def test_importing_the_cli_leaves_the_collector_alone() -> None:
    code = "import gc; import memwarden.cli.main, memwarden.__init__; print(gc.isenabled())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "True"
