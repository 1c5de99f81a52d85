"""The command lines read without argparse: the exact shapes the per-prompt paths use.

Claude Code runs ``memwarden hook prompt`` before every message, and agents and people run
``memwarden search``; building the whole parser (and importing argparse) is a noticeable part of
those cold starts. Each reader here accepts only plain shapes and returns None for anything
else, which ``cli.main`` then hands to the full parser: argparse stays the authority on usage,
help and errors.
"""

from __future__ import annotations

# Not typing's: the prompt hook asking the daemon never imports typing, whose import is a
# large share of that hook's CPU (docs/performance.md#cold-start). mypy reads it as True.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable, Sequence
    from typing import Any


def hook_argv(argv: Sequence[str]) -> tuple[str, str | None, str | None] | None:
    """(hook, project, db) when ``argv`` is exactly ``[--db DB] hook NAME [--project P]``.

    Claude Code runs ``memwarden hook prompt`` before every message: this path skips building
    the whole parser (every command's imports) to stay within the hook's time budget. Any
    other shape, including ``--help``, goes through the full parser.
    """
    args = list(argv)
    db = project = None
    if len(args) >= 2 and args[0] == "--db":
        db, args = args[1], args[2:]
    if len(args) not in (2, 4) or args[0] != "hook" or args[1] not in ("prompt", "session-start", "stop"):
        return None
    if len(args) == 4:
        if args[2] not in ("--project", "--scope"):
            return None
        project = args[3]
    return args[1], project, db


# `memwarden search` shapes read without argparse (see search_args): flags and their kinds.
_SEARCH_SWITCHES = {
    "--json": "json",
    "--hybrid": "hybrid",
    "--include-expired": "include_expired",
    "--include-context": "include_context",
}
_SEARCH_VALUES = {"--project": "project", "--scope": "project", "--tag": "tag"}
_SEARCH_NUMBERS = {"--limit": "limit", "--max-tokens": "max_tokens"}


def search_args(argv: Sequence[str], handler: Callable[[Any], int]) -> Any | None:
    """The arguments of ``[--db DB] search [QUERY] [flags]`` when every flag is written out whole
    and every number is plain digits: what argparse would parse, without importing or building it
    (a noticeable share of a cold search: docs/performance.md#cold-start). Any other shape
    (``--help``, ``--limit=5``, an abbreviated flag, a value that starts with "-", a second
    query…) returns None and goes through the full parser, which gives argparse's own answer.
    ``handler`` is the search command's (``cli.main.cmd_search``).
    ``tests/cli/test_cli_fast_path.py`` checks that both read every shape alike."""
    from types import SimpleNamespace

    args = list(argv)
    db = None
    if len(args) >= 2 and args[0] == "--db" and not args[1].startswith("-"):
        db, args = args[1], args[2:]
    if not args or args[0] != "search":
        return None
    found: dict[str, Any] = dict(
        command="search", db=db, debug=False, handler=handler, query="", hybrid=False, project=None,
        tag=None, limit=10, include_expired=False, json=False, max_tokens=None, include_context=False,
    )  # fmt: skip
    query_seen = False
    rest = iter(args[1:])
    for arg in rest:
        if arg in _SEARCH_SWITCHES:
            found[_SEARCH_SWITCHES[arg]] = True
        elif arg in _SEARCH_VALUES or arg in _SEARCH_NUMBERS:
            value = next(rest, None)
            if value is None or value.startswith("-"):
                return None
            if arg in _SEARCH_NUMBERS:
                if not (value.isascii() and value.isdigit()):
                    return None
                found[_SEARCH_NUMBERS[arg]] = int(value)
            elif arg == "--tag":
                found["tag"] = [*(found["tag"] or []), value]
            else:
                found["project"] = value
        elif arg.startswith("-") or query_seen:
            return None
        else:
            found["query"], query_seen = arg, True
    return SimpleNamespace(**found)
