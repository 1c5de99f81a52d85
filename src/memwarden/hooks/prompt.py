"""The prompt hook's answer to one hook JSON, whatever searches for it.

``prompt_answer`` is the one implementation of the UserPromptSubmit hook: parse the input, skip
trivial prompts, choose the query and the projects, render the hits as quoted data. The hook
process runs it with its own ways of searching (``commands.prompt_hook``: a loopback server,
the daemon's ``recall`` or the database); the daemon and the HTTP server run it whole for
``hooks.quick`` (the daemon's ``hook_prompt`` call, ``POST /hooks/prompt``), searching with
their own service: ``parse_prompt_request`` checks what they are sent and ``answer_request``
answers it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

from memwarden.errors import InvalidInput
from memwarden.hooks.payload import (
    HookInputError,
    is_trivial,
    parse_hook_input,
    project_for,
    projects_to_search,
    query_from_prompt,
)

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.models import Caller
    from memwarden.service import MemoryService

Output = dict[str, Any] | None
PROMPT_FIELDS = ("input", "project", "limit", "max_tokens")


class PromptRequest(NamedTuple):
    """A whole prompt hook to answer: the hook JSON, ``--project``, and the hook's settings."""

    input: str
    project: str | None
    limit: int
    max_tokens: int


def prompt_answer(
    raw: str,
    project: str | None,
    *,
    max_tokens: int,
    hits: Callable[[str, list[str | None]], list[dict[str, Any]]],
) -> Output:
    """The prompt hook's output for the hook JSON ``raw``; ``hits(query, projects)`` searches.

    The one implementation of the prompt hook, wherever it runs: in the hook's own process
    (``prompt_hook``) or in the daemon, which answers a whole hook for ``hooks.quick``.
    """
    from memwarden.hooks.render import render_recall

    hook = parse_hook_input(raw, "UserPromptSubmit")
    if is_trivial(hook.prompt):
        return None
    query = query_from_prompt(hook.prompt)
    context = render_recall(
        hits(query, projects_to_search(project_for(hook.cwd, project))), max_tokens=max_tokens
    )
    if context is None:
        return None
    return {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": context}}


def output_text(output: dict[str, Any]) -> str:
    """The line a hook prints for ``output`` (without its newline)."""
    return json.dumps(output, ensure_ascii=False)


def parse_prompt_request(body: object) -> PromptRequest:
    """``{"input": str, "project": str | null, "limit": int, "max_tokens": int}`` checked (the
    bounds of MEMWARDEN_HOOK_LIMIT and MEMWARDEN_HOOK_MAX_TOKENS), or InvalidInput naming the
    field."""
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
            max_tokens=request.max_tokens,
            hits=lambda query, projects: recall(service, query, projects, request.limit, caller=caller),
        )
    except HookInputError as exc:
        raise InvalidInput(str(exc), field="input") from None
    return {"text": None if output is None else output_text(output)}
