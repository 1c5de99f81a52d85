"""``python -m memwarden.daemon.own_process``: one MCP client's server in a process of its own, for
a relay that answered the handshake but then could not have a daemon.

``memwarden serve`` with ``MEMWARDEN_DAEMON=auto`` answers a client's handshake before the daemon
it starts is up (``daemon/handshake.py``). When no daemon can be had after all (the one that came
up refuses this client, or none answers within a minute), the client must still get a server, as
it did when ``serve`` waited: the relay starts this module on a socket pair and relays to it as to
a daemon, replaying the handshake (``relay.py``). It serves exactly as ``memwarden serve`` in its
own process: the full settings, the start-up backup and checks, rate limits.

The database comes as the first line of standard input (as the daemon's ``--db -``): a
PostgreSQL password never shows in ``ps``. It is read a byte at a time, so nothing past it is
taken from the MCP stream.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence


def _first_line(fd: int = 0) -> str:
    raw = bytearray()
    while (byte := os.read(fd, 1)) and byte != b"\n":
        raw += byte
    return raw.decode("utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    os.umask(os.umask(0o077) | 0o077)  # as every memwarden command: its files private to the user
    parser = argparse.ArgumentParser(prog="python -m memwarden.daemon.own_process", description=__doc__)
    parser.add_argument("--tools", choices=["core", "all"], default="core")
    args = parser.parse_args(argv)
    database = _first_line()
    from memwarden.app import build_server_service, configure_logging
    from memwarden.config import load_settings
    from memwarden.errors import MemwardenError
    from memwarden.mcp.server import run_stdio
    from memwarden.rate_limits import ActorRateLimits

    try:
        settings = load_settings(tools=args.tools, **({"db": database} if database else {}))
    except MemwardenError as exc:
        print(f"memwarden: {exc.message}", file=sys.stderr)
        return 1
    configure_logging(settings, to_stderr=True)
    service = build_server_service(settings)
    try:
        run_stdio(service, tools=settings.tools, limits=ActorRateLimits.from_settings(settings))
    finally:
        service.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
