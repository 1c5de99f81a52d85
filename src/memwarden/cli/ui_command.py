"""``memwarden ui``: open the dashboard of this database in the browser.

Reuses the loopback server that serves this database when one runs, else asks the user's
daemon to serve it (``MEMWARDEN_DAEMON`` auto or only: one process, one model copy per user),
else (daemon off, or refused) starts ``memwarden serve --http 127.0.0.1:<free port>`` in the
background; then opens the browser on
a one-time login. The link itself never goes on the browser's command line, which every local
user can read in ``/proc``: the browser gets the path of a private (0600) file that sends it on,
removed once the link was used (``--no-browser`` only prints the link). See
``memwarden.ui.launcher``.
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
    from memwarden.ui.launcher import launch, launch_in_daemon, open_in_browser

    if args.port is not None and not 0 < args.port < 65536:
        raise InvalidInput(
            f"--port {args.port} is not a port: give 1-65535, or leave it out for a free one", field="port"
        )
    settings = load_settings(**({"db": args.db} if getattr(args, "db", None) else {}))
    # With the daemon on (the default), the daemon serves the dashboard: one process and one
    # model copy per user. Off, or when the daemon cannot serve this client: a server of its own.
    login = launch_in_daemon(settings, port=args.port) if settings.daemon != "off" else None
    in_daemon = login is not None
    if login is None:
        login = launch(settings.database_url(), port=args.port)
    if login.reused:
        how = "reusing the running server"
    elif in_daemon:
        how = f"served by the memwarden daemon, pid {login.server.pid}"
    else:
        how = "started a server in the background"
    if args.no_browser:
        print(f"dashboard ({how}): {login.link}")
        print("the link works once, within 5 minutes", file=sys.stderr)
        return 0
    print(f"dashboard ({how}): {login.server.url}/ui/")
    print("opening it in the browser, logged in once through a private file ...", file=sys.stderr, flush=True)

    def slow() -> None:
        print(
            "the browser has not used the login yet; if it cannot open the file, open this link "
            f"instead (it works once, within 5 minutes): {login.link}",
            file=sys.stderr,
            flush=True,
        )

    if not open_in_browser(login, webbrowser.open, slow=slow):
        print(
            f"no browser could be opened: open this link yourself (it works once, within 5 minutes): {login.link}",
            file=sys.stderr,
        )
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
