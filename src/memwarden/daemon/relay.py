"""``memwarden serve`` attached to the daemon: copy stdin to the socket and the socket to stdout.

The MCP client talks to this process exactly as to a stdio server; the bytes go unchanged to
the daemon, which runs the MCP session (``mcp/stream.py``). This process imports neither the
MCP SDK nor the model: it stays a few megabytes however many clients run.
"""

from __future__ import annotations

import os
import socket
import sys
import threading

from memwarden.daemon.client import DaemonClient

CHUNK = 65536


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def relay_stdio(client: DaemonClient, stdin_fd: int = 0, stdout_fd: int = 1) -> int:
    """Relay until the MCP client closes stdin (0) or the daemon closes the connection (1)."""
    sock = client.sock
    sock.settimeout(None)
    if client.pending:
        _write_all(stdout_fd, bytes(client.pending))
        client.pending.clear()
    client_done = threading.Event()

    def upstream() -> None:
        try:
            while chunk := os.read(stdin_fd, CHUNK):
                sock.sendall(chunk)
        except OSError:
            pass  # the daemon went away; the downstream loop sees it too
        client_done.set()
        try:
            sock.shutdown(socket.SHUT_WR)  # the daemon ends the session, then closes
        except OSError:
            pass

    threading.Thread(target=upstream, name="memwarden-relay", daemon=True).start()
    try:
        while chunk := sock.recv(CHUNK):
            _write_all(stdout_fd, chunk)
    except OSError:
        pass
    finally:
        client.close()
    if client_done.is_set():
        return 0
    print("memwarden: the daemon closed the connection", file=sys.stderr)
    return 1
