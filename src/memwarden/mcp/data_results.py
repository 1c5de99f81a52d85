"""Tool results that carry stored text: the structured result, and its text as a model reads it.

A client hands the model a tool result's text content, usually the JSON of the structured
result. Stored text is confined to JSON strings there, but a model also reads characters:
``</memwarden-recall>`` or a line separator inside a string is still a tag or a line to it. The
text of these results is therefore ``hooks.render.json_for_model`` of the structured content,
the same escaping the recall block uses: the same JSON value, with ``<``, ``>`` and every line
break written as escapes. The structured content is the SDK's own (``model_dump`` by alias).
"""

from __future__ import annotations

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel

from memwarden.hooks.render import json_for_model


def data_result(model: BaseModel) -> CallToolResult:
    """``model`` as a tool result: its JSON as structured content and, escaped, as text."""
    structured = model.model_dump(mode="json", by_alias=True)
    return CallToolResult(
        content=[TextContent(type="text", text=json_for_model(structured))], structured_content=structured
    )
