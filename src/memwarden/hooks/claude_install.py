"""``memwarden install claude-code``: register the MCP server, the three hooks and the skill.

Where things go (Claude Code's documented layout):

    scope      hooks                        MCP server                       skill
    --user     ~/.claude/settings.json      ~/.claude.json  "mcpServers"     ~/.claude/skills/memwarden/SKILL.md
    --project  <dir>/.claude/settings.json  <dir>/.mcp.json "mcpServers"     <dir>/.claude/skills/memwarden/SKILL.md

Rules: every JSON file is read and checked before any is written, and nothing changes when
one cannot be parsed; entries that are not memwarden's are kept as they are, in order; a file
whose content would not change is not touched; a file that does change is first copied to
``<name>.memwarden-backup-<UTC time>`` and then replaced atomically: written to a temporary file
in the same folder, flushed to disk, given the original's mode and owner, and renamed over it
(``~/.claude.json`` holds account data and MCP ``env`` secrets, so a 0600 file stays 0600).
New JSON files, which may come to hold such secrets, are created 0600; backups keep the
original's mode from their first byte. Running the install
again gives identical files. ``--uninstall`` removes memwarden's hook entries, its MCP server
entry and its skill, and deletes a JSON file only when nothing but empty containers is left.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memwarden.errors import InvalidInput
from memwarden.hooks import install_record
from memwarden.hooks.skill import SKILL_MD

SERVER_NAME = "memwarden"
HOOK_TIMEOUT_SECONDS = 10
EVENTS = {"UserPromptSubmit": "prompt", "SessionStart": "session-start", "Stop": "stop"}
_OURS = re.compile(r"memwarden(?:\.exe)?\"?\s.*\bhook\s+(?:prompt|session-start|stop)\s*$")


@dataclass(frozen=True)
class Layout:
    settings: Path
    mcp: Path
    mcp_key_path: tuple[str, ...]
    skill: Path


def layout(scope: str, *, home: Path, project_dir: Path) -> Layout:
    if scope == "user":
        return Layout(
            home / ".claude" / "settings.json",
            home / ".claude.json",
            ("mcpServers",),
            home / ".claude" / "skills" / "memwarden" / "SKILL.md",
        )
    return Layout(
        project_dir / ".claude" / "settings.json",
        project_dir / ".mcp.json",
        ("mcpServers",),
        project_dir / ".claude" / "skills" / "memwarden" / "SKILL.md",
    )


def _quote(part: str) -> str:
    return f'"{part}"' if any(c.isspace() for c in part) else part


def memwarden_command(db: str | None = None) -> list[str]:
    """How to start this memwarden: its console script, else this Python with ``-m memwarden``.

    Absolute paths, so the hooks work whatever PATH Claude Code was started with."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if (
        script is not None
        and script.stem == "memwarden"
        and script.suffix in ("", ".exe")
        and script.is_file()
    ):
        base = [str(script.resolve())]
    else:
        base = [str(Path(sys.executable).absolute()), "-m", "memwarden"]
    return base + (["--db", str(Path(db).expanduser().absolute())] if db else [])


def project_command(db: str | None = None) -> tuple[list[str], list[str]]:
    """``memwarden`` resolved through PATH, for files a repository shares; and notes for the user.

    Every clone runs its own memwarden; a database given with --db is written as given."""
    notes = []
    if shutil.which("memwarden") is None:
        notes.append(
            "note: `memwarden` is not on PATH here; the project files start `memwarden`, so put it "
            "on PATH (pipx install / uv tool install) or pass --command"
        )
    return ["memwarden", *(["--db", db] if db else [])], notes


def hook_entries(command: list[str]) -> dict[str, dict[str, Any]]:
    """One hook group per event, as Claude Code's settings.json expects it."""
    line = " ".join(_quote(p) for p in command)
    return {
        event: {
            "hooks": [{"type": "command", "command": f"{line} hook {name}", "timeout": HOOK_TIMEOUT_SECONDS}]
        }
        for event, name in EVENTS.items()
    }


def server_entry(command: list[str]) -> dict[str, Any]:
    return {"type": "stdio", "command": command[0], "args": [*command[1:], "serve"], "env": {}}


def is_our_hook(hook: object) -> bool:
    return (
        isinstance(hook, dict)
        and isinstance(hook.get("command"), str)
        and bool(_OURS.search(hook["command"]))
    )


def is_our_server(entry: object) -> bool:
    if not isinstance(entry, dict):
        return False
    words = [str(entry.get("command", "")), *map(str, entry.get("args") or [])]
    return any(Path(w).stem == "memwarden" or w == "memwarden" for w in words) and "serve" in words


def _read_json(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidInput(
            f"{path} is not valid JSON ({exc}); fix or move it: nothing was changed", field="file"
        ) from None
    if not isinstance(data, dict):
        raise InvalidInput(
            f"{path} does not hold a JSON object; fix or move it: nothing was changed", field="file"
        )
    return data


def _without_our_hooks(hooks: dict[str, Any]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for event, groups in hooks.items():
        if event not in EVENTS or not isinstance(groups, list):
            kept[event] = groups
            continue
        new_groups = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                inner = [h for h in group["hooks"] if not is_our_hook(h)]
                if not inner and group["hooks"]:
                    continue
                group = {**group, "hooks": inner}
            new_groups.append(group)
        if new_groups:
            kept[event] = new_groups
    return kept


def updated_settings(data: dict[str, Any], command: list[str] | None) -> dict[str, Any]:
    """settings.json with memwarden's hooks replaced by fresh ones (``command``) or removed (None)."""
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InvalidInput(
            '"hooks" in settings.json is not an object; fix it: nothing was changed', field="hooks"
        )
    kept = _without_our_hooks(hooks)
    if command is not None:
        for event, group in hook_entries(command).items():
            kept[event] = [*kept.get(event, []), group]
    out = dict(data)
    if kept:
        out["hooks"] = kept
    else:
        out.pop("hooks", None)
    return out


def updated_mcp(data: dict[str, Any], command: list[str] | None) -> dict[str, Any]:
    servers = data.get("mcpServers", {})
    if not isinstance(servers, dict):
        raise InvalidInput('"mcpServers" is not an object; fix it: nothing was changed', field="mcpServers")
    current = servers.get(SERVER_NAME)
    if current is not None and not is_our_server(current):
        raise InvalidInput(
            f'an MCP server named "{SERVER_NAME}" that does not run memwarden is configured already; '
            "rename or remove it: nothing was changed",
            field="mcpServers",
        )
    servers = {k: v for k, v in servers.items() if k != SERVER_NAME}
    if command is not None:
        servers[SERVER_NAME] = server_entry(command)
    out = dict(data)
    if servers:
        out["mcpServers"] = servers
    else:
        out.pop("mcpServers", None)
    return out


def _only_empty(value: Any) -> bool:
    return isinstance(value, dict | list) and all(
        _only_empty(v) for v in (value.values() if isinstance(value, dict) else value)
    )


class Plan:
    """Every file change of one install or uninstall, computed before anything is written."""

    def __init__(self, *, backups: bool = True) -> None:
        self.backups = backups  # copies beside the files (user scope); a project gets none
        self.changes: list[tuple[Path, str | None, bool]] = []  # (path, new text or None to delete, back up)
        self.unchanged: list[Path] = []

    def json(self, path: Path, before: dict[str, Any] | None, after: dict[str, Any]) -> None:
        if before is None and _only_empty(after):
            return
        if before is not None and _only_empty(after) and not _only_empty(before):
            self.changes.append((path, None, True))
        elif before != after or before is None:
            self.changes.append((path, json.dumps(after, indent=2, ensure_ascii=False) + "\n", True))
        else:
            self.unchanged.append(path)

    def text(self, path: Path, new: str | None, *, backup: bool = True) -> None:
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if old == new:
            if old is not None:
                self.unchanged.append(path)
            return
        self.changes.append((path, new, backup))

    def apply(self, stamp: str) -> list[str]:
        """Write the changes (backups first); returns one line per file for the user."""
        report = []
        for path, new, keep_copy in self.changes:
            backup = None
            if keep_copy and self.backups and path.exists():
                backup = path.with_name(f"{path.name}.memwarden-backup-{stamp}")
                write_like(backup, path.read_bytes(), like=path, exclusive=True)
            if new is None:
                path.unlink(missing_ok=True)
                if path.name == "SKILL.md":
                    _remove_empty_dirs(path.parent)
                report.append(f"removed {path}" + (f" (backup {backup.name})" if backup else ""))
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            write_like(
                path,
                new.encode("utf-8"),
                like=path if path.exists() else None,
                new_mode=SECRET_MODE if path.suffix == ".json" else PUBLIC_MODE,
            )
            report.append(
                f"{'updated' if backup else 'created'} {path}"
                + (f" (backup {backup.name})" if backup else "")
            )
        report += [f"unchanged {p}" for p in self.unchanged]
        return report


SECRET_MODE = 0o600
PUBLIC_MODE = 0o644


def write_like(
    path: Path, data: bytes, *, like: Path | None, new_mode: int = SECRET_MODE, exclusive: bool = False
) -> None:
    """Write ``data`` to ``path`` atomically with ``like``'s mode and owner (``new_mode`` if none).

    The temporary file is created 0600 in the same folder (so the rename stays on one file
    system and no other user can read it half-written), fsynced, given the mode and owner, and
    renamed over ``path``; the folder is fsynced so the rename survives a crash. ``exclusive``
    refuses to replace an existing ``path`` (backups never overwrite one another)."""
    mode, owner = new_mode, None
    if like is not None:
        info = like.stat()
        mode, owner = stat.S_IMODE(info.st_mode), (info.st_uid, info.st_gid)
    if exclusive and path.exists():
        raise FileExistsError(path)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".memwarden-tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
            if owner is not None and owner != (os.geteuid(), os.getegid()):
                try:  # root installing for a user, or a group the user belongs to
                    os.fchown(file.fileno(), *owner)
                except PermissionError:
                    pass  # cannot give the file away: it stays ours, with the original mode
            os.fchmod(file.fileno(), mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def _remove_empty_dirs(folder: Path) -> None:
    for path in (folder, folder.parent):
        try:
            path.rmdir()
        except OSError:
            return


def install_claude_code(
    *,
    scope: str,
    home: Path,
    project_dir: Path,
    uninstall: bool = False,
    command: list[str] | None = None,
    state_dir: Path | None = None,
) -> list[str]:
    """Install (or uninstall) memwarden for Claude Code; returns what happened, file by file.

    With ``state_dir`` install records what it changed there (hooks/install_record.py) and
    uninstall gives back the same bytes and removes the folders install created."""
    where = layout(scope, home=home, project_dir=project_dir)
    root = home if scope == "user" else project_dir
    record = install_record.record_path(state_dir, scope, root) if state_dir is not None else None
    restored: list[str] = []
    handled: set[Path] = set()
    if uninstall and record is not None:
        _read_json(where.settings), _read_json(where.mcp)  # refuse broken JSON before changing anything
        restored, handled = install_record.restore_files(record)
    settings_before, mcp_before = _read_json(where.settings), _read_json(where.mcp)
    use = None if uninstall else (command or memwarden_command())
    plan = Plan(backups=scope == "user")
    plan.json(where.settings, settings_before, updated_settings(settings_before or {}, use))
    plan.json(where.mcp, mcp_before, updated_mcp(mcp_before or {}, use))
    if uninstall:
        existing = where.skill.read_text(encoding="utf-8") if where.skill.is_file() else None
        ours = existing is not None and existing.startswith("---\nname: memwarden\n")
        # Removing the skill memwarden wrote needs no backup: install writes it again.
        plan.text(where.skill, None if ours else existing, backup=False)
    else:
        plan.text(where.skill, SKILL_MD)
    targets = [path for path, _, _ in plan.changes]
    before = {path: path.read_bytes() if path.is_file() else None for path in targets}
    folders = install_record.missing_folders(targets, root)
    report = plan.apply(datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ"))
    if record is None:
        return report
    if uninstall:
        report = [
            line for line in report if not (line.startswith("unchanged ") and Path(line[10:]) in handled)
        ]
        return restored + report + install_record.remove_folders(record)
    if targets:
        install_record.save_record(record, root=root, before=before, folders=folders, targets=targets)
    return report
