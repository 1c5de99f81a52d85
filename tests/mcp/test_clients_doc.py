"""docs/clients.md cannot drift: its JSON parses, its commands exist, its install commands run
for real against a freshly built wheel, its harness programs run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from memwarden.cli.main import build_parser
from memwarden.version import __version__
from tests.mcp.test_bundle import SESSION

DOC = Path(__file__).resolve().parents[2] / "docs" / "clients.md"
TEXT = DOC.read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", TEXT, flags=re.S)


WHEEL = f"memwarden-{__version__}-py3-none-any.whl"
INSTALLERS = ("pipx", "uv", "uvx")


def servers() -> list[dict]:
    """Every server entry: ``mcpServers`` (most clients) and ``servers`` (VS Code)."""
    found = []
    for block in blocks("json"):
        document = json.loads(block)
        found += list(document.get("mcpServers", {}).values()) + list(document.get("servers", {}).values())
    return found


def test_every_json_snippet_parses_and_names_real_commands() -> None:
    assert len(blocks("json")) >= 9
    parser = build_parser()
    for server in servers():
        if server.get("command") == "uvx":
            assert server["args"][:1] == ["--from"] and Path(server["args"][1]).name == WHEEL
            assert server["args"][2] == "memwarden"
            parser.parse_args(server["args"][3:])
        elif "command" in server:
            assert server["command"] == "memwarden"
            parser.parse_args(server["args"])  # exits (fails the test) on an unknown command
        else:
            assert server["url"] == "http://127.0.0.1:8765/mcp"
        assert server.get("type", "stdio" if "command" in server else "http") in ("stdio", "http")
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


def install_lines() -> list[list[str]]:
    """The pipx / uv / uvx commands of the install section, comments removed."""
    lines = [line.split("#")[0].split() for block in blocks("sh") for line in block.splitlines()]
    return [words for words in lines if words and words[0] in INSTALLERS]


def test_the_install_commands_name_this_versions_wheel() -> None:
    found = install_lines()
    assert [words[:2] for words in found] == [
        ["uv", "build"],
        ["pipx", "install"],
        ["uv", "tool"],
        ["uvx", "--from"],
    ]
    for words in found:
        wheels = [word for word in words if word.endswith(".whl")]
        assert all(word == f"dist/{WHEEL}" for word in wheels), words
    assert found[-1][3] == "memwarden" and build_parser().parse_args(found[-1][4:]).command == "demo"


@pytest.mark.slow
def test_the_install_commands_run_for_real_from_a_fresh_wheel(tmp_path: Path) -> None:
    """pipx, uv tool and uvx (all from PyPI, in the test extra) install the wheel that `uv build`
    made, each in an environment of its own; then a client starts memwarden through uvx."""
    bin_dir = Path(sys.executable).parent
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMWARDEN_")}
    env.update(
        PATH=str(bin_dir) + os.pathsep + env.get("PATH", ""),
        HOME=str(tmp_path / "home"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        PIPX_HOME=str(tmp_path / "pipx"),
        PIPX_BIN_DIR=str(tmp_path / "pipx-bin"),
        PIPX_MAN_DIR=str(tmp_path / "pipx-man"),
        UV_TOOL_DIR=str(tmp_path / "uv-tools"),
        UV_TOOL_BIN_DIR=str(tmp_path / "uv-bin"),
        UV_CACHE_DIR=env.get("UV_CACHE_DIR", str(tmp_path / "uv-cache")),
        MEMWARDEN_DAEMON="off",
    )
    (tmp_path / "home").mkdir()
    dist = tmp_path / "dist"
    outputs = []
    for words in install_lines():
        if words[:2] == ["uv", "build"]:
            command, cwd = [*words, "--out-dir", str(dist)], DOC.parents[1]
        else:
            command, cwd = [str(dist / WHEEL) if w == f"dist/{WHEEL}" else w for w in words], tmp_path
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{command}: {done.stderr[-2000:]}"
        outputs.append(done.stdout)
    assert (dist / WHEEL).is_file()
    for installed in (tmp_path / "pipx-bin" / "memwarden", tmp_path / "uv-bin" / "memwarden"):
        version = subprocess.run([str(installed), "--version"], capture_output=True, text=True, env=env)
        assert version.stdout.strip() == f"memwarden {__version__}", version.stderr
    assert "the temporary database is removed" in outputs[-1]

    (uvx_server,) = [server for server in servers() if server.get("command") == "uvx"]
    args = [str(dist / WHEEL) if a.endswith(WHEEL) else a for a in uvx_server["args"]]
    env["MEMWARDEN_DB"] = str(tmp_path / "client.db")
    session = subprocess.run(
        [sys.executable, "-c", SESSION, json.dumps([str(bin_dir / "uvx"), *args])],
        env={**env, "MEMWARDEN_EMBEDDER": "none"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert session.returncode == 0, session.stderr[-3000:]
    assert json.loads(session.stdout) == {
        "version": __version__,
        "tools": ["memory_add", "memory_search", "memory_update", "memory_delete"],
        "count": 1,
        "exit": 0,
    }


def _harness_env(cli_env: dict[str, str]) -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)
    return {**cli_env, "PATH": bin_dir + os.pathsep + cli_env.get("PATH", "")}


# The SDK starts a stdio server with only HOME, PATH, SHELL, TERM, LOGNAME and USER of the
# harness's environment, so the documented program, run as it is, used the real home's database
# and left a daemon running there. The test lets the server also see the test's MEMWARDEN_* and
# XDG_* settings (its own database, no daemon); the program itself is the document's, unchanged.
SANDBOX = (
    "import os, mcp.client.stdio as _stdio\n"
    "_stdio.DEFAULT_INHERITED_ENV_VARS = (*_stdio.DEFAULT_INHERITED_ENV_VARS,"
    " *(k for k in os.environ if k.startswith(('MEMWARDEN_', 'XDG_'))))\n"
)


def test_the_stdio_harness_program_runs(cli_env: dict[str, str], tmp_path: Path) -> None:
    program = blocks("python")[0]
    env = _harness_env({**cli_env, "HOME": str(tmp_path)})
    result = subprocess.run(
        [sys.executable, "-c", SANDBOX + program],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert re.fullmatch(r"[0-9A-Z]{26}", lines[0]) and "The Acme client prefers email." in lines[1]
    assert Path(cli_env["MEMWARDEN_DB"]).is_file()  # the test's database, not the home's
    assert not (tmp_path / ".local").exists()


def test_the_http_harness_program_runs(http_server: tuple[str, str]) -> None:
    base, token = http_server
    program = (
        blocks("python")[1].replace("http://127.0.0.1:8765/mcp", f"{base}/mcp").replace("YOUR_TOKEN", token)
    )
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "0 hits"
