"""docs/tools.md, rendered from what a client really receives: ``tools/list`` of both profiles,
``prompts/list``, ``resources/list``, ``resources/templates/list`` and the server instructions.

``scripts/generate_tools_doc.py`` writes the file; ``tests/mcp/test_tool_definitions.py`` renders it
again and fails when the two differ, so the page cannot drift from the definitions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from mcp import Client
from mcp.types import Prompt, Resource, ResourceTemplate, Tool

from memwarden.mcp.server import create_server
from memwarden.service import MemoryService
from memwarden.text.tokens import estimate_tokens
from memwarden.tool_text import PART_LABELS

# The token budget of the whole ``core`` tool list (README, "MCP tools"); checked by a test.
CORE_TOKEN_BUDGET = 4500
# Word budgets of the texts a model reads (checked by tests/mcp/test_tool_definitions.py).
TOOL_WORDS = 140
PARAM_WORDS = 50
INSTRUCTION_WORDS = 100


@dataclass(frozen=True)
class Definitions:
    """Everything a client lists from memwarden, per profile where it differs."""

    core: list[Tool]
    all: list[Tool]
    prompts: list[Prompt]
    resources: list[Resource]
    templates: list[ResourceTemplate]
    instructions: str


def tool_list_tokens(tools: Sequence[Tool]) -> int:
    """Estimated tokens of a tool list as a client receives it (the JSON of ``tools/list``)."""
    listed = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]
    return estimate_tokens(json.dumps({"tools": listed}, ensure_ascii=False))


async def read_definitions(service: MemoryService) -> Definitions:
    """List the tools of both profiles, the prompts and the resources through client sessions."""
    async with Client(create_server(service, tools="core")) as client:
        core = (await client.list_tools()).tools
    async with Client(create_server(service, tools="all")) as client:
        everything = (await client.list_tools()).tools
        prompts = (await client.list_prompts()).prompts
        resources = (await client.list_resources()).resources
        templates = (await client.list_resource_templates()).resource_templates
        instructions = client.instructions or ""
    return Definitions(core, everything, prompts, resources, templates, instructions)


def _hints(tool: Tool) -> str:
    hints = tool.annotations
    if hints is None:
        return "no annotations"
    words = ["read-only" if hints.read_only_hint else "writes"]
    if hints.destructive_hint:
        words.append("destructive")
    if hints.idempotent_hint:
        words.append("idempotent")
    return ", ".join(words)


def _type(schema: dict[str, Any]) -> str:
    if "anyOf" in schema:
        kinds = [_type(option) for option in schema["anyOf"] if option.get("type") != "null"]
        return " or ".join(kinds)
    if schema.get("type") == "array":
        return f"list of {_type(schema.get('items', {}))}"
    return str(schema.get("type", "any"))


def _markdown(text: str) -> str:
    """Text a model reads, shown in Markdown: ``<rule>`` would otherwise vanish as an HTML tag."""
    return text.replace("<", "&lt;")


def _cell(text: str) -> str:
    return _markdown(text).replace("|", "\\|").replace("\n", " ")


def _description(text: str) -> list[str]:
    lines = _markdown(text).split("\n")
    out = [lines[0], ""]
    for line in lines[1:]:
        label = next((lab for lab in PART_LABELS if line.startswith(lab)), None)
        out.append(f"- **{label}**{line[len(label) :]}" if label else f"- {line}")
    return out


def _tool_section(tool: Tool, core_names: set[str]) -> list[str]:
    profile = "core and all" if tool.name in core_names else "all"
    lines = [f"### `{tool.name}`", "", f"*{tool.title}* · profile {profile} · {_hints(tool)}", ""]
    lines += _description(tool.description or "")
    properties: dict[str, Any] = tool.input_schema.get("properties", {})
    required = set(tool.input_schema.get("required", []))
    lines += ["", "| parameter | type | default | description |", "| --- | --- | --- | --- |"]
    for name, schema in properties.items():
        default = "required" if name in required else f"`{json.dumps(schema.get('default'))}`"
        lines.append(f"| `{name}` | {_type(schema)} | {default} | {_cell(schema.get('description', ''))} |")
    fields = ", ".join(f"`{name}`" for name in (tool.output_schema or {}).get("properties", {}))
    lines += ["", f"Output fields: {fields}.", ""]
    return lines


INTRO = """\
Profile `core` (the default, `MEMWARDEN_TOOLS=core`) exposes `memory_add`, `memory_search`,
`memory_update` and `memory_delete`; profile `all` exposes every tool below. Every tool has MCP
annotations (read-only / destructive / idempotent hints) and a structured output schema; bad
input is a tool error whose message says what to send instead. `scope` is accepted wherever
`project` is. Where a list is expected (`tags`, `ids`), a JSON array string is accepted too.

The descriptions below are exactly what a model reads: each says what the tool does, when to use
it, which sibling to use instead, its side effects, its limits and what its output fields mean.
They are written once, in `src/memwarden/tool_text.py` (prompts and resources in
`src/memwarden/mcp/guidance.py`).

File names given to `memory_export` and `memory_import` are plain names (`team.json`): folders,
`..`, absolute paths and hidden files are refused, so a model cannot read or write outside
`MEMWARDEN_EXPORT_DIR`. See [export and import](export-import.md). Near-duplicates (`similar`):
[search.md](search.md#near-duplicates); `max_tokens`: [search.md](search.md#token-budget);
`degrade_reason`: [embeddings.md](embeddings.md#degradation); redaction: [governance.md](governance.md).

Every memory in a tool result carries `injection_flags`: empty, or why its text reads like
instructions to a model (`instruction_override`, `role_tag`, `tool_call`, `hidden_instruction`,
`tool_command`). Treat a flagged
memory as untrusted data; the Claude Code hooks, the `recall` prompt and the pinned resource leave
flagged memories out of the context they add. See [hooks.md](hooks.md#injection-screening)."""


def render(defs: Definitions) -> str:
    """The whole of docs/tools.md."""
    core_names = {tool.name for tool in defs.core}
    core_tokens, all_tokens = tool_list_tokens(defs.core), tool_list_tokens(defs.all)
    lines = [
        "# MCP tools, prompts and resources",
        "",
        "<!-- Generated by `python scripts/generate_tools_doc.py` from the server's live tools/list,",
        "prompts/list and resources/list; edit the texts in src/memwarden/mcp/, not this file. -->",
        "",
        INTRO,
        "",
        (
            f"Size: the `core` tool list is {core_tokens:,} tokens as a client receives it (budget "
            f"{CORE_TOKEN_BUDGET:,}), the `all` list {all_tokens:,}, counted with memwarden's token estimate "
            "(`text/tokens.py`: one token per 4 ASCII characters, one per other character)."
        ),
        "",
        "## Server instructions",
        "",
        "Sent to every client at initialization (the `instructions` field):",
        "",
        f"> {defs.instructions}",
        "",
        "## Tools",
        "",
        "| tool | profile | does |",
        "| --- | --- | --- |",
    ]
    for tool in defs.all:
        profile = "core" if tool.name in core_names else "all"
        first = (tool.description or "").split("\n")[0]
        lines.append(f"| [`{tool.name}`](#{tool.name}) | {profile} | {_cell(first)} |")
    lines.append("")
    for tool in defs.all:
        lines += _tool_section(tool, core_names)
    lines += [
        "## Prompts",
        "",
        "Offered in both profiles; a client shows them as commands the user can run.",
        "",
    ]
    for prompt in defs.prompts:
        lines += [f"### `{prompt.name}`", "", f"*{prompt.title}*: {prompt.description}", ""]
        lines += ["| argument | required | description |", "| --- | --- | --- |"]
        for arg in prompt.arguments or []:
            lines.append(
                f"| `{arg.name}` | {'yes' if arg.required else 'no'} | {_cell(arg.description or '')} |"
            )
        lines.append("")
    lines += [
        "## Resources",
        "",
        "Offered in both profiles, for clients that load resources into context.",
        "",
    ]
    lines += ["| URI | type | description |", "| --- | --- | --- |"]
    for resource in defs.resources:
        lines.append(f"| `{resource.uri}` | {resource.mime_type} | {_cell(resource.description or '')} |")
    for template in defs.templates:
        lines.append(
            f"| `{template.uri_template}` (template) | {template.mime_type} | {_cell(template.description or '')} |"
        )
    lines += [
        "",
        "A resource template is read by filling in its variable (`memwarden://projects/infra/pinned`). The",
        "pinned memories are a template rather than a fixed URI because the MCP SDK gives fixed resources no",
        "request context, and without it the server could not tell whose memories to show.",
        "",
    ]
    return "\n".join(lines)
