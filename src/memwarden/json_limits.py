"""Limits every JSON message from outside must meet before a parser sees it (HTTP and stdio).

Two shapes break the parsers behind memwarden's transports in ways their callers cannot read:
nesting deeper than the parser's recursion limit (Python's ``json`` raises RecursionError; the
MCP SDK's parser stops at ~250 levels and its stdio reader then drops the request without an
answer), and a lone UTF-16 surrogate escape such as ``\\ud800`` (valid JSON syntax, but no
Unicode text: SQLite and UTF-8 output cannot hold it). ``json_problem`` finds either with one
linear scan that never recurses, so the transports can refuse such a message with a clear error.
"""

from __future__ import annotations

import json
import re

__all__ = ["MAX_JSON_DEPTH", "json_problem", "read_request_id"]

MAX_JSON_DEPTH = 64
"""Deepest nesting accepted. memwarden's own requests nest fewer than 10 levels."""

# One token per match: a JSON string (escapes included) or a bracket. Strings are skipped as a
# whole, so brackets inside them do not count and a backslash run is always read in pairs.
_TOKENS = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
_SURROGATE = re.compile(
    rb"\\(?:u([dD][89abAB][0-9a-fA-F]{2})(\\u[dD][c-fC-F][0-9a-fA-F]{2})?|u[dD][c-fC-F][0-9a-fA-F]{2}|.)",
    re.DOTALL,
)


def _lone_surrogate(string: bytes) -> str | None:
    if b"\\u" not in string:
        return None
    for match in _SURROGATE.finditer(string):
        text = match.group(0)
        if len(text) == 2:  # an ordinary two-character escape such as \n or \\
            continue
        if match.group(1) is None or match.group(2) is None:
            return text[:6].decode("ascii")
    return None


def json_problem(body: bytes, *, max_depth: int = MAX_JSON_DEPTH) -> str | None:
    """Why ``body`` must be refused before parsing (too deep, lone surrogate), or None.

    Malformed JSON is left to the parser, which reports it in the transport's own way."""
    depth = 0
    for match in _TOKENS.finditer(body):
        token = match.group(0)
        first = token[:1]
        if first == b'"':
            lone = _lone_surrogate(token)
            if lone is not None:
                return (
                    f"the JSON holds a lone surrogate escape ({lone}), which is not valid Unicode text; "
                    "send UTF-8 text or a surrogate pair"
                )
        elif first in (b"[", b"{"):
            depth += 1
            if depth > max_depth:
                return f"the JSON is nested deeper than {max_depth} levels"
        else:
            depth -= 1
    return None


_ID_VALUE = re.compile(rb'\s*:\s*(-?\d{1,18}(?![\d.eE])|"(?:[^"\\]|\\.)*")')


def read_request_id(body: bytes) -> str | int | None:
    """The ``id`` of a JSON-RPC request that cannot be parsed, read from its text, or None.

    Only a top-level ``"id"`` key followed by a whole number or a string counts; the scan
    never recurses, so any nesting depth is fine."""
    depth = 0
    for match in _TOKENS.finditer(body):
        token = match.group(0)
        first = token[:1]
        if first == b'"':
            if depth == 1 and token == b'"id"':
                value = _ID_VALUE.match(body, match.end())
                if value is not None:
                    return _id_value(value.group(1))
        elif first in (b"[", b"{"):
            depth += 1
        else:
            depth -= 1
    return None


def _id_value(raw: bytes) -> str | int | None:
    if raw[:1] != b'"':
        return int(raw)
    if _lone_surrogate(raw) is not None:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, str) else None
