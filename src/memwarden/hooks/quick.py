"""The prompt hook through a running daemon or server, importing only what the exchange needs.

Claude Code runs ``memwarden hook prompt`` before every message. With the user's daemon up (or
a memwarden HTTP server on loopback named by ``MEMWARDEN_HOOK_SERVER``), the hook process has
little to do: read the hook JSON, find the session's project (``hooks.projects``: the folder is
on this machine, and the answering side never looks at it), send both on, print the line that
comes back. The daemon (its
``hook_prompt`` call) or the server (``POST /hooks/prompt``) runs the hook itself
(``hooks.prompt``, the one implementation: parse, search, render) with the model it already
holds. So this path imports neither the hook's own modules nor ``json``, ``re``, ``typing`` or
``enum``: on the 2-core machine of bench/hooks.py those cost more CPU than the daemon's whole
answer.

Whenever the daemon or server cannot answer, the hook runs the usual way
(``hooks.commands.run_hook``) with the JSON already read:

- no daemon (no socket or token file), ``MEMWARDEN_DAEMON=off``, a server address this path
  does not read (a host name, IPv6: ``hooks.loopback.plain_loopback_address``), settings that do
  not parse: nothing was asked; the usual way decides, and logs what is wrong;
- the daemon refused this client or answered with a memwarden error, the server answered 400
  (hook input that is not JSON, say) or 404 (a server without the route): the usual way runs
  whole, so the log line and the output are what they were without this path;
- nothing listens on the daemon's socket (one left by a daemon killed with -9): the usual way
  searches the database without asking again, and logs nothing (no daemon is up);
- the daemon or server did not answer in time, could not be reached (the server) or answered
  something odd: the usual way searches the database without asking again, and logs why.
"""

from __future__ import annotations

import sys

# Not typing's: the prompt hook asking the daemon never imports typing, whose import is a
# large share of that hook's CPU (docs/performance.md#cold-start). mypy reads it as True.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import IO

    from memwarden.daemon.place import DaemonPlace
    from memwarden.settings_reader import HotSettings


def answer_prompt_hook(
    project: str | None,
    db: str | None,
    *,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
) -> int:
    """Run ``memwarden [--db DB] hook prompt [--project P]``: through the daemon or server when
    there is one to ask, else the usual way, with the settings read once. Always 0, as every
    hook."""
    from memwarden.errors import ConfigError
    from memwarden.settings_paths import default_runtime_dir_name
    from memwarden.settings_reader import load_hot_settings

    try:
        settings = load_hot_settings(**({"db": db} if db else {}))
    except ConfigError:  # run_hook reads the settings again and logs what is wrong
        return _usual(project, db, None, stdin, stdout, None, None)
    ask: Callable[[dict[str, object]], object]
    if settings.hook_server:
        from memwarden.hooks.loopback import plain_loopback_address

        address = plain_loopback_address(settings.hook_server)
        if address is None:  # the usual way reads it with urllib (and refuses what is not loopback)
            return _usual(project, db, None, stdin, stdout, None, settings)
        ask, which = _server(settings, address), "server"
    elif settings.daemon == "off":
        # No daemon to ask, and none looked for: its runtime folder and modules stay unread.
        return _usual(project, db, None, stdin, stdout, None, settings)
    else:
        try:
            runtime = default_runtime_dir_name()
        except ConfigError:  # run_hook reads the settings again and logs what is wrong
            return _usual(project, db, None, stdin, stdout, None, None)
        from memwarden.daemon.place import DaemonPlace

        place = DaemonPlace(runtime)
        if not place.may_be_up():
            # No daemon to ask. With "auto" the usual way need not look again (""); with "only"
            # it says in the log that none is up.
            unasked = "" if settings.daemon == "auto" else None
            return _usual(project, db, None, stdin, stdout, unasked, settings)
        ask, which = _daemon(settings, place), "daemon"
    try:
        raw = (stdin or sys.stdin).read()
    except KeyboardInterrupt:
        return 0
    except (OSError, ValueError):  # run_hook meets the same stdin and logs the failure
        return _usual(project, db, None, stdin, stdout, None, settings)
    from memwarden.daemon.frames import loads
    from memwarden.hooks.projects import project_for

    try:  # the project from the session's folder, here: the answering side looks at no folder
        cwd = loads(raw).get("cwd", "")
    except (ValueError, AttributeError):
        cwd = None
    if not isinstance(cwd, str):
        # Not the hook's JSON: the usual way says what is wrong with it, in the log.
        return _usual(project, db, raw, None, stdout, None, settings)
    from memwarden.daemon.client import AttachRefused, DaemonAbsent
    from memwarden.errors import MemwardenError
    from memwarden.hooks.loopback import HttpStatusError
    from memwarden.net import LoopbackError

    unanswered: str | None = None
    try:
        answer = ask(
            {
                "input": raw,
                "project": project_for(cwd, project),
                "limit": settings.hook_limit,
                "max_tokens": settings.hook_max_tokens,
            }
        )
        text = answer.get("text", "") if isinstance(answer, dict) else ""
        if text is None:
            return 0  # nothing to recall for this prompt
        if isinstance(text, str) and text:
            return _print(text, stdout)
        unanswered = f"the {which}'s answer has no hook output"
    except (AttachRefused, MemwardenError):
        pass
    except DaemonAbsent:
        unanswered = ""  # a socket left by a daemon killed with -9, say: no daemon, nothing to log
    except HttpStatusError as exc:
        unanswered = None if exc.status in ("400", "404") else str(exc)
    except LoopbackError as exc:
        unanswered = str(exc)
    except KeyboardInterrupt:
        return 0
    except Exception as exc:  # noqa: BLE001 - a hook never breaks the session: the usual way runs
        unanswered = f"the exchange with the {which} failed ({type(exc).__name__})"
    return _usual(project, db, raw, None, stdout, unanswered, settings)


def _usual(
    project: str | None,
    db: str | None,
    raw: str | None,
    stdin: IO[str] | None,
    stdout: IO[str] | None,
    unanswered: str | None,
    settings: HotSettings | None,
) -> int:
    """The hook the usual way (``hooks.commands.run_hook``), on the input already read (``raw``)
    or still to read, with the settings already read (None: run_hook reads and checks them)."""
    from io import StringIO

    from memwarden.hooks.commands import run_hook

    return run_hook(
        "prompt",
        project=project,
        db=db,
        stdin=stdin if raw is None else StringIO(raw),
        stdout=stdout,
        unanswered=unanswered,
        settings=settings,
    )


def _print(text: str, stdout: IO[str] | None) -> int:
    try:
        out = stdout or sys.stdout
        out.write(text + "\n")
        out.flush()
    except (OSError, ValueError):
        pass  # Claude Code stopped reading (or stdout is closed): nowhere to say anything
    return 0


def _daemon(settings: HotSettings, place: DaemonPlace) -> Callable[[dict[str, object]], object]:
    from memwarden.daemon.client import DaemonClient

    def ask(body: dict[str, object]) -> object:
        return DaemonClient.call_once(
            place, settings, "hook_prompt", body, timeout=settings.hook_timeout_ms / 1000
        )

    return ask


def _server(settings: HotSettings, address: tuple[str, int, str]) -> Callable[[dict[str, object]], object]:
    from memwarden.daemon.frames import dumps
    from memwarden.hooks.loopback import post
    from memwarden.hooks.paths import PROMPT_PATH

    host, port, prefix = address

    def ask(body: dict[str, object]) -> object:
        return post(
            host,
            port,
            prefix + PROMPT_PATH,
            dumps(body).encode("utf-8"),
            token=settings.http_token,
            timeout=settings.hook_timeout_ms / 1000,
        )

    return ask
