"""The CLI and the MCP tools speak to their own users: help on every option, "did you mean",
errors that name commands (CLI) or tools (MCP), readable tool-argument errors, one wording for
settings errors whichever reader found them."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_helpers import mcp_client

from memwarden.app import build_service
from memwarden.cli.main import build_parser, main
from memwarden.config import load_settings

MEMWARDEN = [sys.executable, "-m", "memwarden"]


def _walk(parser: argparse.ArgumentParser, path: list[str]) -> list[tuple[str, argparse.Action]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _walk(sub, [*path, name])
        elif not isinstance(action, argparse._HelpAction):
            found.append((" ".join(path), action))
    return found


def test_every_option_and_positional_has_help_and_none_points_to_docs_the_wheel_lacks() -> None:
    actions = _walk(build_parser(), ["memwarden"])
    assert len(actions) > 100
    missing = [f"{where} {a.option_strings or a.dest}" for where, a in actions if not a.help]
    assert missing == []
    assert [where for where, a in actions if "docs/" in str(a.help)] == []


def test_main_help_says_where_the_database_lives_and_how_settings_are_given(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert f"database: {tmp_path / 'memwarden' / 'memwarden.db'}" in out
    assert "MEMWARDEN_*" in out and "MEMWARDEN_DB" in out


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (
            ["serch", "x"],
            "memwarden: unknown command 'serch'; did you mean 'search' or 'serve'? (memwarden --help lists them)",
        ),
        (
            ["--db", "x.db", "lst"],
            "memwarden: unknown command 'lst'; did you mean 'list'? (memwarden --help lists them)",
        ),
        (["frobnicate"], "memwarden: unknown command 'frobnicate' (memwarden --help lists them)"),
    ],
)
def test_a_mistyped_command_gets_did_you_mean(
    capsys: pytest.CaptureFixture[str], argv: list[str], line: str
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert capsys.readouterr().err.splitlines() == [line]


def test_cli_id_errors_name_cli_commands_not_tools(cli_env: dict[str, str]) -> None:
    assert (
        subprocess.run(
            [*MEMWARDEN, "add", "something"], env=cli_env, capture_output=True, timeout=60
        ).returncode
        == 0
    )
    for mid, start in [
        ("01ABC", "'01ABC' is not a memory id"),
        ("01JD3Z5X9Q2W8E7R6T5Y4V3K2M", "no memory with id 01JD3Z5X9Q2W8E7R6T5Y4V3K2M"),
    ]:
        done = subprocess.run(
            [*MEMWARDEN, "delete", mid], env=cli_env, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 1
        assert done.stderr.startswith(f"memwarden: {start}")
        assert done.stderr.rstrip().endswith("find ids with `memwarden search` or `memwarden list`")
        assert "memory_" not in done.stderr and len(done.stderr.splitlines()) == 1


def _tool_errors(tmp_path: Path, calls: list[tuple[str, dict[str, Any]]], tools: str = "core") -> list[str]:
    service = build_service(
        load_settings(db=str(tmp_path / "m.db"), embedder="none"), embeddings=False, background=False
    )
    texts: list[str] = []

    async def run() -> None:
        async with mcp_client(service, tools=tools) as client:
            for name, arguments in calls:
                result = await client.call_tool(name, arguments)
                assert result.is_error
                texts.append(" ".join(getattr(part, "text", "") for part in result.content))

    try:
        anyio.run(run)
    finally:
        service.close()
    return texts


def test_tool_errors_are_sentences_without_pydantic_text_or_cli_words(tmp_path: Path) -> None:
    missing, wrong, bad_id, unknown = _tool_errors(
        tmp_path,
        [
            ("memory_add", {}),
            ("memory_search", {"query": "x", "limit": "lots"}),
            ("memory_delete", {"id": "01ABC"}),
            ("memory_delete", {"id": "01JD3Z5X9Q2W8E7R6T5Y4V3K2M"}),
        ],
    )
    assert missing.startswith("invalid_input: memory_add: the argument 'content' is required (")
    assert missing.endswith("): send it")
    assert wrong.startswith("invalid_input: memory_search: 'limit' (") and wrong.endswith("got 'lots'")
    assert bad_id.startswith("invalid_input: '01ABC' is not a memory id")
    assert unknown == "not_found: no memory with id 01JD3Z5X9Q2W8E7R6T5Y4V3K2M; find ids with memory_search"
    for text in (missing, wrong, bad_id, unknown):
        assert "pydantic" not in text and "http" not in text and "validation error" not in text
        assert "Error executing tool" not in text and "memwarden " not in text and "memory_list" not in text


@pytest.mark.parametrize(
    ("env", "problem"),
    [
        ("MEMWARDEN_HOOK_LIMIT=abc", "MEMWARDEN_HOOK_LIMIT: expected a whole number, got 'abc'"),
        ("MEMWARDEN_TOOLS=bogus", "MEMWARDEN_TOOLS: must be one of core, all, got 'bogus'"),
        ("MEMWARDEN_HOOK_LIMIT=0", "MEMWARDEN_HOOK_LIMIT: must be at least 1 and at most 20, got '0'"),
        ("MEMWARDEN_AUDIT=maybe", "MEMWARDEN_AUDIT: expected true or false, got 'maybe'"),
        ("MEMWARDEN_EMBED_TIMEOUT_S=fast", "MEMWARDEN_EMBED_TIMEOUT_S: expected a number, got 'fast'"),
    ],
)
def test_settings_errors_read_the_same_from_serve_and_the_cli(
    cli_env: dict[str, str], env: str, problem: str
) -> None:
    name, value = env.split("=", 1)
    environment = {**cli_env, name: value}
    line = f"memwarden: invalid settings: {problem}"
    for argv in (["serve"], ["add", "x"]):
        done = subprocess.run(
            [*MEMWARDEN, *argv], env=environment, capture_output=True, text=True, timeout=60, input=""
        )
        assert done.returncode == 1 and done.stderr.strip().splitlines() == [line], (argv, done.stderr)
