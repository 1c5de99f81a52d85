"""``memwarden serve``: read the settings, log start and stop, then relay stdio to the user's
daemon or serve MCP in this process (stdio, or Streamable HTTP with ``--http``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from memwarden.version import __version__


def serve_command(args: argparse.Namespace) -> int:
    """``memwarden serve``: relay to the user's daemon, or serve MCP (stdio or HTTP) here."""
    from memwarden.settings_reader import load_hot_settings

    overrides: dict[str, Any] = {}
    if args.db:
        overrides["db"] = args.db
    if args.http is not None:
        overrides["http"] = args.http
    if args.tools:
        overrides["tools"] = args.tools
    # The standard-library reader: a serve that only relays to the daemon imports no pydantic
    # (docs/daemon.md); one that serves itself reads the full settings in ``serve_with``.
    settings = load_hot_settings(**overrides)
    from memwarden.logs import log_lifecycle
    from memwarden.settings_reader import unknown_setting_names

    unknown = unknown_setting_names()
    if unknown and not settings.http and settings.daemon != "off":
        # On its own line: the daemon's start line (daemon/attach.py) does not carry our notes.
        print(f"memwarden: ignoring unknown settings: {', '.join(unknown)}", file=sys.stderr)
    log_lifecycle(settings.log_path(), f"serve started (pid {_pid()}, version {__version__})")
    try:
        return serve_with(settings, overrides, _start_notes(args, unknown))
    finally:
        log_lifecycle(settings.log_path(), f"serve stopped (pid {_pid()})")


def _pid() -> int:
    import os

    return os.getpid()


def _start_notes(args: argparse.Namespace, unknown: list[str]) -> tuple[str, ...]:
    notes = []
    if getattr(args, "new_database", None):
        notes.append("a new database, created now (check the path if you expected your memories)")
    if unknown:
        notes.append(f"unknown settings ignored: {', '.join(unknown)}")
    return tuple(notes)


def serve_with(settings: Any, overrides: dict[str, Any], notes: tuple[str, ...]) -> int:
    """Serve with read ``settings`` (relaying through the daemon for stdio when it will have this
    client), ``overrides`` being what the command line changed; ``notes`` end the start-up line."""
    if not settings.http:
        from memwarden.daemon.attach import serve_through_daemon

        relayed = serve_through_daemon(settings, tools=settings.tools)
        if relayed is not None:
            return relayed
    from memwarden.app import build_server_service, configure_logging
    from memwarden.config import load_settings

    settings = load_settings(**overrides)
    configure_logging(settings, to_stderr=True)
    from memwarden.cli.serve_start import announce

    if settings.http:
        from memwarden.cli.serve_start import bind_listener, listening_address
        from memwarden.http.app import check_bind, serve_http

        host, port = check_bind(settings, settings.http)  # refuse before opening anything
        listener = bind_listener(host, port)  # held from here on: port 0 becomes a real port
        try:
            address = listening_address(host, listener)
            service = build_server_service(settings)
            try:
                announce(service, settings, address=address, notes=notes)
                serve_http(service, settings, address, listener=listener)
            finally:
                service.close()
        finally:
            listener.close()
        return 0
    from memwarden.mcp.server import run_stdio
    from memwarden.rate_limits import ActorRateLimits

    service = build_server_service(settings)
    try:
        announce(service, settings, address=None, notes=notes)
        run_stdio(service, tools=settings.tools, limits=ActorRateLimits.from_settings(settings))
    finally:
        service.close()
    return 0
