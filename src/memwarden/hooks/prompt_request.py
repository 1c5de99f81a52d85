"""A whole prompt hook asked of the daemon or the HTTP server (``hooks.quick``): the request's
checks and its answer.

The daemon's ``hook_prompt`` call and ``POST /hooks/prompt`` take the same body and give the
same answer, from ``hooks.prompt.prompt_answer`` (the code the hook runs in its own process).
Only they import this module: the hook's own process never needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from memwarden.errors import InvalidInput
from memwarden.hooks.payload import HookInputError
from memwarden.hooks.prompt import output_text, prompt_answer

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.models import Caller
    from memwarden.service import MemoryService

PROMPT_FIELDS = ("input", "project", "limit", "max_tokens")


class PromptRequest(NamedTuple):
    """A whole prompt hook to answer: the hook JSON, ``--project``, and the hook's settings."""

    input: str
    project: str | None
    limit: int
    max_tokens: int


def parse_prompt_request(body: object) -> PromptRequest:
    """``{"input": str, "project": str | null, "limit": int, "max_tokens": int}`` checked (the
    bounds of MEMWARDEN_HOOK_LIMIT and MEMWARDEN_HOOK_MAX_TOKENS), or InvalidInput naming the
    field. ``project`` is the session's project as the hook found it (``hooks.projects``; null:
    every project): the ``cwd`` inside ``input`` is never looked at here."""
    from memwarden.settings_table import BY_NAME

    if not isinstance(body, dict):
        raise InvalidInput(
            'send a JSON object: {"input": "<hook JSON>", "project": null, "limit": 5, "max_tokens": 600}',
            field="body",
        )
    unknown = sorted(str(k) for k in body if k not in PROMPT_FIELDS)
    if unknown:
        raise InvalidInput(
            f"unknown field(s) {', '.join(unknown)}; send {', '.join(PROMPT_FIELDS)}", field=unknown[0]
        )
    raw, project = body.get("input"), body.get("project")
    if not isinstance(raw, str):
        raise InvalidInput(
            "input must be a string: the hook's JSON input, as Claude Code sent it", field="input"
        )
    if project is not None and not isinstance(project, str):
        raise InvalidInput("project must be a string or null", field="project")
    numbers = []
    for field in ("limit", "max_tokens"):
        spec = BY_NAME[f"hook_{field}"]
        value = body.get(field)
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or (spec.ge is not None and value < spec.ge)
            or (spec.le is not None and value > spec.le)
        ):
            raise InvalidInput(
                f"{field} must be a whole number from {spec.ge:g} to {spec.le:g} ({spec.env})", field=field
            )
        numbers.append(value)
    return PromptRequest(raw, project, numbers[0], numbers[1])


def answer_request(service: MemoryService, request: PromptRequest, caller: Caller | None) -> dict[str, Any]:
    """``{"text": <the line the hook prints>}`` (null: print nothing) for a checked request,
    searched by ``service`` as ``caller``; hook input that is not the hook's is InvalidInput."""
    from memwarden.search.recall import recall

    try:
        output = prompt_answer(
            request.input,
            request.project,
            from_cwd=False,  # the hook named the project; this process looks at no folder
            max_tokens=request.max_tokens,
            hits=lambda query, projects: recall(service, query, projects, request.limit, caller=caller),
        )
    except HookInputError as exc:
        raise InvalidInput(str(exc), field="input") from None
    return {"text": None if output is None else output_text(output)}
