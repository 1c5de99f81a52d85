"""Docs that cannot drift: every setting, CLI command and MCP tool is documented."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from memwarden.cli.main import build_parser
from memwarden.config import Settings
from memwarden.mcp.server import TOOL_NAMES

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _subcommands(parser: argparse.ArgumentParser, prefix: str = "") -> list[str]:
    found: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found.append(f"{prefix}{name}")
                found += _subcommands(sub, f"{prefix}{name} ")
    return found


def test_every_setting_is_documented() -> None:
    text = (DOCS / "configuration.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`(MEMWARDEN_[A-Z0-9_]+)`", text))
    expected = {f"MEMWARDEN_{name.upper()}" for name in Settings.model_fields}
    assert expected - documented == set(), "settings missing from docs/configuration.md"
    assert documented - expected == set(), "docs/configuration.md documents settings that do not exist"


def test_every_cli_command_is_documented() -> None:
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    missing = [c for c in _subcommands(build_parser()) if f"memwarden {c}" not in text]
    assert missing == []


def test_every_mcp_tool_is_documented() -> None:
    text = (DOCS / "tools.md").read_text(encoding="utf-8")
    assert [t for t in TOOL_NAMES if f"`{t}`" not in text] == []
