"""The ``memwarden`` command: every command, JSON output, bad input, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memwarden.cli.main import main


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str]) -> None:
    for key, value in cli_env.items():
        if key.startswith("MEMWARDEN_"):
            monkeypatch.setenv(key, value)


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_add_search_get_list_update_delete_stats(capsys: pytest.CaptureFixture[str]) -> None:
    added = run_json(
        capsys,
        "add",
        "Invoices go out on the first working day",
        "--project",
        "billing",
        "--tag",
        "finance",
        "--title",
        "Invoicing",
    )
    mid = added["id"]
    assert added["memory"]["tags"] == ["finance"]
    hits = run_json(capsys, "search", "invoices", "--project", "billing")
    assert [h["id"] for h in hits["hits"]] == [mid]
    assert run_json(capsys, "get", mid)["memories"][0]["title"] == "Invoicing"
    assert run_json(capsys, "list")["count"] == 1
    updated = run_json(
        capsys, "update", mid, "--content", "Invoices go out on the second working day", "--if-version", "1"
    )
    assert updated["memory"]["version"] == 2
    assert run_json(capsys, "stats")["memories"] == 1
    assert run_json(capsys, "delete", mid) == {"id": mid, "deleted": True, "already_deleted": False}
    assert run_json(capsys, "search", "invoices")["hits"] == []


def test_human_output_is_readable(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["add", "Deploy freeze starts on the 20th", "--pinned"]) == 0
    assert capsys.readouterr().out.startswith("stored ")
    assert main(["add", "Mail the report to ops@acme.io"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("stored ") and "(redacted: email)" in out and "ops@acme.io" not in out
    assert main(["search", "deploy freeze"]) == 0
    out = capsys.readouterr().out
    assert "Deploy freeze starts on the 20th" in out and "[pinned]" in out and "score" in out
    assert main(["list", "--pinned"]) == 0
    assert "Deploy freeze" in capsys.readouterr().out


def test_content_can_come_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("read from standard input\n"))
    added = run_json(capsys, "add", "-")
    assert added["memory"]["content"] == "read from standard input"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["add", ""], "content is empty"),
        (["add", "   "], "content is empty"),
        (["add", "\u200b\u200d\ufe0f"], "empty once invisible characters are removed"),
        (["add", "x" * 20000], "over the limit"),
        (["add", "bad ttl", "--ttl-hours", "-3"], "ttl_hours"),
        (["search", "x", "--limit", "0"], "limit must be between"),
        (["search", "x", "--limit", "100000"], "limit must be between"),
        (["list", "--limit", "0"], "limit must be between"),
        (["get", "not-an-id"], "not a memory id"),
        (["delete", "01JD3Z5X9Q2W8E7R6T5Y4V3K2M"], "no memory with id"),
        (["update", "01JD3Z5X9Q2W8E7R6T5Y4V3K2M", "--content", "x"], "no memory with id"),
        (["update", "bad", "--content", "x"], "not a memory id"),
        (["stats", "--project", ""], "project"),
    ],
)
def test_bad_input_exits_1_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["add", "a memory that must survive bad input"]) == 0
    capsys.readouterr()
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert main(["search", "survive", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["count"] == 1


@pytest.mark.parametrize(
    "argv", [["search", "x", "--limit", "ten"], ["add"], ["frobnicate"], ["add", "x", "--kind", "secret"]]
)
def test_usage_errors_exit_2(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2


def test_fts_syntax_in_cli_queries_is_harmless(capsys: pytest.CaptureFixture[str]) -> None:
    run_json(capsys, "add", 'quoted "NEAR" AND stuff')
    for query in ['"', "AND", "NEAR(", "*", "-", "^", "(", ")", "a OR b"]:
        assert main(["search", query, "--json"]) == 0
        capsys.readouterr()


def test_version_and_demo_run_as_real_processes(cli_env: dict[str, str]) -> None:
    version = subprocess.run(
        [sys.executable, "-m", "memwarden", "--version"],
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=60,
    )
    assert version.returncode == 0 and version.stdout.startswith("memwarden ")
    demo = subprocess.run(
        [sys.executable, "-m", "memwarden", "demo"], capture_output=True, text=True, env=cli_env, timeout=120
    )
    assert demo.returncode == 0, demo.stderr
    assert "duplicate=True" in demo.stdout and "search" in demo.stdout
    assert not Path(cli_env["MEMWARDEN_DB"]).exists()  # the demo never touches the real database


def test_search_imports_no_mcp_numpy_onnxruntime_or_pydantic(cli_env: dict[str, str]) -> None:
    code = (
        "import sys; from memwarden.cli.main import main; main(['search', 'anything', '--json']);"
        "heavy = [m for m in ('mcp', 'numpy', 'onnxruntime', 'uvicorn', 'starlette', 'pydantic', 'pydantic_settings') if m in sys.modules];"
        "print('HEAVY', heavy)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=cli_env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert "HEAVY []" in result.stdout


# What `memwarden search` (and the prompt hook after it) must not import: a search that goes well
# logs nothing, writes nothing and asks nothing of the terminal (issue 17: cold paths at the floor).
NOT_ON_THE_SEARCH_PATH = (
    "logging",  # memwarden.logs imports it on the first log line
    "shutil",  # argparse's formatter imports it for the terminal width; cli/parser.py gives the width
    "difflib",  # only for a mistyped command's suggestions
    "argparse",  # a plain `search QUERY [flags]` is read by cli.argv_shapes (test_cli_fast_path.py)
    "secrets",  # only for `memwarden audit keygen`
    "concurrent.futures",  # the vector path's thread pool, off without embeddings
    "memwarden.govern.rules",  # redaction rules, normalisation, screening: the write side
    "memwarden.govern.normalization",
    "memwarden.screening",
    "memwarden.search.evaluation",
    "memwarden.search.vector_path",
    "memwarden.ops.options",
    # The value classes on the path are named tuples: a frozen dataclass costs about 1 ms to create
    # (its methods compiled from source) and the module pulls in inspect, ast, dis and tokenize.
    "dataclasses",
    "inspect",
    # SHA-256 comes from CPython's own module (memwarden/digests.py): hashlib and hmac load
    # OpenSSL, about 4.5 ms of a cold search.
    "hashlib",
    "hmac",
    "_hashlib",
    # Imported when needed: the migrations when the file's schema is behind, the audit key and
    # anchor modules when MEMWARDEN_AUDIT_KEY_FILE / _ANCHOR_FILE are set.
    "memwarden.store.sqlite.migrations",
    "memwarden.audit.keys",
    "memwarden.audit.anchor",
    # Paths are strings on the search path: pathlib imports urllib.parse and ipaddress (about
    # 5 ms of a cold search).
    "pathlib",
    "urllib.parse",
    "ipaddress",
    # The write side and the re-index bar are built on first use (service.memories, app._ReindexBar).
    "memwarden.memories",
    "memwarden.progress",
    # The write side's results and the dashboard's browsing values (models split out of models.py).
    "memwarden.write_results",
    "memwarden.browsing",
)


def test_search_imports_nothing_only_writes_or_logging_need(cli_env: dict[str, str]) -> None:
    # The database exists first (written by `add` in another process), as a user's would.
    subprocess.run(
        [sys.executable, "-m", "memwarden", "add", "the client prefers email"],
        capture_output=True,
        text=True,
        env=cli_env,
        timeout=120,
        check=True,
    )
    code = (
        "import sys; from memwarden.cli.main import main; code = main(['search', 'client', '--json']);"
        f"print('LOADED', sorted(m for m in {NOT_ON_THE_SEARCH_PATH!r} if m in sys.modules), code)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=cli_env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert '"via": "process"' in result.stdout and "the client prefers email" in result.stdout
    assert "LOADED [] 0" in result.stdout


def test_help_wraps_to_columns_as_argparse_would(cli_env: dict[str, str]) -> None:
    """The parser hands argparse the width it would have asked shutil for: $COLUMNS minus 2."""
    for columns in (50, 120):
        shown = subprocess.run(
            [sys.executable, "-m", "memwarden", "search", "--help"],
            capture_output=True,
            text=True,
            env={**cli_env, "COLUMNS": str(columns)},
            timeout=60,
        )
        assert shown.returncode == 0, shown.stderr
        lines = shown.stdout.split("\n\n", 1)[1].splitlines()  # after the usage block
        assert max(len(line) for line in lines) <= columns - 2
        assert max(len(line) for line in lines) > columns - 20  # wrapped to it, not to a default


def test_version_answers_without_importing_any_command(cli_env: dict[str, str]) -> None:
    code = (
        "import sys; from memwarden.cli.main import main; main(['--version']);"
        "print('LOADED', sorted(m for m in sys.modules if m.startswith('memwarden') or m == 'argparse'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=cli_env, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("memwarden ")
    assert "LOADED ['memwarden', 'memwarden.cli', 'memwarden.cli.main', 'memwarden.version']" in result.stdout
