"""The network words every part shares: which hosts are loopback, a bind address, a socket line.

"Is this host loopback" decides whether the HTTP server may start without a token, whether the
prompt hook sends a prompt to a configured server, whether the dashboard launcher hands its key
to a server and whether ``/healthz`` shows paths: one answer for all of them, here.

The prompt hook imports this on every run, so it imports only the C socket type and ``time``;
``ipaddress`` is imported for hosts with a ``:`` alone (IPv6), which the hook's quick path
never has.
"""

from __future__ import annotations

import _socket  # the C socket type: socket.py builds enums and imports selectors
import time

__all__ = ["LoopbackError", "connected", "is_loopback", "parse_bind", "read_line"]


class LoopbackError(OSError):
    """The server is not on loopback, did not answer in time, or answered something unexpected."""


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine's loopback interface, and nothing else.

    True for ``localhost`` (any case), 127.0.0.0/8 in dotted decimal, ``::1`` in any spelling
    (with or without brackets or a zone), and 127.0.0.0/8 written as an IPv4-mapped IPv6 address
    (``::ffff:127.0.0.1``). False for every other host, a name that merely ends in localhost, the
    unspecified address (``0.0.0.0``, ``::``, which listen everywhere) and forms resolvers read
    differently (``127.1``, octal ``0177.0.0.1``): a wrong "no" refuses, a wrong "yes" leaks."""
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if host.lower() == "localhost":
        return True
    if ":" not in host:
        return _is_loopback_ipv4(host)
    import ipaddress  # IPv6 only: the hook's quick path reads dotted IPv4

    try:
        address = ipaddress.IPv6Address(host)
    except ValueError:
        return False
    mapped = address.ipv4_mapped  # 3.11's is_loopback says False for ::ffff:127.0.0.1
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def _is_loopback_ipv4(host: str) -> bool:
    """127.0.0.0/8 in plain dotted decimal (the form ``ipaddress`` accepts: no leading zeros)."""
    parts = host.split(".")
    if len(parts) != 4 or parts[0] != "127":
        return False
    for part in parts:
        if not (part.isascii() and part.isdigit()) or int(part) > 255:
            return False
        if len(part) > 1 and part[0] == "0":  # octal to inet_aton, refused by ipaddress
            return False
    return True


def parse_bind(address: str) -> tuple[str, int]:
    """``host:port`` (``[v6]:port`` for IPv6) → (host, port), with a clear error otherwise; port 0
    asks the kernel for a free one (``cli.serve_start.bind_listener``)."""
    host, sep, port = address.strip().rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not sep or not host or not port.isdigit() or not 0 <= int(port) < 65536:
        from memwarden.errors import ConfigError

        raise ConfigError(
            f"--http / MEMWARDEN_HTTP {address!r} is not HOST:PORT: give a host and a port, "
            "such as 127.0.0.1:8765 (or [::1]:8765; port 0 picks a free port)"
        )
    return host, int(port)


def connected(family: int, address: str | tuple[str, int], timeout: float) -> _socket.socket:
    """A stream socket of the C type connected to ``address`` within ``timeout``, closed again
    if connecting fails (the hook's HTTP client and the daemon client's socket both use this)."""
    sock = _socket.socket(family, _socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(address)
    except BaseException:
        sock.close()
        raise
    return sock


def read_line(sock: _socket.socket, pending: bytearray, deadline: float, limit: int) -> bytes:
    """The next ``\\n``-terminated line (without it) by ``deadline``; what follows stays in
    ``pending``. ``TimeoutError`` past the deadline, ``LoopbackError`` for a line longer than
    ``limit`` or a connection closed mid-line (the daemon's attach protocol reads with this)."""
    while True:
        end = pending.find(b"\n")
        if end >= 0:
            line = bytes(pending[:end])
            del pending[: end + 1]
            return line
        if len(pending) > limit:
            raise LoopbackError("answer too large")
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        chunk = sock.recv(65536)
        if not chunk:
            raise LoopbackError("the connection closed before a full answer")
        pending += chunk
