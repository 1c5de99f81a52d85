"""Which local user holds the other end of a loopback TCP connection (Linux).

A loopback port belongs to whoever binds it first: while memwarden's own server is down,
another user of the machine can listen on its port, and a server without tokens answers every
local user alike. A Unix socket names its peer (``SO_PEERCRED``); TCP does not, but Linux tells
any user who owns each TCP socket of its network namespace, so:

- a client finds the user of the server it connected to (``foreign_server``, before it sends
  anything): the socket the server accepted it on, or its listening socket;
- a server finds the user of a client (``client_owner``): the socket whose local address is
  the client's address:port, connected to the server's.

The kernel is asked for that one socket through sock_diag (the netlink interface ``ss`` uses:
a single cheap kernel call); where that is not available, ``/proc/net/tcp`` and ``/proc/net/tcp6`` are read
(each line: local and remote address:port in hex, state, …, user id, …, inode), which lists every
socket of the machine and costs far more (the kernel walks its whole connection table for it),
too much for every prompt (docs/performance.md#prompt-hook).

Who is trusted (``trusted``): this process's own user, and root (user id 0), who can read this
user's files, database and tokens anyway, so talking to root gives away nothing root could not
take; a process running as root trusts only root. A socket no process holds any more (closing,
or waiting in TIME_WAIT, where its user id reads 0) is trusted by no one.

Where neither source exists (macOS, Windows) or neither lists this connection at all (a test
calling the application in-process), the owner is unknown (None) and callers behave as they did
before this check. When this end of the connection is listed but the other end is not held by any
process (a client that already hung up), the owner is ``NOT_LISTED``, which no one trusts.

Standard library only, no regex: the prompt hook imports this (no json, typing or re; see
hooks/quick.py).
"""

from __future__ import annotations

import _socket
import os
import sys

# Not typing's: the prompt hook asking the daemon never imports typing, whose import is a
# large share of that hook's CPU (docs/performance.md#cold-start). mypy reads it as True.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

NOT_LISTED = -1  # this end of the connection is listed, the other end is held by no process
ESTABLISHED, LISTEN = 1, 10
_V4_IN_V6 = b"\0" * 10 + b"\xff\xff"
# sock_diag (linux/inet_diag.h): NETLINK_SOCK_DIAG, SOCK_DIAG_BY_FAMILY, NLMSG_ERROR, NLMSG_DONE
_NETLINK_SOCK_DIAG, _BY_FAMILY, _ERROR, _DONE = 4, 20, 2, 3
_REQUEST, _DUMP = 0x1, 0x300
_ENOENT = 2


class _NoDiag(OSError):
    """sock_diag cannot answer here (not Linux, or a kernel without it)."""


def _addresses(own: tuple[str, int], other: tuple[str, int]) -> tuple[int, bytes, bytes] | None:
    """(family, own address, other address) packed for sock_diag: IPv4 when both ends are IPv4
    (an IPv4-mapped IPv6 address counts as IPv4), else IPv6; None for a name."""
    packed = []
    for host in (own[0], other[0]):
        host = host.partition("%")[0]  # an IPv6 scope (fe80::1%lo)
        try:
            packed.append(_V4_IN_V6 + _socket.inet_pton(_socket.AF_INET, host))
        except OSError:
            try:
                packed.append(_socket.inet_pton(_socket.AF_INET6, host))
            except OSError:
                return None
    if packed[0][:12] == _V4_IN_V6 and packed[1][:12] == _V4_IN_V6:
        return _socket.AF_INET, packed[0][12:], packed[1][12:]
    return _socket.AF_INET6, packed[0], packed[1]


def _diag(
    family: int, local: bytes, lport: int, remote: bytes, rport: int, *, dump: bool
) -> list[tuple[int, ...]]:
    """Sockets (state, uid, inode, remote port) from sock_diag: the one that receives what
    ``remote:rport`` sends to ``local:lport`` (an accepted socket, else the listener), or with
    ``dump`` every listener on ``lport``. _NoDiag when sock_diag cannot answer."""
    order = sys.byteorder
    request = (
        bytes((family, _socket.IPPROTO_TCP, 0, 0))
        + ((1 << LISTEN) if dump else 0xFFFFFFFF).to_bytes(4, order)
        + lport.to_bytes(2, "big")
        + rport.to_bytes(2, "big")
        + local.ljust(16, b"\0")
        + remote.ljust(16, b"\0")
        + bytes(4)  # any interface
        + b"\xff" * 8  # INET_DIAG_NOCOOKIE
    )
    flags = _REQUEST | (_DUMP if dump else 0)
    head = (16 + len(request)).to_bytes(4, order) + _BY_FAMILY.to_bytes(2, order) + flags.to_bytes(2, order)
    try:
        sock = _socket.socket(_socket.AF_NETLINK, _socket.SOCK_DGRAM, _NETLINK_SOCK_DIAG)
    except (AttributeError, OSError):
        raise _NoDiag from None
    found: list[tuple[int, ...]] = []
    try:
        sock.settimeout(1.0)
        sock.sendto(head + (1).to_bytes(4, order) + bytes(4) + request, (0, 0))
        while True:
            data, at = sock.recv(65536), 0
            while at + 16 <= len(data):
                size = int.from_bytes(data[at : at + 4], order)
                kind = int.from_bytes(data[at + 4 : at + 6], order)
                body = data[at + 16 : at + size]
                if kind == _DONE:
                    return found
                if kind == _ERROR:
                    error = -int.from_bytes(body[:4], order, signed=True)
                    if error in (0, _ENOENT):
                        return found
                    raise _NoDiag(error, "sock_diag refused the request")
                if kind == _BY_FAMILY and len(body) >= 72:
                    # inet_diag_msg: family, state, timer, retrans, sockid (ports, addresses, ...),
                    # expires, rqueue, wqueue, uid, inode
                    found.append(
                        (
                            body[1],
                            int.from_bytes(body[64:68], order),
                            int.from_bytes(body[68:72], order),
                            int.from_bytes(body[6:8], "big"),
                        )
                    )
                if size < 16:
                    return found  # a malformed header: stop rather than loop on it
                at += (size + 3) & ~3
            if not dump:
                return found
    except OSError as exc:
        raise _NoDiag(exc.errno, "sock_diag failed") from None
    finally:
        sock.close()


def _owner_by_diag(
    family: int, own: bytes, oport: int, other: bytes, pport: int, listening: bool
) -> int | None:
    for state, uid, inode, rport in _diag(family, other, pport, own, oport, dump=False):
        if rport == oport and (inode or state == ESTABLISHED):
            return uid  # held by a process (or accepted by the kernel, not yet by the server)
        if listening and state == LISTEN:
            return uid  # the server's listener, which the connection is queued on
    if listening:
        families = (family, _socket.AF_INET6) if family == _socket.AF_INET else (family,)
        for each in families:  # an IPv6 listener also takes IPv4 connections
            uids = [uid for state, uid, _, _ in _diag(each, b"", pport, b"", 0, dump=True) if state == LISTEN]
            if uids:
                return next((uid for uid in uids if not trusted(uid)), uids[0])
    mine = _diag(family, own, oport, other, pport, dump=False)
    return NOT_LISTED if any(rport == pport and rport for _, _, _, rport in mine) else None


def _proc_form(packed: bytes, port: int) -> bytes:
    # /proc/net/tcp prints each 32-bit word of an address as a host-order integer in %08X.
    words = [packed[i : i + 4] for i in range(0, len(packed), 4)]
    return b"".join(b"%08X" % int.from_bytes(w, sys.byteorder) for w in words) + b":%04X" % port


def _proc_lines(table: bytes, local: bytes, remote: bytes) -> list[list[bytes]]:
    """Fields after ``sl:`` of each line from ``local`` to ``remote``: local, remote, state,
    queues, timer, retransmits, uid, timeout, inode, …"""
    found, needle = [], b": " + local + b" " + remote + b" "
    start = table.find(needle)
    while start >= 0:
        end = table.find(b"\n", start)
        fields = table[start + 2 : end if end >= 0 else len(table)].split()
        if len(fields) > 8:
            found.append(fields)
        start = table.find(needle, start + 1)
    return found


def _owner_by_proc(
    family: int, own: bytes, oport: int, other: bytes, pport: int, listening: bool
) -> int | None:
    tables = []
    for path, fam in (("/proc/net/tcp", _socket.AF_INET), ("/proc/net/tcp6", _socket.AF_INET6)):
        if family == _socket.AF_INET6 and fam == _socket.AF_INET:
            continue
        try:
            with open(path, "rb", buffering=0) as file:
                table = file.readall()
        except OSError:
            continue
        if fam != family:  # IPv4 addresses as an IPv6 socket holds them
            mine, theirs = _V4_IN_V6 + own, _V4_IN_V6 + other
        else:
            mine, theirs = own, other
        tables.append((table, _proc_form(mine, oport), _proc_form(theirs, pport), fam))
    if not tables:
        return None
    for table, mine_f, theirs_f, _ in tables:
        for fields in _proc_lines(table, theirs_f, mine_f):
            if fields[8] != b"0" or fields[2] == b"01":
                return int(fields[6])
    if listening:
        for table, _, theirs_f, fam in tables:
            zero = b"0" * (8 if fam == _socket.AF_INET else 32)
            uids = [
                int(f[6])
                for local in (theirs_f, zero + theirs_f[-5:])
                for f in _proc_lines(table, local, zero + b":0000")
                if f[2] == b"0A"
            ]
            if uids:
                return next((uid for uid in uids if not trusted(uid)), uids[0])
    listed = any(_proc_lines(table, mine_f, theirs_f) for table, mine_f, theirs_f, _ in tables)
    return NOT_LISTED if listed else None


def connection_owner(own: tuple[str, int], other: tuple[str, int], *, listening: bool = False) -> int | None:
    """The user id holding the socket at ``other`` connected to ``own`` (this process's end).

    ``listening``: ``other`` is a server, so its listening socket names the owner too (the
    socket that accepted the connection may not be handed to the server yet). None when neither
    source lists ``own`` (nothing to check against); NOT_LISTED when ``own`` is listed but no
    process holds ``other``.
    """
    packed = _addresses(own, other)
    if packed is None:
        return None
    family, mine, theirs = packed
    oport, pport = int(own[1]), int(other[1])
    try:
        return _owner_by_diag(family, mine, oport, theirs, pport, listening)
    except _NoDiag:
        if sys.platform != "linux":
            return None
        return _owner_by_proc(family, mine, oport, theirs, pport, listening)


def trusted(uid: int | None) -> bool:
    """Whether a peer of user ``uid`` may be talked to: unknown (None), this user, or root."""
    return uid is None or uid == os.getuid() or uid == 0


def foreign_server(sock: Any, what: str) -> str | None:
    """Why the server at the other end of the connected ``sock`` must not be sent ``what``
    (it belongs to another user), or None when it may."""
    try:
        own, other = sock.getsockname(), sock.getpeername()
    except (OSError, AttributeError):
        return None
    uid = connection_owner((own[0], own[1]), (other[0], other[1]), listening=True)
    if trusted(uid):
        return None
    who = "no process this user can identify" if uid == NOT_LISTED else f"another user (user id {uid})"
    return (
        f"port {other[1]} on {other[0]} belongs to {who}, not to this user (user id {os.getuid()}); "
        f"not sending it {what}"
    )


def client_owner(scope: Any) -> int | None:
    """``connection_owner`` of the client of an ASGI request (from ``scope["client"]`` and
    ``scope["server"]``); None when the scope holds no socket addresses."""
    client, server = scope.get("client"), scope.get("server")
    if not client or not server or server[1] is None or client[1] is None:
        return None
    try:
        return connection_owner((str(server[0]), int(server[1])), (str(client[0]), int(client[1])))
    except (TypeError, ValueError):
        return None


def describe(uid: int | None) -> str:
    """``uid`` for a message."""
    return "a connection no process holds" if uid == NOT_LISTED else f"user id {uid}"
