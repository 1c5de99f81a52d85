"""``memwarden hook prompt | session-start | stop``: read the hook JSON, print the hook output.

Outputs follow Claude Code's hook contract exactly:

- UserPromptSubmit and SessionStart: ``{"hookSpecificOutput": {"hookEventName": <event>,
  "additionalContext": <text>}}``, or nothing when there is nothing to add;
- Stop: ``{"decision": "block", "reason": <text>}`` to make Claude continue with the reason
  as its next instruction, or nothing to let it stop. Asking costs a model turn, so by default
  (``MEMWARDEN_HOOK_STOP=nudge``) it asks only after a session long enough to hold a durable
  fact (``STOP_MIN_USER_TURNS`` real user messages in the transcript); the SessionStart note
  asks for durable facts in every session at no cost.

``run_hook`` never lets a failure reach Claude Code: whatever goes wrong (bad input, missing
or broken database, unreadable settings), the hook prints nothing, exits 0 and appends one
line to the log file, without memory content or prompt text.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from memwarden.hooks.payload import parse_hook_input, project_for, projects_to_search
from memwarden.hooks.prompt import output_text, prompt_answer

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.settings_reader import HotSettings

Output = dict[str, Any] | None
PINNED_LIMIT = 20
# With MEMWARDEN_HOOK_STOP=nudge, the Stop hook asks only after this many user messages that are
# not acknowledgements: a question answered in a few exchanges rarely leaves a durable fact,
# and asking costs every such session a model turn (docs/hooks.md has the measurement).
STOP_MIN_USER_TURNS = 6

STOP_REASON = (
    "Before you finish: nothing was stored in memwarden during this session. If anything durable "
    "came up (a decision, a preference, a fact about this project or the user that a later session "
    "would need), search memory for it and store each new one as a single self-contained sentence "
    "with memory_add{project}. If nothing durable came up, say so in one line and stop; this is the "
    "only time you will be asked in this session."
)


def prompt_hook(
    raw: str, settings: HotSettings, project: str | None, *, unanswered: str | None = None
) -> Output:
    """UserPromptSubmit: the memories that match the user's message, quoted as data.

    ``unanswered``: the daemon or server (``MEMWARDEN_HOOK_SERVER``) was already asked for this
    prompt and could not answer; the database answers without asking again (see
    ``hooks.quick``), and the log says why (an empty reason: no daemon was there, nothing to
    log)."""
    return prompt_answer(
        raw,
        project,
        max_tokens=settings.hook_max_tokens,
        hits=lambda query, projects: _prompt_hits(settings, query, projects, unanswered),
    )


def _prompt_hits(
    settings: HotSettings, query: str, projects: list[str | None], unanswered: str | None
) -> list[dict[str, Any]]:
    """The hits through the loopback server, the daemon or the database, in that order of choice."""
    hits = None
    if unanswered is not None:
        if unanswered:  # asked already (hooks.quick): the database answers, and the log says why
            which = "server" if settings.hook_server else "daemon"
            log_line(settings, "prompt", f"{which} not used ({unanswered}); searched the database")
    elif settings.hook_server:
        from memwarden.hooks.recall import recall_from_server
        from memwarden.net import LoopbackError

        try:
            hits = recall_from_server(settings, query, projects)
        except LoopbackError as exc:
            # The server is optional: when it is off, slow or odd, the database answers instead.
            log_line(settings, "prompt", f"server not used ({exc}); searched the database")
    elif settings.daemon != "off":
        from memwarden.hooks.recall import recall_from_daemon
        from memwarden.net import LoopbackError

        try:
            hits = recall_from_daemon(settings, query, projects)
        except LoopbackError as exc:
            # Up but slow or odd (not merely absent): the database answers, and the log says so.
            log_line(settings, "prompt", f"daemon not used ({exc}); searched the database")
    if hits is None:
        from memwarden.hooks.recall import recall_from_database

        hits = recall_from_database(settings, query, projects)
    return hits


def session_start_hook(raw: str, settings: HotSettings, project: str | None) -> Output:
    """SessionStart: how to use memwarden here, and the project's pinned memories."""
    from memwarden.hooks.render import render_session_start
    from memwarden.hooks.sessions import SessionState, open_existing_service

    hook = parse_hook_input(raw, "SessionStart")
    name = project_for(hook.cwd, project)
    service = open_existing_service(settings)
    try:
        pinned: list[dict[str, Any]] = []
        for scope in projects_to_search(name):
            pinned += [
                m.to_dict() for m in service.memories.list(project=scope, pinned=True, limit=PINNED_LIMIT)
            ]
        state = SessionState(settings, hook.session_id)
        state.prune()
        state.mark_started(service.clock())
    finally:
        service.close()
    context = render_session_start(name, pinned, max_tokens=settings.hook_max_tokens)
    return {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": context}}


def stop_hook(raw: str, settings: HotSettings, project: str | None) -> Output:
    """Stop: once per session, when nothing was stored since it started (and, with
    ``MEMWARDEN_HOOK_STOP=nudge``, the session was long enough), ask about durable facts."""
    from memwarden.hooks.sessions import SessionState, open_existing_service, user_turns

    hook = parse_hook_input(raw, "Stop")
    if hook.stop_hook_active or settings.hook_stop == "off":
        return None  # a Stop hook already sent Claude back to work in this turn, or asked not to
    if settings.hook_stop == "nudge" and user_turns(_transcript_path(raw)) < STOP_MIN_USER_TURNS:
        return None  # too short a session to hold a durable fact worth a model turn
    state = SessionState(settings, hook.session_id)
    service = open_existing_service(settings)
    try:
        started = state.started_at()
        if started is None:
            # No SessionStart seen (hooks installed mid-session): what was stored before now is
            # unknown, so do not ask this time; start counting from here.
            state.mark_started(service.clock())
            return None
        latest = service.memories.list(limit=1)
    finally:
        service.close()
    if latest and latest[0].updated_at >= started:
        return None
    if not state.claim_question():
        return None
    name = project_for(hook.cwd, project)
    return {"decision": "block", "reason": STOP_REASON.format(project=f' (project "{name}")' if name else "")}


def _transcript_path(raw: str) -> str:
    """The ``transcript_path`` of the hook input (already read as JSON by ``parse_hook_input``)."""
    import json

    value = json.loads(raw).get("transcript_path")
    return value if isinstance(value, str) else ""


HOOKS: dict[str, Callable[[str, Any, str | None], Output]] = {
    "prompt": prompt_hook,
    "session-start": session_start_hook,
    "stop": stop_hook,
}


def run_hook(
    name: str,
    *,
    project: str | None = None,
    db: str | None = None,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    unanswered: str | None = None,
    settings: HotSettings | None = None,
) -> int:
    """Run one hook; always returns 0 (see the module docstring). ``unanswered``: see
    ``prompt_hook``; ``settings``: already read for this command (``db`` applied)."""
    try:
        if settings is None:
            from memwarden.settings_reader import load_hot_settings

            settings = load_hot_settings(**({"db": db} if db else {}))
        raw = (stdin or sys.stdin).read()
        if name == "prompt":
            output = prompt_hook(raw, settings, project, unanswered=unanswered)
        else:
            output = HOOKS[name](raw, settings, project)
        if output is not None:
            out = stdout or sys.stdout
            out.write(output_text(output) + "\n")
            out.flush()
    except KeyboardInterrupt:
        pass
    except Exception as exc:  # noqa: BLE001 - a hook must never break the session
        from memwarden.errors import ConfigError

        if isinstance(exc, ConfigError):
            # A bad setting stops every hook until it is fixed: say that, in the setting's words.
            log_line(
                settings, name, f"is off until a setting is fixed: {_short(exc)} (`memwarden doctor` checks)"
            )
        else:
            log_line(settings, name, _failure_words(exc))
    return 0


def _failure_words(exc: Exception) -> str:
    """What went wrong, for the log line, in words: bad input and memwarden's own errors say
    what to do in their message; an OS error gets os_error_words'; only a failure nobody
    foresaw (a bug to report) keeps its class name, which is what a bug report needs."""
    from memwarden.errors import MemwardenError
    from memwarden.hooks.payload import HookInputError

    if isinstance(exc, HookInputError):
        return f"ignored its input: {_short(exc)} (it reads the JSON Claude Code sends on stdin)"
    if isinstance(exc, MemwardenError) or (isinstance(exc, OSError) and exc.errno is None):
        return f"failed: {_short(exc)}"  # memwarden's own words (an OSError raised with a message)
    if isinstance(exc, OSError):
        from memwarden.os_error_words import os_error_words

        happened, fix = os_error_words(exc)
        where = f" ({exc.filename})" if exc.filename else ""
        return f"failed: {happened}{where}; {fix}"
    return f"failed unexpectedly, a bug worth reporting with this line: {type(exc).__name__}: {_short(exc)}"


def _short(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]


def log_line(settings: HotSettings | None, hook: str, message: str) -> None:
    """Append one line to the log file (MEMWARDEN_LOG_FILE, else the data directory's)."""
    try:
        if settings is not None:
            path = settings.log_path()
        else:  # the settings could not be read: the log file the user named, if any
            from pathlib import Path

            from memwarden.settings_reader import log_file_name

            path = Path(log_file_name())
        from datetime import UTC, datetime

        message = _redacted(settings, message)
        path.parent.mkdir(parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S,%f")[:-3]
        with open(path, "a", encoding="utf-8") as log:
            log.write(f"{stamp} WARNING memwarden.hooks: {hook} hook {message}\n")
    except OSError:
        pass  # nowhere to write: stay silent rather than disturb the session


def _redacted(settings: HotSettings | None, message: str) -> str:
    """``message`` through the configured redaction rules: a failure's message may quote what the
    hook was given (a bad ``--project``, say); the built-in rules when the settings cannot say."""
    try:
        if settings is not None:
            from memwarden.app import build_redactor

            return build_redactor(settings).redact(message).text
    except Exception:  # noqa: BLE001 - a broken rule pack: the built-in rules still apply
        pass
    from memwarden.govern.redactor import Redactor

    return Redactor().redact(message).text
