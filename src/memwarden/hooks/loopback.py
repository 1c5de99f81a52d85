"""POST JSON to a memwarden server on loopback, with a hard deadline, using only ``socket``.

``http.client`` pulls in the ``email`` package, whose import costs more than the prompt hook's
whole budget with a warm server (docs/hooks.md, bench/hooks.py). The hook needs one request
shape, so this module speaks just that: one HTTP/1.1 POST, ``Connection: close``, a
``Content-Length`` body back. Anything else is an error, and the hook searches the database
itself instead.
"""

from __future__ import annotations

import _socket  # the type the readers take; post_json imports socket itself
import time

TYPE_CHECKING = False  # not typing's: importing typing costs the prompt hook ~15 ms (mypy reads it as True)
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

MAX_RESPONSE_BYTES = 4 * 1024 * 1024


class LoopbackError(OSError):
    """The server is not on loopback, did not answer in time, or answered something unexpected."""


def _is_loopback(host: str) -> bool:
    """localhost, 127.0.0.0/8 or ::1 (without ``ipaddress``, a few ms of imports we can skip)."""
    if host in ("localhost", "::1", "0:0:0:0:0:0:0:1"):
        return True
    parts = host.split(".")
    return len(parts) == 4 and parts[0] == "127" and all(p.isdigit() and int(p) <= 255 for p in parts)


def loopback_address(url: str) -> tuple[str, int, str]:
    """(host, port, path prefix) of an ``http://`` URL on a loopback address."""
    from urllib.parse import urlsplit  # only with MEMWARDEN_HOOK_SERVER (it imports ipaddress)

    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    if parts.scheme != "http" or not host:
        raise LoopbackError(f"MEMWARDEN_HOOK_SERVER={url!r}: expected http://127.0.0.1:PORT")
    if not _is_loopback(host):
        # Prompts never leave the machine: a server elsewhere is not asked.
        raise LoopbackError(
            f"MEMWARDEN_HOOK_SERVER={url!r} is not a loopback address; not sending prompts there"
        )
    try:
        port = parts.port or 80
    except ValueError:
        raise LoopbackError(f"MEMWARDEN_HOOK_SERVER={url!r}: bad port") from None
    return host, port, parts.path.rstrip("/")


def post_json(url: str, path: str, body: dict[str, Any], *, token: str | None, timeout: float) -> Any:
    """POST ``body`` to ``url`` + ``path`` and return the decoded JSON of a 200 answer."""
    host, port, prefix = loopback_address(url)
    import socket  # only with MEMWARDEN_HOOK_SERVER: socket.py costs about 4 ms to import

    deadline = time.monotonic() + timeout
    import json  # only with MEMWARDEN_HOOK_SERVER: json imports re

    payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
    head = (
        f"POST {prefix}{path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json\r\nContent-Length: {len(payload)}\r\nConnection: close\r\n"
    )
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(head.encode("latin-1") + b"\r\n" + payload)
            raw = _read_all(sock, deadline)
    except TimeoutError:
        raise LoopbackError(f"no answer from {host}:{port} within {timeout * 1000:.0f} ms") from None
    except LoopbackError:
        raise
    except OSError as exc:
        raise LoopbackError(f"cannot reach {host}:{port} ({exc.strerror or type(exc).__name__})") from None
    return _decode(raw)


def _read_all(sock: _socket.socket, deadline: float) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        chunk = sock.recv(65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            raise LoopbackError("answer too large")


def read_line(sock: _socket.socket, pending: bytearray, deadline: float, limit: int) -> bytes:
    """The next ``\n``-terminated line (without it) by ``deadline``; what follows stays in ``pending``.

    The daemon's attach protocol (memwarden.daemon) reads its answers with this, under the same
    hard deadline as the HTTP answer above.
    """
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


def _decode(raw: bytes) -> Any:
    head, sep, body = raw.partition(b"\r\n\r\n")
    if not sep:
        raise LoopbackError("incomplete HTTP answer")
    lines = head.decode("latin-1").split("\r\n")
    status = lines[0].split(" ", 2)
    if len(status) < 2 or not status[0].startswith("HTTP/1."):
        raise LoopbackError("not an HTTP answer")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if status[1] != "200":
        raise LoopbackError(f"server answered HTTP {status[1]}")
    length = headers.get("content-length")
    if length is None or not length.isdigit() or int(length) != len(body):
        raise LoopbackError("answer without a matching Content-Length")
    try:
        import json

        return json.loads(body)
    except ValueError:
        raise LoopbackError("answer is not JSON") from None
