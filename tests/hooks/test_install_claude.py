"""``memwarden install claude-code``: real files in a temporary home and project, real subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memwarden.hooks.skill import SKILL_MD
from tests.small_disk import fill, small_disk


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def env(cli_env: dict[str, str], home: Path) -> dict[str, str]:
    return {**cli_env, "HOME": str(home), "USERPROFILE": str(home)}


def install(env: dict[str, str], *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memwarden", "install", "claude-code", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
    )


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def expected_command() -> str:
    return (
        f"{sys.executable} -m memwarden" if " " not in sys.executable else f'"{sys.executable}" -m memwarden'
    )


def test_user_install_writes_hooks_server_and_skill_exactly(env: dict[str, str], home: Path) -> None:
    result = install(env, "--user")
    assert result.returncode == 0, result.stderr
    settings = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))
    base = expected_command()
    assert settings == {
        "hooks": {
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": f"{base} hook prompt", "timeout": 10}]}
            ],
            "SessionStart": [
                {"hooks": [{"type": "command", "command": f"{base} hook session-start", "timeout": 10}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": f"{base} hook stop", "timeout": 10}]}],
        }
    }
    claude = json.loads((home / ".claude.json").read_text(encoding="utf-8"))
    assert claude == {
        "mcpServers": {
            "memwarden": {
                "type": "stdio",
                "command": sys.executable,
                "args": ["-m", "memwarden", "serve"],
                "env": {},
            }
        }
    }
    assert (home / ".claude" / "skills" / "memwarden" / "SKILL.md").read_text(encoding="utf-8") == SKILL_MD
    assert "restart Claude Code" in result.stdout


def test_installing_twice_leaves_identical_files_and_no_backups(env: dict[str, str], home: Path) -> None:
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{"model": "opus"}\n', encoding="utf-8")
    assert install(env).returncode == 0
    first = snapshot(home)
    again = install(env)
    assert again.returncode == 0 and snapshot(home) == first
    assert all(line.startswith("unchanged ") for line in again.stdout.splitlines()[:-1])


def test_existing_settings_are_kept_and_backed_up(env: dict[str, str], home: Path) -> None:
    original = {
        "model": "opus",
        "permissions": {"allow": ["Bash(npm test)"]},
        "hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
            "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.py"}]}],
        },
    }
    (home / ".claude").mkdir()
    settings_file = home / ".claude" / "settings.json"
    settings_file.write_text(json.dumps(original), encoding="utf-8")
    (home / ".claude.json").write_text(
        json.dumps(
            {
                "numStartups": 7,
                "projects": {"/x": {"allowedTools": []}},
                "mcpServers": {"github": {"command": "gh-mcp"}},
            }
        ),
        encoding="utf-8",
    )
    assert install(env, "--user").returncode == 0
    settings = json.loads(settings_file.read_text(encoding="utf-8"))
    assert settings["model"] == "opus" and settings["permissions"] == original["permissions"]
    assert settings["hooks"]["PreToolUse"] == original["hooks"]["PreToolUse"]
    assert settings["hooks"]["Stop"][0] == original["hooks"]["Stop"][0]
    assert settings["hooks"]["Stop"][1]["hooks"][0]["command"].endswith("hook stop")
    claude = json.loads((home / ".claude.json").read_text(encoding="utf-8"))
    assert claude["numStartups"] == 7 and set(claude["mcpServers"]) == {"github", "memwarden"}
    backups = sorted(p.name for p in (home / ".claude").glob("settings.json.memwarden-backup-*"))
    assert len(backups) == 1
    assert json.loads((home / ".claude" / backups[0]).read_text(encoding="utf-8")) == original
    assert len(list(home.glob(".claude.json.memwarden-backup-*"))) == 1


def test_uninstall_removes_only_what_install_added(env: dict[str, str], home: Path) -> None:
    (home / ".claude").mkdir()
    settings_file = home / ".claude" / "settings.json"
    original = {"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}}
    settings_file.write_text(json.dumps(original), encoding="utf-8")
    assert install(env).returncode == 0
    result = install(env, "--uninstall")
    assert result.returncode == 0, result.stderr
    assert json.loads(settings_file.read_text(encoding="utf-8")) == original
    assert not (home / ".claude.json").exists()  # created by install, empty once memwarden is gone
    assert not (home / ".claude" / "skills").exists()
    before = snapshot(home)
    assert install(env, "--uninstall").returncode == 0 and snapshot(home) == before


def test_uninstall_keeps_a_skill_it_did_not_write(env: dict[str, str], home: Path) -> None:
    skill = home / ".claude" / "skills" / "memwarden" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: someone-elses\n---\nhello\n", encoding="utf-8")
    assert install(env, "--uninstall").returncode == 0
    assert skill.read_text(encoding="utf-8") == "---\nname: someone-elses\n---\nhello\n"


def test_project_install_writes_into_the_project(env: dict[str, str], home: Path, tmp_path: Path) -> None:
    project = tmp_path / "acme"
    project.mkdir()
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"db": {"command": "db-mcp"}}}), encoding="utf-8"
    )
    assert install(env, "--project", cwd=project).returncode == 0
    assert set(json.loads((project / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]) == {
        "db",
        "memwarden",
    }
    hooks = json.loads((project / ".claude" / "settings.json").read_text(encoding="utf-8"))["hooks"]
    assert set(hooks) == {"UserPromptSubmit", "SessionStart", "Stop"}
    assert (project / ".claude" / "skills" / "memwarden" / "SKILL.md").is_file()
    assert not (home / ".claude").exists() and not (home / ".claude.json").exists()
    other = tmp_path / "other"
    other.mkdir()
    assert install(env, "--project", "--dir", str(other)).returncode == 0
    assert (other / ".mcp.json").is_file()


def test_a_database_flag_reaches_the_server_and_the_hooks(
    env: dict[str, str], home: Path, tmp_path: Path
) -> None:
    db = tmp_path / "team.db"
    result = subprocess.run(
        [sys.executable, "-m", "memwarden", "--db", str(db), "install", "claude-code"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    server = json.loads((home / ".claude.json").read_text(encoding="utf-8"))["mcpServers"]["memwarden"]
    assert server["args"] == ["-m", "memwarden", "--db", str(db), "serve"]
    hooks = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))["hooks"]
    assert hooks["Stop"][0]["hooks"][0]["command"].endswith(f"--db {db} hook stop")


def test_a_file_that_is_not_json_stops_the_install_and_changes_nothing(
    env: dict[str, str], home: Path
) -> None:
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{"hooks": {,}', encoding="utf-8")
    before = snapshot(home)
    result = install(env)
    assert (
        result.returncode == 1
        and "is not valid JSON" in result.stderr
        and "nothing was changed" in result.stderr
    )
    assert snapshot(home) == before


def test_a_foreign_server_named_memwarden_is_not_overwritten(env: dict[str, str], home: Path) -> None:
    (home / ".claude.json").write_text(
        json.dumps({"mcpServers": {"memwarden": {"command": "npx", "args": ["x"]}}}), encoding="utf-8"
    )
    before = snapshot(home)
    result = install(env)
    assert result.returncode == 1 and "does not run memwarden" in result.stderr
    assert snapshot(home) == before


@pytest.mark.parametrize("args", [["--user", "--project"], ["--bogus"]])
def test_bad_install_flags_are_usage_errors(env: dict[str, str], args: list[str]) -> None:
    assert install(env, *args).returncode == 2


def test_install_without_a_client_is_a_usage_error(env: dict[str, str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "memwarden", "install"], env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2


def test_the_installed_hook_commands_run_as_claude_code_runs_them(
    env: dict[str, str], home: Path, tmp_path: Path
) -> None:
    """Claude Code runs each command through the shell with the hook JSON on stdin."""
    assert install(env).returncode == 0
    subprocess.run(
        [sys.executable, "-m", "memwarden", "add", "The Acme client prefers email", "--project", "acme"],
        env=env,
        check=True,
        capture_output=True,
        timeout=60,
    )
    repo = tmp_path / "acme"
    repo.mkdir()
    hooks = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))["hooks"]
    payload = {
        "session_id": "s",
        "transcript_path": "/t.jsonl",
        "cwd": str(repo),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "email the Acme client",
    }
    command = hooks["UserPromptSubmit"][0]["hooks"][0]["command"]
    result = subprocess.run(
        command, shell=True, input=json.dumps(payload), env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    assert (
        "The Acme client prefers email"
        in json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    )


def test_a_given_command_is_written_as_given(env: dict[str, str], home: Path) -> None:
    assert install(env, "--command", '"/opt/my tools/memwarden" --db /data/m.db').returncode == 0
    server = json.loads((home / ".claude.json").read_text(encoding="utf-8"))["mcpServers"]["memwarden"]
    assert server == {
        "type": "stdio",
        "command": "/opt/my tools/memwarden",
        "args": ["--db", "/data/m.db", "serve"],
        "env": {},
    }
    hooks = json.loads((home / ".claude" / "settings.json").read_text(encoding="utf-8"))["hooks"]
    assert hooks["Stop"][0]["hooks"][0]["command"] == '"/opt/my tools/memwarden" --db /data/m.db hook stop'
    assert install(env, "--uninstall").returncode == 0
    assert not (home / ".claude.json").exists() and not (home / ".claude" / "settings.json").exists()


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_install_keeps_each_files_mode_and_owner_and_backs_up_without_widening_it(
    env: dict[str, str], home: Path
) -> None:
    """Issue 14: ~/.claude.json (account data, MCP env secrets) came back 0644 from a 0600 file."""
    claude, settings = home / ".claude.json", home / ".claude" / "settings.json"
    settings.parent.mkdir()
    claude.write_text(
        '{"oauthAccount": {"emailAddress": "a@example.com"}, "mcpServers": {}}\n', encoding="utf-8"
    )
    settings.write_text('{"env": {"API_KEY": "secret"}}\n', encoding="utf-8")
    claude.chmod(0o600)
    settings.chmod(0o640)
    import os

    if os.geteuid() == 0:  # as root, prove the owner is kept as well
        os.chown(claude, 4321, 4321)
    result = install(env, "--user")
    assert result.returncode == 0, result.stderr
    assert _mode(claude) == 0o600 and _mode(settings) == 0o640
    assert "memwarden" in json.loads(claude.read_text(encoding="utf-8"))["mcpServers"]
    backups = sorted(home.glob(".claude.json.memwarden-backup-*"))
    assert len(backups) == 1 and _mode(backups[0]) == 0o600
    if os.geteuid() == 0:
        assert (claude.stat().st_uid, claude.stat().st_gid) == (4321, 4321)
    assert [p.name for p in home.rglob("*.memwarden-tmp")] == []


def test_new_json_files_are_created_readable_by_their_owner_only(
    env: dict[str, str], home: Path, tmp_path: Path
) -> None:
    assert install(env, "--user").returncode == 0
    assert _mode(home / ".claude.json") == 0o600 and _mode(home / ".claude" / "settings.json") == 0o600
    assert _mode(home / ".claude" / "skills" / "memwarden" / "SKILL.md") == 0o644  # no secrets in it
    project = tmp_path / "project"
    project.mkdir()
    assert install(env, "--project", cwd=project).returncode == 0
    assert _mode(project / ".mcp.json") == 0o600


def test_a_full_disk_leaves_the_original_file_and_no_temporary_file(tmp_path: Path) -> None:
    from memwarden.hooks.claude_install import write_like

    with small_disk(tmp_path / "disk", "64k") as disk:
        target = disk / "settings.json"
        target.write_text('{"keep": true}\n', encoding="utf-8")
        target.chmod(0o600)
        fill(disk)
        with pytest.raises(OSError, match="No space left"):
            write_like(target, b'{"new": "' + b"x" * 200_000 + b'"}', like=target)
        assert target.read_text(encoding="utf-8") == '{"keep": true}\n'
        assert sorted(p.name for p in disk.iterdir()) == ["filler", "settings.json"]
        with pytest.raises(FileExistsError):
            write_like(target, b"{}", like=target, exclusive=True)  # backups never overwrite
