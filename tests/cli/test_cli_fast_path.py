"""`memwarden search` is read without argparse when its shape is plain (cli.argv_shapes.search_args):
it must read every such shape exactly as the full parser does, and leave every other shape to it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from memwarden.cli.argv_shapes import search_args
from memwarden.cli.main import build_parser, cmd_search

PLAIN = [
    ["search", "client email"],
    ["search"],
    ["search", ""],
    ["search", "client", "--json"],
    ["search", "--json", "client"],
    ["--db", "/tmp/x.db", "search", "q"],
    ["search", "q", "--project", "p1", "--limit", "5", "--json"],
    ["search", "q", "--scope", "p1"],
    ["search", "q", "--project", "a", "--project", "b"],
    ["search", "q", "--tag", "t1", "--tag", "t2"],
    ["search", "q", "--hybrid", "--include-expired", "--include-context", "--max-tokens", "300"],
    ["search", "q", "--limit", "0"],
    ["search", "q", "--limit", "007"],
    ["search", "--limit", "3"],
    ["search", "naïve 数据库 query"],
]
OTHER = [
    ["search", "--help"],
    ["search", "-h"],
    ["search", "q", "--limit=5"],
    ["search", "q", "--lim", "5"],  # argparse's abbreviation
    ["search", "q", "--limit", "-5"],
    ["search", "q", "--limit", "+5"],
    ["search", "q", "--limit", "1_0"],
    ["search", "q", "--limit", "٥"],
    ["search", "q", "--limit", "five"],
    ["search", "q", "--limit"],
    ["search", "q", "--project"],
    ["search", "q", "--project", "-p"],
    ["search", "q", "r"],
    ["search", "-q"],
    ["search", "--", "-q"],
    ["search", "q", "--debug"],
    ["--debug", "search", "q"],
    ["--db=/tmp/x.db", "search", "q"],
    ["--db", "--json", "search"],
    ["list"],
    ["searc", "q"],
    [],
]


@pytest.mark.parametrize("argv", PLAIN, ids=lambda a: " ".join(a) or "(none)")
def test_plain_shapes_read_as_argparse_reads_them(argv: list[str]) -> None:
    fast = search_args(argv, cmd_search)
    assert fast is not None
    parsed = build_parser(core_only=True).parse_args(argv)
    assert vars(fast) == vars(parsed)
    assert fast.handler is cmd_search


@pytest.mark.parametrize("argv", OTHER, ids=lambda a: " ".join(a) or "(none)")
def test_other_shapes_go_to_the_full_parser(argv: list[str]) -> None:
    assert search_args(argv, cmd_search) is None


def test_the_full_parser_still_answers_what_the_fast_path_leaves(cli_env: dict[str, str]) -> None:
    """Bad input still gets argparse's usage error (exit 2), and a value it accepts still works."""
    for argv, code, words in (
        (["search", "q", "--limit", "five"], 2, "invalid int value: 'five'"),
        (["search", "q", "r"], 2, "unrecognized arguments: r"),
        (["search", "q", "--limit"], 2, "expected one argument"),
        (["search", "q", "--lim", "3", "--json"], 0, '"hits"'),
    ):
        subprocess.run(
            [sys.executable, "-m", "memwarden", "add", "q is the query word"],
            capture_output=True, text=True, env=cli_env, timeout=120, check=True,
        )  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "memwarden", *argv],
            capture_output=True,
            text=True,
            env=cli_env,
            timeout=60,
        )
        assert done.returncode == code, (argv, done.stderr)
        assert words in (done.stderr if code else done.stdout), (argv, done.stderr)


def imported_modules(stderr: str) -> set[str]:
    """The modules a process run with PYTHONPROFILEIMPORTTIME=1 imported (its stderr)."""
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def test_a_search_with_the_daemon_off_imports_no_daemon_module(cli_env: dict[str, str]) -> None:
    """MEMWARDEN_DAEMON=off: a cold search neither asks a daemon nor imports the modules that would."""
    subprocess.run(
        [sys.executable, "-m", "memwarden", "add", "the client prefers email"],
        capture_output=True, text=True, env=cli_env, timeout=120, check=True,
    )  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "memwarden", "search", "client email", "--json"],
        capture_output=True,
        text=True,
        env={**cli_env, "PYTHONPROFILEIMPORTTIME": "1"},
        timeout=60,
        check=True,
    )
    assert '"via": "process"' in done.stdout and "the client prefers email" in done.stdout
    modules = imported_modules(done.stderr)
    assert "memwarden.search.searcher" in modules
    assert not {m for m in modules if m.startswith("memwarden.daemon")}
