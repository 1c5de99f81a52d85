"""The attach protocol: newline-delimited JSON frames over the daemon's socket.

A connection starts with one hello from the client::

    {"memwarden": 1, "version": "0.4.0", "mode": "call" | "mcp", "tenant": "...", "actor": "...",
     "tools": "core" | "all", "settings": {"db": "<hash>", ...}, "token": "..." (TCP only)}

and one answer from the daemon: ``{"ok": true, "pid": 123, "version": "..."}``, or
``{"ok": false, "error": {"code": "...", "message": "..."}}`` after which the daemon closes the
connection (and keeps serving everyone else). Then, in ``call`` mode, each request
``{"id": 1, "op": "search", "args": {...}}`` gets ``{"id": 1, "ok": true, "result": ...}`` or
``{"id": 1, "ok": false, "error": {...}}``; in ``mcp`` mode the connection carries MCP's stdio
framing (one JSON-RPC message per line) both ways.

Identity: the tenant and actor are per connection; the daemon serves each client as the
caller it names. That grants nothing new: only the daemon's own user can connect, and that
user can open the database with any ``MEMWARDEN_TENANT`` anyway. Everything that shapes what
the shared process does with data (the database, the embedder, redaction, languages, audit,
vault, and for ``serve`` the export/backup folders) must equal the daemon's: the client sends
a hash of each value and a client whose values differ is refused, the error naming those
settings (never their values), so it can work in its own process instead.

Standard library only, and not even ``json`` or ``typing`` (see ``frames``): the prompt hook
imports this module.
"""

from __future__ import annotations

import os
import sys

from memwarden.daemon.frames import dumps, loads
from memwarden.digests import sha256
from memwarden.settings_paths import is_postgres_url, sqlite_file_name
from memwarden.version import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterable
    from typing import Any

PROTOCOL = 1
MAX_HELLO_BYTES = 64 * 1024
MAX_CALL_BYTES = 128 * 1024 * 1024
HELLO_TIMEOUT_S = 10.0
MODES = ("call", "mcp")

# Must match between a client and the daemon; every client sends these.
SHARED_SETTINGS = (
    "db",
    "embedder",
    "embed_model",
    "embed_url",
    "embed_dimension",
    "embed_api_key",
    "embed_timeout_s",
    "vector_timeout_ms",
    "vector_exact_max",
    "embed_backfill_interval_s",
    "languages",
    "redaction",
    "redaction_rules",
    "audit",
    "audit_query_plain",
    "max_content_bytes",
    "sqlite_synchronous",
    "pg_pool_size",
    "recency_half_life_days",
    "vault_dirs",
)
# Must match too, but only ``serve`` knows them (they need the full settings): the MCP tools
# export to, import from and back up into these, and are rate limited by these.
SERVER_SETTINGS = (
    "export_dir",
    "import_max_bytes",
    "purge_grace_days",
    "backup_dir",
    "backup_keep",
    "rate_writes_per_minute",
    "rate_searches_per_minute",
)


class ProtocolError(Exception):
    """A frame or hello the daemon cannot accept; ``code`` and ``message`` go back to the client."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def frame(self, request_id: object = None) -> dict[str, Any]:
        body: dict[str, Any] = {"ok": False, "error": {"code": self.code, "message": self.message}}
        if request_id is not None:
            body["id"] = request_id
        return body


def encode(frame: object) -> bytes:
    return dumps(frame).encode("utf-8") + b"\n"


def decode(line: bytes) -> Any:
    try:
        return loads(line)
    except RecursionError:
        raise ProtocolError(
            "bad_frame",
            "the line is nested too deeply to read (JSON thousands of levels deep); "
            "send one JSON object per line",
        ) from None
    except ValueError as exc:  # UnicodeDecodeError is one
        if isinstance(exc, UnicodeDecodeError) or hasattr(exc, "pos"):  # json's JSONDecodeError
            reason = str(exc)
        else:  # the only other failure of json.loads: a number past int()'s digit limit
            reason = f"a number in it has more than {sys.get_int_max_str_digits()} digits"
        raise ProtocolError(
            "bad_frame", f"not a JSON line ({reason}); send one JSON object per line"
        ) from None


def _value(settings: Any, name: str) -> object:
    # Strings and os.path.realpath (what Path.resolve does): the prompt hook asking the daemon
    # imports no pathlib.
    if name == "db":
        url = settings.database_url()
        return url if is_postgres_url(url) else os.path.realpath(sqlite_file_name(url))
    if name == "export_dir":
        return os.path.realpath(settings.export_dir_name())
    if name == "backup_dir":
        return os.path.realpath(settings.backup_dir_name())
    value = getattr(settings, name)
    secret = getattr(value, "get_secret_value", None)
    value = secret() if callable(secret) else value
    return value if value is None or isinstance(value, (str, int, float)) else str(value)


def fingerprint(settings: Any, names: Iterable[str] = SHARED_SETTINGS) -> dict[str, str]:
    """A short hash of each named setting's effective value (so no value crosses the socket)."""
    return {name: sha256(dumps(_value(settings, name)).encode("utf-8")).hexdigest()[:16] for name in names}


def hello_frame(
    settings: Any, *, mode: str, tools: str = "core", token: str | None = None, server_settings: bool = False
) -> dict[str, Any]:
    """The client's hello for these settings (``server_settings``: also the ``serve``-only ones)."""
    names = SHARED_SETTINGS + (SERVER_SETTINGS if server_settings else ())
    frame: dict[str, Any] = {
        "memwarden": PROTOCOL,
        "version": __version__,
        "mode": mode,
        "tenant": settings.tenant,
        "actor": settings.actor,
        "tools": tools,
        "settings": fingerprint(settings, names),
    }
    if token is not None:
        frame["token"] = token
    return frame


class Hello:
    """A hello the daemon accepted: the connection's mode, caller and tool set."""

    __slots__ = ("actor", "mode", "tenant", "tools")

    def __init__(self, *, mode: str, tenant: str, actor: str, tools: str) -> None:
        self.mode = mode
        self.tenant = tenant
        self.actor = actor
        self.tools = tools


def check_hello(frame: object, *, daemon_settings: dict[str, str], token: str | None) -> Hello:
    """The client's hello, checked against the daemon's settings and token; ProtocolError if not."""
    if not isinstance(frame, dict):
        raise ProtocolError(
            "bad_hello", 'the first line must be a JSON object: {"memwarden": 1, "mode": ...}'
        )
    if frame.get("memwarden") != PROTOCOL:
        raise ProtocolError(
            "protocol", f"this daemon speaks memwarden protocol {PROTOCOL}, not {frame.get('memwarden')!r}"
        )
    if token is not None and (not isinstance(frame.get("token"), str) or not _same(frame["token"], token)):
        raise ProtocolError(
            "bad_token", "wrong or missing token: read it from daemon.json in the daemon's folder"
        )
    if frame.get("version") != __version__:
        raise ProtocolError(
            "version_differs",
            f"this daemon runs memwarden {__version__}, the client "
            f"{frame.get('version')!r}; stop the daemon (memwarden daemon stop) to start a new one",
        )
    mode = frame.get("mode")
    if mode not in MODES:
        raise ProtocolError("bad_hello", f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    tenant, actor, tools = frame.get("tenant"), frame.get("actor"), frame.get("tools", "core")
    if not isinstance(tenant, str) or not 1 <= len(tenant) <= 100:
        raise ProtocolError("bad_hello", "tenant must be a string of 1-100 characters")
    if not isinstance(actor, str) or not 1 <= len(actor) <= 200:
        raise ProtocolError("bad_hello", "actor must be a string of 1-200 characters")
    if tools not in ("core", "all"):
        raise ProtocolError("bad_hello", f"tools must be core or all, not {tools!r}")
    sent = frame.get("settings")
    if not isinstance(sent, dict):
        raise ProtocolError("bad_hello", "settings must be an object of setting name -> hash")
    unknown = sorted(str(name) for name in sent if name not in daemon_settings)
    missing = [name for name in SHARED_SETTINGS if name not in sent]
    if unknown or missing:
        raise ProtocolError(
            "bad_hello",
            "settings: "
            + "; ".join(
                part
                for part in (
                    unknown and f"unknown {', '.join(unknown)}",
                    missing and f"missing {', '.join(missing)}",
                )
                if part
            ),
        )
    differ = [name for name, digest in sent.items() if digest != daemon_settings[name]]
    if differ:
        names = ", ".join(f"MEMWARDEN_{name.upper()}" for name in differ)
        raise ProtocolError(
            "settings_differ",
            f"this client's {names} differ from the daemon's; it cannot share the daemon's process",
        )
    return Hello(mode=mode, tenant=tenant, actor=actor, tools=tools)


def _same(given: str, expected: str) -> bool:
    import hmac

    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))
