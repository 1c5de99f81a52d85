"""``python -m memwarden.daemon``: be the user's memwarden daemon (clients start it this way).

Exits 0 at once when another daemon already serves this user. ``--db -`` reads the database
from the first line of standard input (so a PostgreSQL password never shows in ``ps``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    import os

    # As every memwarden command (cli/entry.py): what the daemon creates (its log, backups, the
    # database) is private to the user; a stricter umask is kept.
    os.umask(os.umask(0o077) | 0o077)
    parser = argparse.ArgumentParser(prog="python -m memwarden.daemon", description=__doc__)
    parser.add_argument("--db", help="database (overrides MEMWARDEN_DB); - reads it from standard input")
    parser.add_argument(
        "--transport", choices=["unix", "tcp"], help="default: unix where available, else tcp"
    )
    parser.add_argument("--detach", action="store_true", help="start the daemon in its own session and exit")
    parser.add_argument(
        "--for-mcp",
        action="store_true",
        help="started for an MCP client: build the MCP servers before loading the model",
    )
    # For tests only: pose as another memwarden release (the version this daemon reports and
    # requires), to prove a newer client replaces it. Hidden from --help.
    parser.add_argument("--as-version", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    database = sys.stdin.readline().strip() if args.db == "-" else (args.db or "")
    if args.detach:
        from memwarden.daemon.launch import daemon_command, start_process

        command = daemon_command(detach=False, transport=args.transport, for_mcp=args.for_mcp)
        start_process(command + (["--as-version", args.as_version] if args.as_version else []), database)
        return 0
    from memwarden.app import configure_logging
    from memwarden.config import load_settings
    from memwarden.daemon.dashboard import DaemonDashboard
    from memwarden.daemon.launch import run_daemon
    from memwarden.daemon.place import DaemonPlace
    from memwarden.errors import MemwardenError
    from memwarden.settings_paths import default_runtime_dir

    try:
        settings = load_settings(**({"db": database} if database else {}))
    except MemwardenError as exc:
        print(f"memwarden daemon: {exc.message}", file=sys.stderr)
        return 1
    configure_logging(settings, to_stderr=False)
    try:
        return run_daemon(
            settings,
            DaemonPlace(default_runtime_dir()),
            transport=args.transport,
            version=args.as_version,
            dashboard=DaemonDashboard,  # `memwarden ui`: the dashboard served here, on request
            mcp_first=args.for_mcp,
        )
    except MemwardenError as exc:
        import logging

        logging.getLogger("memwarden.daemon").error("daemon did not start: %s", exc.message)
        return 1


if __name__ == "__main__":
    sys.exit(main())
