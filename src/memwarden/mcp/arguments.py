"""Tool errors as one sentence the model can act on.

The MCP SDK validates a tool's arguments with pydantic before memwarden sees them and, on a
mismatch, returns pydantic's own text (``1 validation error for memory_addArguments … For
further information visit https://errors.pydantic.dev/…``). ``explain_argument_errors``
replaces each tool of a server with one that says instead which argument is missing or wrong,
what it is for (from the tool's schema) and what to send, in memwarden's ``invalid_input: …``
form. A memwarden error keeps its own sentence, without the SDK's ``Error executing tool …:``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools.base import Tool
from pydantic import ValidationError

if TYPE_CHECKING:  # pragma: no cover
    from mcp.server.mcpserver import MCPServer


def _purpose(tool: Tool, field: str) -> str:
    """The first sentence of the argument's description in the tool's input schema."""
    described = tool.parameters.get("properties", {}).get(field, {}).get("description", "")
    first = str(described).split(". ")[0].strip().rstrip(".")
    return f" ({first})" if first else ""


def explain(tool: Tool, exc: ValidationError) -> str:
    """``invalid_input: <tool>: <what is wrong with each argument>``, without pydantic's wording."""
    problems = []
    for err in exc.errors(include_url=False):
        field = ".".join(str(part) for part in err["loc"]) or "arguments"
        top = str(err["loc"][0]) if err["loc"] else field
        if err["type"] == "missing":
            problems.append(f"the argument {field!r} is required{_purpose(tool, top)}: send it")
        elif err["type"] == "extra_forbidden":
            problems.append(f"{field!r} is not an argument of {tool.name}; leave it out")
        else:
            got = err.get("input")
            problems.append(f"{field!r}{_purpose(tool, top)}: {err['msg'].lower()}; got {got!r}")
    return f"invalid_input: {tool.name}: " + "; ".join(problems)


class ExplainedTool(Tool):
    """A tool whose argument validation errors read as ``explain`` says."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        try:
            return await super().run(arguments, context, convert_result=convert_result)
        except ToolError as exc:
            cause = exc.__cause__
            if isinstance(cause, ValidationError) and cause.title.endswith("Arguments"):
                raise ToolError(explain(self, cause)) from None
            if isinstance(cause, ToolError):  # memwarden's own sentence, without the SDK's prefix
                raise ToolError(str(cause)) from None
            raise


def explain_argument_errors(server: MCPServer) -> None:
    """Replace every tool registered on ``server`` with its ``ExplainedTool``."""
    tools: dict[str, Tool] = server._tool_manager._tools
    for name, tool in list(tools.items()):
        tools[name] = ExplainedTool.model_construct(**dict(tool))
