"""``memwarden ui``: open the dashboard of this database in the browser.

Reuses the loopback server that serves this database when one runs, else starts
``memwarden serve --http 127.0.0.1:<free port>`` in the background; then opens the browser on
a one-time login link (``--no-browser`` only prints it). See ``memwarden.ui.launcher``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

Handler = Callable[[argparse.Namespace], int]


def cmd_ui(args: argparse.Namespace) -> int:
    import sys
    import webbrowser

    from memwarden.config import load_settings
    from memwarden.errors import InvalidInput
    from memwarden.ui.launcher import launch

    if args.port is not None and not 0 < args.port < 65536:
        raise InvalidInput(
            f"--port {args.port} is not a port: give 1-65535, or leave it out for a free one", field="port"
        )
    settings = load_settings(**({"db": args.db} if getattr(args, "db", None) else {}))
    link, reused = launch(settings.database_url(), port=args.port)
    how = "reusing the running server" if reused else "started a server in the background"
    print(f"dashboard ({how}): {link}")
    print("the link works once, within 5 minutes", file=sys.stderr)
    if not args.no_browser and not webbrowser.open(link):
        print("no browser could be opened: open the link above yourself", file=sys.stderr)
    return 0


def register(command: Callable[[str, Handler, str], argparse.ArgumentParser]) -> None:
    p = command(
        "ui", cmd_ui, "open the web dashboard (starts or reuses a loopback server) on a one-time login link"
    )
    p.add_argument("--no-browser", action="store_true", help="only print the one-time link")
    p.add_argument(
        "--port", type=int, help="port for a new server (default: a free one); a running server is reused"
    )


__all__ = ["register"]
