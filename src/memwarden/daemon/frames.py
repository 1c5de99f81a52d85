"""JSON for the attach protocol's frames, through CPython's ``_json`` without the ``json`` package.

The prompt hook asking the daemon encodes two frames and decodes two. ``import json`` imports
``re`` (and with it ``enum``, ``functools`` and the regex compiler): a large share of the
hook's CPU with a warm daemon (docs/performance.md#cold-start). The
encoder and scanner that ``json.dumps`` and ``json.loads`` run are C functions of ``_json``;
this module calls them with ``json``'s own settings, so a frame reads and writes exactly as
``json`` would:

- ``dumps``: ``json.dumps(obj, ensure_ascii=False, separators=(",", ":"))``, non-finite numbers
  allowed, as json allows them;
- ``loads``: ``json.loads`` of a UTF-8 line. Only a line that decodes cleanly is answered
  here; anything else (bad JSON, other encodings, extra data) goes to ``json.loads`` itself, so
  every error and every odd case is json's own.

An interpreter without ``_json`` (or with a different signature) uses ``json`` throughout.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from typing import Any

_CONSTANTS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}
_WHITESPACE = " \t\n\r"


def _not_json(value: object) -> object:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


class _ScanContext:
    """What ``_json.make_scanner`` reads from a ``json.JSONDecoder``, with ``json.loads``' defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


_encode: Callable[[object, int], Any] | None
_scan: Callable[[str, int], tuple[Any, int]] | None
try:
    from _json import encode_basestring, make_encoder, make_scanner

    # (markers, default, encoder, indent, key_separator, item_separator, sort_keys, skipkeys,
    # allow_nan): json.encoder.JSONEncoder.iterencode's call for a one-shot encode. No markers:
    # frames are built here, never cyclic.
    _encode = make_encoder(None, _not_json, encode_basestring, None, ":", ",", False, False, True)
    _scan = make_scanner(_ScanContext())  # type: ignore[arg-type]  # typeshed: a JSONDecoder; any object with its six settings
except (ImportError, TypeError):  # pragma: no cover - another interpreter, or another _json
    _encode = _scan = None


def dumps(value: object) -> str:
    """``value`` as one line of compact JSON (``json.dumps(..., ensure_ascii=False,
    separators=(",", ":"))``); TypeError for what JSON cannot hold."""
    if _encode is None:  # pragma: no cover - see the module docstring
        import json

        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return "".join(_encode(value, 0))


def loads(line: bytes | str) -> Any:
    """The value of one JSON document, as ``json.loads`` reads it (and its errors: ValueError,
    UnicodeDecodeError)."""
    if _scan is not None:
        try:
            text = line.decode("utf-8") if isinstance(line, bytes) else line
            start = len(text) - len(text.lstrip(_WHITESPACE))
            value, end = _scan(text, start)
            if not text[end:].strip(_WHITESPACE):
                return value
        except Exception:  # noqa: BLE001 - json.loads says what is wrong, in its own words
            # The scanner reports a syntax error through json.decoder's JSONDecodeError, which it
            # looks up among the modules already imported: before json is, that is a SystemError.
            pass
    import json

    return json.loads(line)
