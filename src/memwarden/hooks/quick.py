"""The prompt hook through a running daemon, importing only what the exchange needs.

Claude Code runs ``memwarden hook prompt`` before every message. With the user's daemon up,
the hook process has little to do: read the hook JSON, say hello, send the JSON on, print the
line that comes back. The daemon runs the hook itself (``prompt_answer``, the one implementation:
parse, search, render) with the model it already holds. So this path imports neither the hook's
own modules nor ``json``, ``re``, ``typing`` or ``enum``: on the 2-core machine of
bench/hooks.py those cost more CPU than the daemon's whole answer.

Whenever the daemon cannot answer, the hook runs the usual way (``hooks.commands.run_hook``)
with the JSON already read:

- no daemon (no socket or token file), ``MEMWARDEN_DAEMON=off``, a loopback server configured
  (``MEMWARDEN_HOOK_SERVER``), settings that do not parse: nothing was asked; the usual way
  decides, and logs what is wrong;
- the daemon refused this client, or answered with a memwarden error (hook input that is not
  JSON, say): the usual way runs whole, so the log line and the output are what they were
  without this path;
- nothing listens on the daemon's socket (one left by a daemon killed with -9): the usual way
  searches the database without asking again, and logs nothing (no daemon is up);
- the daemon did not answer in time, or answered something odd: the usual way searches the
  database without asking the daemon again, and logs why.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: importing typing costs the prompt hook ~15 ms (mypy reads it as True)
if TYPE_CHECKING:  # pragma: no cover
    from typing import IO


def answer_prompt_hook(
    project: str | None,
    db: str | None,
    *,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
) -> int | None:
    """The exit code of ``memwarden [--db DB] hook prompt [--project P]`` when this path ran it
    (always 0, as every hook), or None when the daemon is not there to ask (nothing was read
    from stdin: the command runs as usual)."""
    from memwarden.config_hot import load_hot_settings
    from memwarden.daemon.place import DaemonPlace
    from memwarden.errors import ConfigError
    from memwarden.settings_paths import default_runtime_dir_name

    try:
        settings = load_hot_settings(**({"db": db} if db else {}))
        place = DaemonPlace(default_runtime_dir_name())
    except ConfigError:
        return None  # run_hook reads the settings again and logs what is wrong
    if (
        settings.daemon == "off"
        or settings.hook_server
        or not (os.path.exists(place.socket_file) or os.path.exists(place.token_file))
    ):
        return None
    try:
        raw = (stdin or sys.stdin).read()
    except KeyboardInterrupt:
        return 0
    except (OSError, ValueError):
        return None  # run_hook meets the same stdin and logs the failure
    unusable: str | None = None
    from memwarden.daemon.client import AttachRefused, DaemonAbsent, DaemonClient, DaemonUnavailable
    from memwarden.errors import MemwardenError

    timeout = settings.hook_timeout_ms / 1000
    try:
        answer = DaemonClient.call_once(
            place,
            settings,
            "hook_prompt",
            {
                "input": raw,
                "project": project,
                "limit": settings.hook_limit,
                "max_tokens": settings.hook_max_tokens,
            },
            timeout=timeout,
        )
        text = answer.get("text", "") if isinstance(answer, dict) else ""
        if text is None:
            return 0  # nothing to recall for this prompt
        if isinstance(text, str) and text:
            out = stdout or sys.stdout
            out.write(text + "\n")
            out.flush()
            return 0
        unusable = "the daemon's answer has no hook output"
    except AttachRefused:
        pass
    except DaemonAbsent:
        unusable = ""  # a socket left by a daemon killed with -9, say: no daemon, nothing to log
    except DaemonUnavailable as exc:
        unusable = str(exc)
    except MemwardenError:
        pass
    except KeyboardInterrupt:
        return 0
    except Exception as exc:  # noqa: BLE001 - a hook never breaks the session: the usual way runs
        unusable = f"the exchange with the daemon failed ({type(exc).__name__})"
    from io import StringIO

    from memwarden.hooks.commands import run_hook

    return run_hook(
        "prompt", project=project, db=db, stdin=StringIO(raw), stdout=stdout, daemon_unusable=unusable
    )
