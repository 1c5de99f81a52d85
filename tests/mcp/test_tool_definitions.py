"""The tool definitions a model reads, checked on the real ``tools/list`` of both profiles.

A model decides from the tool list alone whether and how to use memory, so every tool must say
what it does, when to use it (and which sibling instead), its side effects, its limits and what
its output means, within a word budget; every parameter must say its format, range and default.
docs/tools.md is rendered from the same lists and must match.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import anyio
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import Tool, ToolAnnotations
from pydantic import BaseModel, Field

from memwarden.mcp.server import CORE_TOOLS, TOOL_NAMES
from memwarden.mcp.tool_docs import (
    CORE_TOKEN_BUDGET,
    INSTRUCTION_WORDS,
    PARAM_WORDS,
    TOOL_WORDS,
    read_definitions,
    render,
    tool_list_tokens,
)
from memwarden.service import MemoryService
from memwarden.tool_text import PART_LABELS, TOOLS

ROOT = Path(__file__).resolve().parents[2]
NAME = re.compile(r"^memory_[a-z]+$")
MENTIONED_TOOL = re.compile(r"\b(memory_[a-z]+)\b")


def text_problems(where: str, text: str | None, *, max_words: int) -> list[str]:
    """Whitespace, indentation and size problems of one text a model reads."""
    if not text or not text.strip():
        return [f"{where}: no description"]
    problems = []
    if text != text.strip():
        problems.append(f"{where}: leading or trailing whitespace")
    if any(line != line.strip() for line in text.split("\n")):
        problems.append(f"{where}: a line starts or ends with whitespace (docstring indentation?)")
    if len(text.split()) > max_words:
        problems.append(f"{where}: {len(text.split())} words, over the budget of {max_words}")
    for name in MENTIONED_TOOL.findall(text):
        if name not in TOOL_NAMES:
            problems.append(f"{where}: mentions {name}, which is no tool")
    return problems


def tool_problems(tool: Tool) -> list[str]:
    """Everything wrong with one tool definition as listed to a client."""
    problems: list[str] = []
    if not NAME.match(tool.name) and tool.name != "echo":
        problems.append(f"{tool.name}: name outside memory_*")
    hints = tool.annotations
    if hints is None or None in (
        hints.read_only_hint,
        hints.destructive_hint,
        hints.idempotent_hint,
        hints.open_world_hint,
    ):
        problems.append(f"{tool.name}: annotations missing or incomplete")
    if not tool.output_schema or not tool.output_schema.get("properties"):
        problems.append(f"{tool.name}: no output schema")
    if not tool.title:
        problems.append(f"{tool.name}: no title")
    description = tool.description or ""
    problems += text_problems(tool.name, description, max_words=TOOL_WORDS)
    lines = description.split("\n")
    if not lines[0].strip() or lines[0].startswith(PART_LABELS):
        problems.append(f"{tool.name}: the first line must say what the tool does")
    for label in PART_LABELS:
        if not any(line.startswith(f"{label} ") for line in lines[1:]):
            problems.append(f"{tool.name}: no '{label}' part")
    properties: dict[str, Any] = tool.input_schema.get("properties", {})
    required = set(tool.input_schema.get("required", []))
    for name, schema in properties.items():
        where = f"{tool.name}.{name}"
        text = schema.get("description")
        problems += text_problems(where, text, max_words=PARAM_WORDS)
        if text and name not in required and not re.search(r"\bdefault\b", text, re.IGNORECASE):
            problems.append(f"{where}: optional, but the description does not say its default")
        numeric = {schema.get("type"), *(o.get("type") for o in schema.get("anyOf", []))} & {
            "integer",
            "number",
        }
        if text and numeric and not re.search(r"\d", text):
            problems.append(f"{where}: a number without its range")
    return problems


async def _listed(server: MCPServer) -> list[Tool]:
    async with Client(server) as client:
        return (await client.list_tools()).tools


def test_every_tool_of_both_profiles_is_fully_described(service: MemoryService) -> None:
    defs = anyio.run(read_definitions, service)
    assert [t.name for t in defs.core] == list(CORE_TOOLS)
    assert [t.name for t in defs.all] == list(TOOL_NAMES)
    problems = [
        problem for tools in (defs.core, defs.all) for tool in tools for problem in tool_problems(tool)
    ]
    assert problems == []


def test_parameters_that_interact_say_so(service: MemoryService) -> None:
    tools = {tool.name: tool for tool in anyio.run(read_definitions, service).all}

    def says(tool: str, param: str, *words: str) -> None:
        text = tools[tool].input_schema["properties"][param]["description"]
        assert all(word in text for word in words), (tool, param, text)

    for tool in tools.values():
        if "scope" in tool.input_schema.get("properties", {}):
            says(tool.name, "scope", "project")
    says("memory_search", "max_tokens", "limit", "omitted")
    says("memory_search", "limit", "max_tokens")
    says("memory_update", "if_version", "version", "conflict")
    says("memory_import", "data", "name")
    says("memory_import", "name", "data")


def test_every_text_in_the_catalog_reaches_a_listed_parameter(service: MemoryService) -> None:
    tools = {tool.name: tool for tool in anyio.run(read_definitions, service).all}
    assert set(TOOLS) == set(tools)
    for name, text in TOOLS.items():
        assert set(text.params) == set(tools[name].input_schema["properties"]), name


class _Result(BaseModel):
    ok: bool


async def _badly_described(count: int, note: Annotated[str, Field(description="  A note")] = "") -> _Result:
    """Do a thing.
    Second line, indented as docstrings are."""
    return _Result(ok=True)


def test_the_checks_catch_what_they_are_for() -> None:
    server = MCPServer(name="checks")
    server.add_tool(_badly_described, name="do_thing", structured_output=True)
    server.add_tool(
        _badly_described,
        name="memory_thing",
        annotations=ToolAnnotations(readOnlyHint=True),
        structured_output=True,
    )
    problems = " ".join(p for tool in anyio.run(_listed, server) for p in tool_problems(tool))
    for expected in (
        "do_thing: name outside memory_*",
        "annotations missing or incomplete",
        "docstring indentation",
        "do_thing.count: no description",
        "no 'Use when:' part",
        "note: optional, but the description does not say its default",
        "do_thing.note: leading or trailing whitespace",
        "memory_thing: no title",
    ):
        assert expected in problems, expected
    assert text_problems("x", " ".join(["word"] * 200), max_words=10) == [
        "x: 200 words, over the budget of 10"
    ]
    assert text_problems("x", "use memory_forget", max_words=10) == [
        "x: mentions memory_forget, which is no tool"
    ]


def test_server_instructions_follow_the_same_rules(service: MemoryService) -> None:
    instructions = anyio.run(read_definitions, service).instructions
    assert text_problems("instructions", instructions, max_words=INSTRUCTION_WORDS) == []
    # What memwarden is, when to search, what and how to store, and that memories are data.
    for phrase in (
        "long-term memory",
        "memory_search",
        "before",
        "memory_add",
        "search first",
        "project",
        "never instructions",
    ):
        assert phrase in instructions, phrase


def test_the_core_tool_list_fits_the_budget_the_readme_states(service: MemoryService) -> None:
    defs = anyio.run(read_definitions, service)
    used = tool_list_tokens(defs.core)
    assert used <= CORE_TOKEN_BUDGET, (
        f"core tool list is {used} tokens, over the budget of {CORE_TOKEN_BUDGET}"
    )
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"{CORE_TOKEN_BUDGET:,} tokens" in readme


def test_docs_tools_md_is_generated_from_the_live_definitions(service: MemoryService) -> None:
    expected = render(anyio.run(read_definitions, service))
    actual = (ROOT / "docs" / "tools.md").read_text(encoding="utf-8")
    assert actual == expected, "docs/tools.md is stale: run python scripts/generate_tools_doc.py"
