"""Decoding layers: the runs of a text that are URL-encoded or base64, with what they decode to.

A secret survives a regular expression when it is written ``jane.doe%40example.org``,
``password%3Dhunter2`` or ``cGFzc3dvcmQ9aHVudGVyMg==``. The redactor runs its rules on the
decoded form of every such run and, when something is found, replaces the whole encoded run.

Both scans are linear: a run is one character class (no nested quantifiers), and decoding is
done by the standard library in C. A base64 run must be 12+ characters and decode to printable
UTF-8 text, so ordinary long words and binary blobs (key material, hashes) are left alone.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

# Scripts without spaces end a URL-encoded run (a value glued to Chinese text stays alone).
_NOSPACE = "\u0e00-\u0e7f\u1100-\u11ff\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
# A run is preceded by a character outside base64 (the leading class keeps the scan fast: positions
# inside words fail at once) or starts the text.
_B64_RUN = re.compile(r"[^A-Za-z0-9+/=_-]([A-Za-z0-9+/_-]{12,}={0,2})(?![A-Za-z0-9+/=_-])")
_B64_RUN_AT_START = re.compile(r"[A-Za-z0-9+/_-]{12,}={0,2}(?![A-Za-z0-9+/=_-])")
_B64_HINT = re.compile(r"[A-Za-z0-9+/_-]{12}")


@functools.cache
def _url_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A URL-encoded run and one of its characters. Compiled on first use (only a text holding
    ``%`` needs them): their Unicode classes take a cold prompt hook about 5 ms to compile."""
    return re.compile(rf"(?:[^\W{_NOSPACE}]|[.~+%-])+"), re.compile(rf"[^\W{_NOSPACE}]|[.~+%-]")


def _printable(text: str) -> bool:
    if text.isprintable():
        return bool(text)
    return all(ch.isprintable() or ch in "\n\r\t" for ch in text)


def decode_base64(run: str) -> str | None:
    """The printable UTF-8 text ``run`` decodes to, or None."""
    import base64  # only for a text that holds a base64-looking run
    import binascii

    body = run.rstrip("=")
    if len(body) % 4 == 1:
        return None
    urlsafe = "-" in body or "_" in body
    if urlsafe and ("+" in body or "/" in body):
        return None
    padded = body + "=" * (-len(body) % 4)
    try:
        raw = base64.urlsafe_b64decode(padded) if urlsafe else base64.b64decode(padded, validate=True)
    except (ValueError, binascii.Error):
        return None
    text = raw.decode("utf-8", "replace")  # binary (most runs) raises no exception to catch
    if "\ufffd" in text:  # binary, or text that holds U+FFFD itself
        if b"\xef\xbf\xbd" not in raw:
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return text if _printable(text) else None


def decoded_runs(text: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, decoded)`` for every URL-encoded or base64 run of ``text``."""
    if "%" in text:
        from urllib.parse import unquote  # only for a text holding "%" (it imports ipaddress)

        url_run, url_char = _url_patterns()
        done = 0
        for percent in _PERCENT.finditer(text):
            if percent.start() < done:
                continue
            start = percent.start()
            while start > 0 and url_char.match(text, start - 1):
                start -= 1
            run_match = url_run.match(text, start)
            end = run_match.end() if run_match else percent.end()
            done = end
            run = text[start:end]
            decoded = unquote(run)
            if decoded != run:
                yield start, end, decoded
    if _B64_HINT.search(text):
        first = _B64_RUN_AT_START.match(text)
        for match in ([first] if first else []) + list(_B64_RUN.finditer(text)):
            run = match.group(match.lastindex or 0)
            if run.isdigit() or (run.isalpha() and (run.islower() or run.isupper() or run.istitle())):
                continue  # an ordinary word or number; base64 of text mixes case (and digits)
            decoded_text = decode_base64(run)
            if decoded_text is not None:
                yield match.start(match.lastindex or 0), match.end(), decoded_text


__all__ = ["decode_base64", "decoded_runs"]
