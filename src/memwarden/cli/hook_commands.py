"""``memwarden hook …`` (Claude Code hooks) and ``memwarden install claude-code``."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

Handler = Callable[[argparse.Namespace], int]


def cmd_hook(args: argparse.Namespace) -> int:
    from memwarden.hooks.commands import run_hook

    return run_hook(args.hook, project=args.project, db=getattr(args, "db", None))


def cmd_install(args: argparse.Namespace) -> int:
    from memwarden.hooks.claude_install import install_claude_code, memwarden_command, project_command
    from memwarden.settings_reader import load_hot_settings

    db = getattr(args, "db", None)
    command = None
    notes: list[str] = []
    if not args.uninstall:
        import os
        import shlex

        if args.command:
            command = shlex.split(args.command, posix=os.name != "nt")
        elif args.project:
            # Files meant to be committed: `memwarden` as found on PATH, not this machine's venv.
            command, notes = project_command(db)
        else:
            command = memwarden_command(db)
    lines = install_claude_code(
        scope="project" if args.project else "user",
        home=Path.home(),
        project_dir=Path(args.dir).absolute() if args.dir else Path.cwd(),
        uninstall=args.uninstall,
        command=command,
        state_dir=load_hot_settings(**({"db": db} if db else {})).data_dir() / "installs",
    )
    for line in lines + notes:
        print(line)
    if not args.uninstall:
        print("restart Claude Code to load the hooks and the MCP server")
    return 0


def register(command: Callable[[str, Handler, str], argparse.ArgumentParser]) -> None:
    p = command(
        "hook", cmd_hook, "Claude Code hooks: read the hook JSON on stdin, print the hook output JSON"
    )
    hooks = p.add_subparsers(dest="hook", metavar="HOOK", required=True)
    for name, text in [
        ("prompt", "UserPromptSubmit: add the memories that match the prompt"),
        ("session-start", "SessionStart: usage note and the project's pinned memories"),
        ("stop", "Stop: once per session, ask about durable facts when nothing was stored"),
    ]:
        h = hooks.add_parser(
            name, help=text, description=text + ". Never fails: exit 0, problems go to the log."
        )
        h.add_argument(
            "--project",
            "--scope",
            dest="project",
            help="memwarden project of the session (default: the repository's folder name)",
        )

    p = command("install", cmd_install, "set memwarden up in an agent client")
    clients = p.add_subparsers(dest="client", metavar="CLIENT", required=True)
    c = clients.add_parser(
        "claude-code",
        help="register the MCP server, the three hooks and the memory skill for Claude Code",
        description="Register the MCP server, the three hooks and the memory skill for Claude Code. "
        "Idempotent; backs up every file it changes.",
    )
    where = c.add_mutually_exclusive_group()
    where.add_argument("--user", action="store_true", help="for every project: ~/.claude (the default)")
    where.add_argument(
        "--project", action="store_true", help="for one project: .mcp.json and .claude/ in --dir"
    )
    c.add_argument(
        "--dir", metavar="DIR", help="the project folder for --project (default: the current folder)"
    )
    c.add_argument("--uninstall", action="store_true", help="remove what install added, and nothing else")
    c.add_argument(
        "--command",
        metavar="CMD",
        help="how clients should start memwarden (default: the absolute path of this one)",
    )
