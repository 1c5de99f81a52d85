"""``memwarden bundle --out memwarden.mcpb``: the Claude Desktop extension (an MCP Bundle)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

Handler = Callable[[argparse.Namespace], int]


def cmd_bundle(args: argparse.Namespace) -> int:
    from memwarden.cli.output import emit_json
    from memwarden.mcp.bundle import write_bundle

    report = write_bundle(Path(args.out).expanduser(), tools=args.tools, force=args.force)
    if args.json:
        emit_json(report)
    else:
        print(
            f"wrote {report['path']} ({report['files']} files, {report['bytes']:,} bytes, tools {report['tools']}): "
            "open it with Claude Desktop (Settings > Extensions) to install"
        )
    return 0


def register(command: Callable[[str, Handler, str], argparse.ArgumentParser]) -> None:
    p = command("bundle", cmd_bundle, "write the Claude Desktop extension (an .mcpb MCP Bundle)")
    p.add_argument("--out", required=True, metavar="FILE", help="the bundle to write, e.g. memwarden.mcpb")
    p.add_argument(
        "--tools", choices=["core", "all"], default="core", help="the tool profile it serves (default: core)"
    )
    p.add_argument("--force", action="store_true", help="replace FILE if it exists")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")


__all__ = ["register"]
