"""docs/clients.md cannot drift: its JSON parses, its commands exist, its harness programs run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from memwarden.cli.main import build_parser
from tests.test_transports import http_server  # noqa: F401 - the fixture

DOC = Path(__file__).resolve().parents[1] / "docs" / "clients.md"
TEXT = DOC.read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", TEXT, flags=re.S)


def servers() -> list[dict]:
    found = []
    for block in blocks("json"):
        found += list(json.loads(block).get("mcpServers", {}).values())
    return found


def test_every_json_snippet_parses_and_names_real_commands() -> None:
    assert len(blocks("json")) >= 6
    parser = build_parser()
    for server in servers():
        if "command" in server:
            assert server["command"] == "memwarden"
            parser.parse_args(server["args"])  # exits (fails the test) on an unknown command
        else:
            assert server["url"] == "http://127.0.0.1:8765/mcp"
    for block in blocks("json"):
        for groups in json.loads(block).get("hooks", {}).values():
            for hook in groups[0]["hooks"]:
                words = hook["command"].split()
                assert words[0] == "memwarden"
                parser.parse_args(words[1:])


def test_the_documented_hook_settings_are_what_install_writes() -> None:
    from memwarden.hooks.claude_install import hook_entries, server_entry

    documented = [json.loads(b) for b in blocks("json")]
    assert {"hooks": {k: [v] for k, v in hook_entries(["memwarden"]).items()}} in documented
    assert {"mcpServers": {"memwarden": server_entry(["memwarden"])}} in documented


def test_every_shell_line_is_a_real_command() -> None:
    parser = build_parser()
    for block in blocks("sh"):
        for line in block.splitlines():
            words = line.split("#")[0].split()
            if words and words[0] == "memwarden":
                parser.parse_args(words[1:])


def _harness_env(cli_env: dict[str, str]) -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)
    return {**cli_env, "PATH": bin_dir + os.pathsep + cli_env.get("PATH", "")}


def test_the_stdio_harness_program_runs(cli_env: dict[str, str], tmp_path: Path) -> None:
    program = blocks("python")[0]
    result = subprocess.run(
        [sys.executable, "-c", program],
        env=_harness_env(cli_env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert re.fullmatch(r"[0-9A-Z]{26}", lines[0]) and "The Acme client prefers email." in lines[1]


def test_the_http_harness_program_runs(http_server: tuple[str, str]) -> None:  # noqa: F811
    base, token = http_server
    program = (
        blocks("python")[1].replace("http://127.0.0.1:8765/mcp", f"{base}/mcp").replace("YOUR_TOKEN", token)
    )
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "0 hits"
