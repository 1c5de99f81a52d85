"""``memwarden serve`` with no options, started without ``cli.main`` (``cli/entry.py``).

This is how MCP clients start memwarden, once per client, and with the daemon up the process
only relays stdio to it (``daemon/relay.py``) for the client's whole session: whatever it
imports stays resident in every client's process. The parser (argparse, gettext, locale),
typing and every command module are no part of relaying, so this module does what
``cli.serve_command`` does for a serve that relays, in the same order and with the same lines:

- read the settings (the standard-library reader), check the database place as ``cli.main``
  does for ``serve`` (a path that is not a database stops here with one line);
- say which ``MEMWARDEN_*`` names are unknown, write "serve started/stopped" to the log file;
- relay through the daemon (``daemon/attach.py``), or, when the daemon will not have this
  client, serve MCP in this process as ``cli.serve_command`` would, without asking again.

Errors end as ``cli.main.run_handler`` ends them: one line on stderr and exit code 1.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # not typing's: importing typing is what this module avoids
if TYPE_CHECKING:  # pragma: no cover
    from memwarden.settings_reader import HotSettings


def is_plain_serve(argv: list[str]) -> bool:
    """``memwarden serve`` alone (any option, --http, --db, --tools, --help, takes the parser)."""
    return argv == ["serve"]


def run_plain_serve() -> int:
    """Run ``memwarden serve`` (stdio) and return its exit code."""
    from memwarden.errors import MemwardenError

    try:
        return _serve_plain()
    except MemwardenError as exc:
        print(f"memwarden: {exc.message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - the command's top-level handler, as cli.main's
        from memwarden.cli.failure_lines import os_error_line, unexpected_line

        print(os_error_line(exc) if isinstance(exc, OSError) else unexpected_line(exc), file=sys.stderr)
        return 1


def _serve_plain() -> int:
    from types import SimpleNamespace

    from memwarden.cli.existing_db import check_database_place
    from memwarden.daemon.attach import log_file_name
    from memwarden.logs import log_lifecycle
    from memwarden.settings_reader import load_hot_settings, unknown_setting_names
    from memwarden.version import __version__

    # It reads the parsed arguments with getattr only: no argparse (and its imports) for two names.
    serve_args = SimpleNamespace(command="serve", db=None)
    new_database = check_database_place(serve_args)  # type: ignore[arg-type]
    settings = load_hot_settings()
    unknown = unknown_setting_names()
    if unknown and not settings.http and settings.daemon != "off":
        # On its own line: the daemon's start line (daemon/attach.py) does not carry our notes.
        print(f"memwarden: ignoring unknown settings: {', '.join(unknown)}", file=sys.stderr)
    log_lifecycle(log_file_name(settings), f"serve started (pid {os.getpid()}, version {__version__})")
    try:
        relayed = None
        if not settings.http:
            from memwarden.daemon.attach import serve_through_daemon

            relayed = serve_through_daemon(settings, tools=settings.tools)
        if relayed is not None:
            return relayed
        return _serve_in_process(settings, new_database, unknown)
    finally:
        log_lifecycle(log_file_name(settings), f"serve stopped (pid {os.getpid()})")


def _serve_in_process(settings: HotSettings, new_database: str | None, unknown: list[str]) -> int:
    """The server in this process, as ``cli.serve_command`` runs it once the daemon is not used
    (MEMWARDEN_DAEMON=off, --http set by MEMWARDEN_HTTP, or the daemon refused this client):
    ``daemon="off"`` so that it does not ask the daemon a second time."""
    from memwarden.cli.output import TerminalSafeStdout
    from memwarden.cli.serve_command import serve_with

    notes = []
    if new_database:
        notes.append("a new database, created now (check the path if you expected your memories)")
    if unknown:
        notes.append(f"unknown settings ignored: {', '.join(unknown)}")
    off = {"daemon": "off"}
    from memwarden.settings_reader import load_hot_settings

    with TerminalSafeStdout():  # as cli.main.run_handler runs every command
        return serve_with(load_hot_settings(**off), off, tuple(notes))
