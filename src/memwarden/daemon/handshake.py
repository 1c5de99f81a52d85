"""The daemon's answer to an MCP handshake, kept so the relay can give it before the daemon is up.

An MCP client's first request, ``initialize`` (the stateful handshake) or ``server/discover`` (the
2026 revision's probe), is answered with the server's name and version, its capabilities and its
instructions. memwarden's answer depends on nothing but:

- the memwarden release (server version, instructions) and the MCP SDK's releases (how it
  negotiates the protocol version, which capability fields each revision carries): the
  distributions ``mcp`` and ``mcp-types``, read from their ``*.dist-info`` folder names;
- the tools profile (``MEMWARDEN_TOOLS``: the only setting ``mcp.server.create_server`` reads
  into the answer, through the handlers it registers);
- the request's method and the protocol revision the client proposes.

Those make the key of a kept answer, so an answer is never given to a client of another version
or profile. The relay looks in two places, in this order:

1. ``handshake-answers.json`` in the user's data folder (beside the database): what the daemon
   answered last time, written by the relay when it sees the daemon's answer (atomically: a
   temporary file moved into place);
2. ``handshake_answers.json`` shipped in this package: the same answers derived when the package
   was built (``python -m memwarden.daemon.handshake_derive --write``; a test fails when it no
   longer matches what the server answers), so a brand-new user is answered at once too.

A missing, unreadable or malformed file, or no entry for the key, means no kept answer: the
handshake waits for the daemon as before. Standard library only (the relay imports this).
"""

from __future__ import annotations

import json
import os
import sys

from memwarden.version import __version__

# Not typing's: a relay imports this module and stays resident for its client's whole session
# (docs/daemon.md, "The relay"); mypy reads it as True.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

FORMAT = 1
SAVED_FILE = "handshake-answers.json"
SHIPPED_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "handshake_answers.json")
HANDSHAKE_METHODS = ("initialize", "server/discover")
# Where the 2026 revision's requests carry the protocol version they speak.
PROTOCOL_META_KEY = "io.modelcontextprotocol/protocolVersion"
SDK_DISTRIBUTIONS = ("mcp", "mcp_types")


def sdk_versions() -> dict[str, str]:
    """The installed releases of the MCP SDK's distributions, from their ``*.dist-info`` folder
    names on ``sys.path`` (the first found wins, as imports do). ``importlib.metadata`` would do
    the same at several times the relay's import cost."""
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if not name.endswith(".dist-info"):
                continue
            distribution, _, version = name[: -len(".dist-info")].partition("-")
            distribution = distribution.lower().replace("-", "_").replace(".", "_")
            if distribution in SDK_DISTRIBUTIONS and distribution not in found:
                found[distribution] = version
        if len(found) == len(SDK_DISTRIBUTIONS):
            break
    return found


def release_key(sdk: dict[str, str]) -> str | None:
    """The releases part of a key, or None when the SDK's releases cannot be read (then nothing
    kept can be known to fit, and nothing is served from a kept answer)."""
    if any(name not in sdk for name in SDK_DISTRIBUTIONS):
        return None
    sdk_part = " ".join(f"{name}={sdk[name]}" for name in SDK_DISTRIBUTIONS)
    return f"memwarden={__version__} {sdk_part}"


def proposed_version(message: dict[str, Any]) -> str | None:
    """The protocol revision a handshake request proposes, or None when it names none."""
    params = message.get("params")
    if not isinstance(params, dict):
        return None
    if message.get("method") == "initialize":
        version = params.get("protocolVersion")
    else:
        meta = params.get("_meta")
        version = meta.get(PROTOCOL_META_KEY) if isinstance(meta, dict) else None
    return version if isinstance(version, str) and 0 < len(version) <= 64 else None


def answer_key(releases: str, tools: str, message: dict[str, Any]) -> str | None:
    """The key of the kept answer to ``message``; None when it is no handshake request."""
    method = message.get("method")
    if method not in HANDSHAKE_METHODS or "id" not in message:
        return None
    version = proposed_version(message)
    if version is None:
        return None
    return f"{releases} tools={tools} {method} {version}"


def _fits(result: object) -> bool:
    """Whether a kept result has the shape of a handshake answer (anything else is corrupt)."""
    return isinstance(result, dict) and isinstance(result.get("capabilities"), dict)


def read_answers(path: str) -> dict[str, dict[str, Any]]:
    """The answers kept in ``path``; empty when it is missing, unreadable or malformed."""
    try:
        with open(path, "rb") as file:
            kept = json.loads(file.read())
    except (OSError, ValueError):
        return {}
    if not isinstance(kept, dict) or kept.get("format") != FORMAT:
        return {}
    answers = kept.get("answers")
    if not isinstance(answers, dict):
        return {}
    return {key: result for key, result in answers.items() if isinstance(key, str) and _fits(result)}


def write_answers(path: str, answers: dict[str, dict[str, Any]]) -> None:
    """Write ``answers`` to ``path`` whole: another relay reading it at the same moment sees the
    old file or the new one, never half of one."""
    partial = f"{path}.{os.getpid()}.tmp"
    body = json.dumps({"format": FORMAT, "answers": answers}, sort_keys=True, indent=1)
    try:
        with open(partial, "w", encoding="utf-8") as file:
            file.write(body + "\n")
        os.replace(partial, path)
    except OSError:
        try:
            os.remove(partial)
        except OSError:
            pass
        raise


class KeptAnswers:
    """The kept handshake answers for one relay: its tools profile, data folder and releases."""

    def __init__(self, data_folder: str, tools: str, *, shipped: str = SHIPPED_FILE) -> None:
        self.saved_path = os.path.join(data_folder, SAVED_FILE)
        self.shipped_path = shipped
        self.tools = tools
        self.releases = release_key(sdk_versions())

    def key(self, message: dict[str, Any]) -> str | None:
        return None if self.releases is None else answer_key(self.releases, self.tools, message)

    def lookup(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """The kept result for this handshake request (saved first, then shipped), or None."""
        key = self.key(message)
        if key is None:
            return None
        for path in (self.saved_path, self.shipped_path):
            result = read_answers(path).get(key)
            if result is not None:
                return result
        return None

    def remember(self, message: dict[str, Any], result: object) -> bool:
        """Save the daemon's ``result`` for this request; True when the file changed. Entries of
        other releases are dropped (they can never be served again by this install)."""
        key = self.key(message)
        if key is None or not _fits(result) or self.releases is None:
            return False
        assert isinstance(result, dict)
        saved = read_answers(self.saved_path)
        if saved.get(key) == result:
            return False
        current = {k: v for k, v in saved.items() if k.startswith(self.releases + " ")}
        current[key] = result
        os.makedirs(os.path.dirname(self.saved_path) or ".", exist_ok=True)
        write_answers(self.saved_path, current)
        return True


def handshake_answer(request_id: object, result: dict[str, Any]) -> bytes:
    """The JSON-RPC answer line to the request ``request_id`` carrying a kept ``result``."""
    return (
        json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}, separators=(",", ":")).encode(
            "utf-8"
        )
        + b"\n"
    )
