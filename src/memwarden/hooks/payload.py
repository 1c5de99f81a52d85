"""Claude Code hook input: the JSON on stdin, the project a session works in, trivial prompts.

Claude Code sends every hook ``session_id``, ``transcript_path``, ``cwd``, ``permission_mode``
and ``hook_event_name``; UserPromptSubmit adds ``prompt``, SessionStart ``source`` (startup,
resume, clear, compact), Stop ``stop_hook_active`` (true when a Stop hook already made
Claude continue in this turn).
"""

import json
import re
import sys

from memwarden.hooks.projects import project_for, projects_to_search

__all__ = [
    "HookInput",
    "HookInputError",
    "is_trivial",
    "parse_hook_input",
    "project_for",
    "projects_to_search",
    "query_from_prompt",
]

# A prompt longer than this is searched by its beginning and its end, where people put the
# question around a pasted log or file.
QUERY_HEAD_CHARS = 600
QUERY_TAIL_CHARS = 400

_SLASH_COMMAND = re.compile(r"^/[\w:.-]+(?:\s|$)")
_WORD = re.compile(r"\w+")
# Acknowledgements that carry nothing to search for: the prompt's words, case folded and
# joined by single spaces, are looked up whole.
ACKNOWLEDGEMENTS = frozenset(
    (
        "ok",
        "okay",
        "k",
        "kk",
        "yes",
        "y",
        "yeah",
        "yep",
        "yup",
        "no",
        "n",
        "nope",
        "sure",
        "thanks",
        "thank you",
        "thx",
        "ty",
        "cool",
        "great",
        "nice",
        "good",
        "perfect",
        "awesome",
        "done",
        "next",
        "continue",
        "go",
        "go on",
        "go ahead",
        "proceed",
        "lgtm",
        "sounds good",
        "do it",
        "please do",
        "yes please",
        "ok thanks",
        "okay thanks",
        "thanks a lot",
        "got it",
        "right",
        "correct",
        "exactly",
        "agreed",
        "fine",
        "alright",
        "all right",
        "makes sense",
        "keep going",
        "carry on",
        "wait",
        "hmm",
        "hm",
        "ack",
        "np",
        "no problem",
        "good job",
        "well done",
        # Turkish, German, French, Spanish, Japanese, Chinese.
        "tamam",
        "evet",
        "hayır",
        "hayir",
        "olur",
        "peki",
        "sağol",
        "sağ ol",
        "teşekkürler",
        "tesekkurler",
        "teşekkür ederim",
        "devam",
        "devam et",
        "aynen",
        "ja",
        "nein",
        "danke",
        "danke schön",
        "weiter",
        "oui",
        "non",
        "merci",
        "d accord",
        "sí",
        "si",
        "gracias",
        "vale",
        "de acuerdo",
        "sigue",
        "はい",
        "いいえ",
        "ありがとう",
        "好",
        "好的",
        "是",
        "谢谢",
        "继续",
        "对",
    )
)


class HookInputError(ValueError):
    """The stdin JSON is not the hook input this command expects."""


class HookInput:
    """The fields of a hook input the hooks read.

    A plain class, not a named tuple: every cold hook defines it, and a named tuple's class
    costs several times as much to create (docs/performance.md#cold-start)."""

    __slots__ = ("cwd", "event", "prompt", "session_id", "source", "stop_hook_active")

    def __init__(
        self,
        event: str,
        session_id: str,
        cwd: str,
        prompt: str = "",
        source: str = "",
        stop_hook_active: bool = False,
    ) -> None:
        self.event = event
        self.session_id = session_id
        self.cwd = cwd
        self.prompt = prompt
        self.source = source
        self.stop_hook_active = stop_hook_active


def _text(data: dict[str, object], key: str) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise HookInputError(f"hook input field {key!r} is not a string")
    return value


def parse_hook_input(raw: str, event: str) -> HookInput:
    """The hook input for ``event``; HookInputError when it is not JSON or names another event."""
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise HookInputError(f"hook input is not JSON ({exc.msg} at char {exc.pos})") from None
    except RecursionError:
        raise HookInputError(
            "hook input is nested too deeply to read (JSON arrays or objects thousands of levels deep)"
        ) from None
    except ValueError:  # the only other failure of json.loads: a number past int()'s digit limit
        raise HookInputError(
            f"hook input holds a number of more than {sys.get_int_max_str_digits()} digits, too long to read"
        ) from None
    if not isinstance(data, dict):
        raise HookInputError("hook input is not a JSON object")
    named = data.get("hook_event_name", event)
    if named != event:
        raise HookInputError(
            f"hook input is for {named!r}, not {event!r}: check the hook command in settings"
        )
    return HookInput(
        event=event,
        session_id=_text(data, "session_id"),
        cwd=_text(data, "cwd"),
        prompt=_text(data, "prompt"),
        source=_text(data, "source"),
        stop_hook_active=data.get("stop_hook_active") is True,
    )


def is_trivial(prompt: str) -> bool:
    """True for prompts with nothing to recall for: slash commands, acknowledgements, a few
    letters. The prompt hook stays silent on them."""
    text = prompt.strip()
    if not text or _SLASH_COMMAND.match(text):
        return True
    words = _WORD.findall(text.casefold())
    phrase = " ".join(words)
    if not words or phrase in ACKNOWLEDGEMENTS:
        return True
    return phrase.isascii() and sum(len(w) for w in words) < 3


def query_from_prompt(prompt: str) -> str:
    """The search text for a prompt: all of it, or its head and tail when it is long."""
    text = prompt.strip()
    if len(text) <= QUERY_HEAD_CHARS + QUERY_TAIL_CHARS:
        return text
    return f"{text[:QUERY_HEAD_CHARS]}\n{text[-QUERY_TAIL_CHARS:]}"
