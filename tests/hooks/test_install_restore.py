"""``install claude-code``: project files name `memwarden` through PATH, and --uninstall gives back
the same bytes, with no backup files in the repository and no folders left behind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_install_claude import install, snapshot


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def env(cli_env: dict[str, str], home: Path) -> dict[str, str]:
    return {**cli_env, "HOME": str(home), "USERPROFILE": str(home)}


def folders(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_dir())


MCP_BYTES = (
    b'{\n    "mcpServers": {"db": {"command": "db-mcp", "args": ["--port", "1"]}}\n}'  # no final newline
)
SETTINGS_BYTES = b'{"permissions": {"allow": ["Bash(npm test)"]},\n  "hooks": {"Stop": [{"hooks": []}]}}\n'


def test_project_install_names_memwarden_through_path_and_uninstall_restores_the_bytes(
    env: dict[str, str], home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    (project / ".mcp.json").write_bytes(MCP_BYTES)
    before, before_folders = snapshot(project), folders(project)
    done = install(env, "--project", cwd=project)
    assert done.returncode == 0, done.stderr
    server = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["memwarden"]
    assert server["command"] == "memwarden" and server["args"] == ["serve"]
    hooks = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))["hooks"]
    commands = [h["command"] for groups in hooks.values() for group in groups for h in group["hooks"]]
    assert commands and all(c.startswith("memwarden hook ") for c in commands)
    assert sys.prefix not in (project / ".mcp.json").read_text(encoding="utf-8")
    assert not [p for p in project.rglob("*") if "memwarden-backup" in p.name or "memwarden-tmp" in p.name]
    undone = install(env, "--project", "--uninstall", cwd=project)
    assert undone.returncode == 0, undone.stderr
    assert snapshot(project) == before and folders(project) == before_folders  # .claude/ is gone again
    assert not (home / ".claude").exists() and not (home / ".claude.json").exists()


def test_user_uninstall_gives_back_the_same_bytes_and_removes_the_claude_folder_it_made(
    env: dict[str, str], home: Path
) -> None:
    assert install(env, "--user").returncode == 0
    assert (home / ".claude" / "skills" / "memwarden" / "SKILL.md").is_file()
    assert install(env, "--user", "--uninstall").returncode == 0
    assert snapshot(home) == {} and folders(home) == []


def test_user_uninstall_restores_an_existing_settings_file_byte_for_byte(
    env: dict[str, str], home: Path
) -> None:
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_bytes(SETTINGS_BYTES)
    (home / ".claude.json").write_bytes(MCP_BYTES)
    assert install(env).returncode == 0
    assert install(env).returncode == 0  # a second install keeps the first original
    assert install(env, "--uninstall").returncode == 0
    assert (home / ".claude" / "settings.json").read_bytes() == SETTINGS_BYTES
    assert (home / ".claude.json").read_bytes() == MCP_BYTES
    assert not (home / ".claude" / "skills").exists() and (home / ".claude").is_dir()


def test_a_file_edited_after_install_keeps_the_edit_and_loses_memwardens_entries(
    env: dict[str, str], home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    (project / ".mcp.json").write_bytes(MCP_BYTES)
    assert install(env, "--project", cwd=project).returncode == 0
    data = json.loads((project / ".mcp.json").read_text(encoding="utf-8"))
    data["mcpServers"]["web"] = {"command": "web-mcp"}
    (project / ".mcp.json").write_text(json.dumps(data), encoding="utf-8")
    assert install(env, "--project", "--uninstall", cwd=project).returncode == 0
    assert set(json.loads((project / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]) == {"db", "web"}
    assert not (project / ".claude").exists()
    assert not [p for p in project.rglob("*") if "memwarden-backup" in p.name]


def test_project_install_says_when_memwarden_is_not_on_path(env: dict[str, str], tmp_path: Path) -> None:
    project = tmp_path / "repo"
    project.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "memwarden", "install", "claude-code", "--project"],
        env={**env, "PATH": str(tmp_path / "empty")},
        cwd=project,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "`memwarden` is not on PATH" in done.stdout
