"""The prompt hook's answer to one hook JSON, whatever searches for it.

``prompt_answer`` is the one implementation of the UserPromptSubmit hook: parse the input, skip
trivial prompts, choose the query and the projects, render the hits as quoted data. The hook
process runs it with its own ways of searching (``commands.prompt_hook``: a loopback server,
the daemon's ``recall`` or the database); the daemon and the HTTP server run it whole for
``hooks.quick`` (the daemon's ``hook_prompt`` call, ``POST /hooks/prompt``: ``prompt_request``),
searching with their own service.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from memwarden.hooks.payload import (
    is_trivial,
    parse_hook_input,
    project_for,
    projects_to_search,
    query_from_prompt,
)

Output = dict[str, Any] | None


def prompt_answer(
    raw: str,
    project: str | None,
    *,
    max_tokens: int,
    hits: Callable[[str, list[str | None]], list[dict[str, Any]]],
    from_cwd: bool = True,
) -> Output:
    """The prompt hook's output for the hook JSON ``raw``; ``hits(query, projects)`` searches.

    The one implementation of the prompt hook, wherever it runs: in the hook's own process
    (``prompt_hook``) or in the daemon or server, which answer a whole hook for ``hooks.quick``.
    ``project`` is ``--project``, and with ``from_cwd`` the session's folder names the project
    when it is not given (``projects.project_for``); without, ``project`` is the name the hook
    found itself (None: every project) and no folder is looked at.
    """
    from memwarden.hooks.render import render_recall

    hook = parse_hook_input(raw, "UserPromptSubmit")
    if is_trivial(hook.prompt):
        return None
    query = query_from_prompt(hook.prompt)
    name = project_for(hook.cwd, project) if from_cwd else (project or "").strip() or None
    context = render_recall(hits(query, projects_to_search(name)), max_tokens=max_tokens)
    if context is None:
        return None
    return {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": context}}


# JSON escapes C0 controls itself; C1 controls and the Unicode line separators it leaves raw, and
# a terminal showing the hook's output (Claude Code's verbose mode, a user running the hook by
# hand) could act on C1 or break lines at them. Escaped, the line is the same JSON value.
_RAW_IN_JSON = str.maketrans({c: f"\\u{c:04x}" for c in (*range(0x80, 0xA0), 0x2028, 0x2029)})


def output_text(output: dict[str, Any]) -> str:
    """The line a hook prints for ``output`` (without its newline)."""
    return json.dumps(output, ensure_ascii=False).translate(_RAW_IN_JSON)
