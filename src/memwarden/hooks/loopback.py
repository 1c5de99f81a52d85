"""POST JSON to a memwarden server on loopback, with a hard deadline, using only the socket.

``http.client`` pulls in the ``email`` package, whose import costs more than the prompt hook's
whole budget with a warm server (docs/hooks.md, bench/hooks.py). The hook needs one request
shape, so this module speaks just that: one HTTP/1.1 POST, ``Connection: close``, a
``Content-Length`` body back. Anything else is an error, and the hook searches the database
itself instead.

A loopback port is anyone's to take while memwarden's server is down, so before it sends the
token or the prompt, ``post`` checks that the server's socket belongs to this user (or root;
``memwarden.peer``, Linux only) and otherwise raises ``ForeignServer`` without sending a byte.
"""

from __future__ import annotations

import _socket  # the type the readers take; post_json imports socket itself
import time

from memwarden.net import LoopbackError, connected, is_loopback

# Not typing's: the prompt hook asking the daemon never imports typing, whose import is a
# large share of that hook's CPU (docs/performance.md#cold-start). mypy reads it as True.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

MAX_RESPONSE_BYTES = 4 * 1024 * 1024


class ForeignServer(LoopbackError):
    """The port is held by another user's process: nothing was sent to it."""


class HttpStatusError(LoopbackError):
    """The server answered with an HTTP status other than 200 (``status``); ``reason`` is the
    server's word for a refused token (``token_missing``, ``token_mismatch``…; http/auth.py)."""

    def __init__(self, status: str, reason: str = "") -> None:
        said = TOKEN_ADVICE.get(reason, "")
        super().__init__(f"server answered HTTP {status}" + (f": {said}" if said else ""))
        self.status = status
        self.reason = reason


# What the hook's log says about a refused token, so that a wrong MEMWARDEN_HTTP_TOKEN is not
# mistaken for a server that is down.
TOKEN_ADVICE = {
    "token_missing": "no token sent; set MEMWARDEN_HTTP_TOKEN for the hook to the server's token",
    "not_a_bearer_token": "the token was not sent as a bearer token",
    "token_mismatch": (
        "token mismatch: the hook's MEMWARDEN_HTTP_TOKEN is not a token of the server; set it to the server's"
    ),
}


def loopback_address(url: str) -> tuple[str, int, str]:
    """(host, port, path prefix) of an ``http://`` URL on a loopback address."""
    from urllib.parse import urlsplit  # only with MEMWARDEN_HOOK_SERVER (it imports ipaddress)

    parts = urlsplit(url.strip())
    host = parts.hostname or ""
    if parts.scheme != "http" or not host:
        raise LoopbackError(f"MEMWARDEN_HOOK_SERVER={url!r}: expected http://127.0.0.1:PORT")
    if not is_loopback(host):
        # Prompts never leave the machine: a server elsewhere is not asked.
        raise LoopbackError(
            f"MEMWARDEN_HOOK_SERVER={url!r} is not a loopback address; not sending prompts there"
        )
    try:
        port = parts.port or 80
    except ValueError:
        raise LoopbackError(f"MEMWARDEN_HOOK_SERVER={url!r}: bad port") from None
    return host, port, parts.path.rstrip("/")


def plain_loopback_address(url: str) -> tuple[str, int, str] | None:
    """``loopback_address`` of ``http://127.x.y.z[:PORT][/PATH]`` read without ``urllib`` (the prompt
    hook's quick path, hooks.quick), or None for every other form, which ``loopback_address``
    then reads: a host name, IPv6, user info, a query, an escape or anything else unusual."""
    text = url.strip()
    if not text.startswith("http://"):
        return None
    rest = text[len("http://") :]
    if any(c in rest for c in "@[]?#%\\ \t\r\n"):
        return None
    netloc, _, path = rest.partition("/")
    host, colon, port = netloc.partition(":")
    parts = host.split(".")
    if (
        len(parts) != 4
        or parts[0] != "127"
        or not all(p.isdigit() and len(p) <= 3 and int(p) <= 255 for p in parts)
    ):
        return None
    if colon and not (port.isdigit() and len(port) <= 5 and 0 < int(port) < 65536):
        return None
    return host, int(port) if colon else 80, ("/" + path).rstrip("/")


def post_json(url: str, path: str, body: dict[str, Any], *, token: str | None, timeout: float) -> Any:
    """POST ``body`` to ``url`` + ``path`` and return the decoded JSON of a 200 answer."""
    from memwarden.daemon.frames import dumps

    host, port, prefix = loopback_address(url)
    return post(host, port, prefix + path, dumps(body).encode("utf-8"), token=token, timeout=timeout)


def post(host: str, port: int, target: str, payload: bytes, *, token: str | None, timeout: float) -> Any:
    """POST the JSON ``payload`` to ``target`` on a loopback ``host`` (checked by the caller) and
    return the decoded JSON of a 200 answer; LoopbackError (HttpStatusError for another status)
    otherwise, all within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    head = (
        f"POST {target} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json\r\nContent-Length: {len(payload)}\r\nConnection: close\r\n"
    )
    if token:
        head += f"Authorization: Bearer {token}\r\n"
    try:
        sock = _connect(host, port, timeout)
        try:
            refuse_foreign(sock, "the prompt or the token")
            sock.sendall(head.encode("latin-1") + b"\r\n" + payload)
            raw = _read_all(sock, deadline)
        finally:
            sock.close()
    except TimeoutError:
        raise LoopbackError(f"no answer from {host}:{port} within {timeout * 1000:.0f} ms") from None
    except LoopbackError:
        raise
    except OSError as exc:
        raise LoopbackError(f"cannot reach {host}:{port} ({exc.strerror or type(exc).__name__})") from None
    return _decode(raw)


def refuse_foreign(sock: _socket.socket, what: str) -> None:
    """ForeignServer when another user holds the other end of ``sock`` (memwarden.peer)."""
    from memwarden.peer import foreign_server

    reason = foreign_server(sock, what)
    if reason is not None:
        raise ForeignServer(reason)


def _connect(host: str, port: int, timeout: float) -> _socket.socket:
    """A TCP connection to ``host``: an IPv4 address with the C socket type, anything else
    (``localhost``, IPv6) through ``socket.create_connection`` (socket.py is a measurable share
    of the hook: docs/performance.md#cold-start)."""
    if host.replace(".", "").isdigit():
        return connected(_socket.AF_INET, (host, port), timeout)
    import socket

    return socket.create_connection((host, port), timeout=timeout)


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


def _refusal_reason(body: bytes) -> str:
    """The ``reason`` of a 401 answer's JSON body, or "" when it has none. The refusal is sent
    chunked (http/auth.py sends no length), so the object is read between its braces."""
    from memwarden.daemon.frames import loads

    try:
        answer = loads(body[body.find(b"{") : body.rfind(b"}") + 1])
    except ValueError:
        return ""
    reason = answer.get("reason") if isinstance(answer, dict) else None
    return reason if isinstance(reason, str) and reason in TOKEN_ADVICE else ""


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
        raise HttpStatusError(status[1], _refusal_reason(body) if status[1] == "401" else "")
    length = headers.get("content-length")
    if length is None or not length.isdigit() or int(length) != len(body):
        raise LoopbackError("answer without a matching Content-Length")
    from memwarden.daemon.frames import loads

    try:
        return loads(body)
    except ValueError:
        raise LoopbackError("answer is not JSON") from None
