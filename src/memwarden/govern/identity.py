"""Who is calling over HTTP: ``MEMWARDEN_TOKENS_FILE`` maps bearer tokens to actors and tenants.

The file holds SHA-256 digests of the tokens, never the tokens themselves::

    {"tokens": [
      {"sha256": "9f86d08…", "actor": "alice", "tenants": ["acme", "globex"]},
      {"sha256": "60303ae…", "actor": "ci-bot", "tenants": ["acme"]}
    ]}

A request acts in the first tenant of its token, or in the one it names with the
``X-Memwarden-Tenant`` header when the token lists it. ``memwarden token new`` makes a token
and its entry. A malformed file stops start-up naming the entry and the problem.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memwarden.errors import ConfigError

_DIGEST = re.compile(r"^[0-9a-f]{64}$")
ENTRY_KEYS = {"sha256", "actor", "tenants", "note"}


@dataclass(frozen=True, slots=True)
class Identity:
    """An authenticated actor and the tenants it may act in (the first is its default)."""

    actor: str
    tenants: tuple[str, ...]


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A fresh bearer token: 256 random bits, URL-safe, prefixed so scanners can recognise it."""
    return "mwt_" + secrets.token_urlsafe(32)


def _entry_problem(path: Path, number: int, message: str) -> ConfigError:
    return ConfigError(
        f"MEMWARDEN_TOKENS_FILE {path}: entry #{number}: {message}", path=str(path), entry=number
    )


def _check_name(value: Any, what: str, limit: int) -> str:
    if (
        not isinstance(value, str)
        or not value.strip()
        or len(value) > limit
        or any(ord(c) < 32 for c in value)
    ):
        raise ValueError(f"{what} must be 1-{limit} printable characters")
    return value.strip()


def parse_tokens(data: Any, path: Path) -> dict[str, Identity]:
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("tokens"), list)
        or set(data) - {"tokens", "version"}
    ):
        raise ConfigError(
            f'MEMWARDEN_TOKENS_FILE {path}: expected {{"tokens": [{{"sha256": …, "actor": …, '
            '"tenants": […]}}, …]}',
            path=str(path),
        )
    found: dict[str, Identity] = {}
    for number, entry in enumerate(data["tokens"], start=1):
        if not isinstance(entry, dict):
            raise _entry_problem(path, number, "must be a JSON object")
        if "token" in entry:
            raise _entry_problem(
                path,
                number,
                'holds a plaintext token; store its SHA-256 as "sha256" '
                '(memwarden token hash) and remove "token"',
            )
        unknown = set(entry) - ENTRY_KEYS
        if unknown:
            raise _entry_problem(
                path, number, f"unknown key(s) {sorted(unknown)}; allowed: {sorted(ENTRY_KEYS)}"
            )
        digest = entry.get("sha256")
        if not isinstance(digest, str) or not _DIGEST.match(digest):
            raise _entry_problem(
                path, number, "sha256 must be 64 lower-case hex digits (memwarden token hash)"
            )
        if digest in found:
            raise _entry_problem(path, number, "the same token digest appears twice")
        tenants = entry.get("tenants")
        try:
            actor = _check_name(entry.get("actor"), "actor", 200)
            if not isinstance(tenants, list) or not tenants:
                raise ValueError("tenants must be a non-empty list of tenant names")
            names = tuple(dict.fromkeys(_check_name(t, "each tenant", 100) for t in tenants))
        except ValueError as exc:
            raise _entry_problem(path, number, str(exc)) from None
        found[digest] = Identity(actor=actor, tenants=names)
    return found


def load_tokens_file(path_text: str) -> dict[str, Identity]:
    """Token digest → identity, from the file at ``path_text`` (empty: no tokens)."""
    if not path_text:
        return {}
    path = Path(path_text).expanduser()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(
            f"MEMWARDEN_TOKENS_FILE {path}: cannot read it ({exc.strerror})", path=str(path)
        ) from None
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"MEMWARDEN_TOKENS_FILE {path}: not valid JSON: {exc.msg} at line {exc.lineno}", path=str(path)
        ) from None
    return parse_tokens(data, path)


def add_token_entry(path: Path, actor: str, tenants: list[str]) -> tuple[str, dict[str, Any]]:
    """Make a token, append its entry to the tokens file (created if absent); the token and entry."""
    data: dict[str, Any] = {"tokens": []}
    if path.exists():
        data = json.loads(path.read_text(encoding="utf-8"))
        parse_tokens(data, path)  # refuse to extend a broken file
    token = new_token()
    entry = {"sha256": token_digest(token), "actor": actor, "tenants": tenants}
    parse_tokens({"tokens": [entry]}, path)
    data["tokens"].append(entry)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    tmp.chmod(0o600)
    tmp.replace(path)
    return token, entry
