"""Decoding layers: the runs of a text that are encoded, with what they decode to.

A secret survives a regular expression when it is written ``jane.doe%40example.org``,
``password%3Dhunter2``, ``cGFzc3dvcmQ9aHVudGVyMg==``, ``jane&#64;example.org``,
``jane&commat;example.org``, ``jane\\u0040example.org``, ``jane\\x40example.org`` or, in
quoted-printable, ``jane=40example.org``. The redactor runs its rules on the decoded form of
every such run and, when something is found, replaces the whole encoded run.

Encodings: URL (percent) encoding, base64, HTML character references (numeric and named, as
``html.unescape`` knows them), ``\\u`` / ``\\U`` / ``\\x`` escapes (JSON, JavaScript, Python, C) and
quoted-printable ``=XX`` bytes (UTF-8). For the last three a run is the stretch of text without
blanks, quotes or angle brackets around an escape (``_escaped_runs``).

Both scans are linear: a run is one character class (no nested quantifiers), and decoding is
done by the standard library in C. A base64 run must be 12+ characters and decode to printable
UTF-8 text, so ordinary long words and binary blobs (key material, hashes) are left alone.

Base64 glued to a name or a path (``payload=<b64>``, ``/u/<b64>``, ``id-<b64>``, ``x_<b64>``)
is one run with its prefix, and misaligned it decodes to binary. When a whole run does not decode,
its segments starting after one of its first 24 separators (``= / + _ -``) and ending at one
of its last ones or at its end are tried (``_segments``): a start only when its first 12
characters already decode to text, at most 8 such starts and 6 ends each, so a long binary blob
costs a few decodes, not one per pair. Runs whose letters are all of one case (``data-retention``,
``2024-01-15``) are words, not base64 of text, and are skipped.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterator

# Scripts without spaces end a URL-encoded run (a value glued to Chinese text stays alone).
_NOSPACE = "\u0e00-\u0e7f\u1100-\u11ff\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af"
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
# A run is every base64 character (padding "=" included) between two others: preceded by a
# character outside base64 (the leading class keeps the scan fast: positions inside words fail at
# once) or starting the text.
_B64_RUN = re.compile(r"[^A-Za-z0-9+/=_-]([A-Za-z0-9+/=_-]{12,})")
_B64_RUN_AT_START = re.compile(r"[A-Za-z0-9+/=_-]{12,}")
_B64_WHOLE = re.compile(r"[A-Za-z0-9+/_-]{12,}={0,2}")
_B64_HINT = re.compile(r"[A-Za-z0-9+/_-]{12}")
# Where a run is cut into segments: what joins a name, a path or an id to an encoded value.
_SEPARATOR_CHARS = "=/+_-"
_B64_SEPARATORS = re.compile(r"[=/+_-]")
_URLSAFE_TO_STANDARD = str.maketrans("-_", "+/")
_MIN_B64 = 12
_MAX_CUTS = 24  # separators of a run after which a segment may start (a prefix holds few)
_MAX_STARTS = 8  # segment starts whose head decodes to text, per run
_MAX_ENDS = 6  # ends tried for each such start, longest first
# HTML character references, backslash escapes and quoted-printable bytes; a run around one of
# them is what lies between blanks, quotes and angle brackets (markup and string delimiters).
_HTML_REFERENCE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?")
_BACKSLASH_ESCAPE = re.compile(r"\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|x([0-9A-Fa-f]{2}))")
# Written to start with the literal "=" (not a repeated group): the engine then jumps from one
# "=" to the next instead of trying the pattern at every position of a text holding one.
_QUOTED_PRINTABLE = re.compile(r"=[0-9A-F]{2}(?:=[0-9A-F]{2})*")
_ESCAPED_RUN_CHAR = re.compile(r"[^\s\"'<>`]")
_ESCAPED_RUN = re.compile(r"[^\s\"'<>`]+")


@functools.cache
def _url_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A URL-encoded run and one of its characters. Compiled on first use (only a text holding
    ``%`` needs them): their Unicode classes are slow for a cold prompt hook to compile (docs/performance.md)."""
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


def _unescape_backslashes(run: str) -> str:
    def char(match: re.Match[str]) -> str:
        code = int(match.group(match.lastindex or 1), 16)
        return chr(code) if code <= 0x10FFFF else match.group()

    return _BACKSLASH_ESCAPE.sub(char, run)


def _decode_quoted_printable(run: str) -> str:
    """``=XX`` bytes as UTF-8 (what a mail body's ``=40`` or ``=C3=A9`` stands for)."""
    return _QUOTED_PRINTABLE.sub(
        lambda m: bytes.fromhex(m.group().replace("=", "")).decode("utf-8", "replace"), run
    )


def _escaped_runs(
    text: str, escape: re.Pattern[str], decode: Callable[[str], str]
) -> Iterator[tuple[int, int, str]]:
    """``(start, end, decoded)`` for each run of ``text`` around an ``escape`` whose decoded form
    differs. Linear: each run is scanned once, and escapes inside a run already done are skipped."""
    done = 0
    for found in escape.finditer(text):
        if found.start() < done:
            continue
        start = found.start()
        while start > 0 and _ESCAPED_RUN_CHAR.match(text, start - 1):
            start -= 1
        run_match = _ESCAPED_RUN.match(text, start)
        end = max(run_match.end() if run_match else found.end(), found.end())
        done = end
        run = text[start:end]
        decoded = decode(run)
        if decoded != run:
            yield start, end, decoded


def decoded_runs(text: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, decoded)`` for every encoded run of ``text`` (URL, base64, HTML references,
    backslash escapes, quoted-printable)."""
    if "&" in text and _HTML_REFERENCE.search(text):
        from html import unescape  # only for a text holding a character reference

        yield from _escaped_runs(text, _HTML_REFERENCE, unescape)
    if "\\" in text:
        yield from _escaped_runs(text, _BACKSLASH_ESCAPE, _unescape_backslashes)
    if "=" in text:
        yield from _escaped_runs(text, _QUOTED_PRINTABLE, _decode_quoted_printable)
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
            group = match.lastindex or 0
            run, offset = match.group(group), match.start(group)
            if _plain_word(run):
                continue
            if _B64_WHOLE.fullmatch(run):
                decoded_text = decode_base64(run)
                if decoded_text is not None:
                    yield offset, offset + len(run), decoded_text
                    continue
            for lo, hi, decoded_text in _segments(run):
                yield offset + lo, offset + hi, decoded_text


def _plain_word(run: str) -> bool:
    """Words and numbers: letters of one case (``data-retention``, ``2024-01-15``, ``README``) or
    one capitalised word. Base64 of text 12+ characters long mixes upper and lower case."""
    return run.lower() == run or run.upper() == run or (run.isalpha() and run.istitle())


def _head_is_text(head: str) -> bool:
    """Whether 12 base64 characters decode to the start of printable UTF-8 text (a character cut
    at the end is allowed): a cheap test before decoding a whole segment."""
    import binascii

    if _plain_word(head):
        return False
    try:
        raw = binascii.a2b_base64(head.translate(_URLSAFE_TO_STANDARD))
    except (ValueError, binascii.Error):
        return False
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        if error.reason != "unexpected end of data" or error.start < len(raw) - 3:
            return False
        text = raw[: error.start].decode("utf-8")
    return _printable(text)


def _segments(run: str) -> Iterator[tuple[int, int, str]]:
    """``(lo, hi, decoded)`` for the segments of ``run`` (which did not decode whole) that decode
    to text, each the longest from its start; a segment's ``=`` padding is part of it."""
    cuts = [m.start() for m in itertools.islice(_B64_SEPARATORS.finditer(run), _MAX_CUTS)]
    if not cuts:
        return
    size = len(run)
    ends = [size]
    at = size - 1
    while at >= 0 and len(ends) <= _MAX_ENDS + 2:  # "==" padding is two of them
        if run[at] in _SEPARATOR_CHARS:
            ends.append(at)
        at -= 1
    covered = 0
    starts = 0
    for lo in [0, *(cut + 1 for cut in cuts)]:
        if lo < covered or size - lo < _MIN_B64:
            continue
        head = run[lo : lo + _MIN_B64]
        if "=" in head or not _head_is_text(head):
            continue
        starts += 1
        if starts > _MAX_STARTS:
            return
        tried = 0
        for hi in ends:
            if hi - lo < _MIN_B64 or tried >= _MAX_ENDS:
                break
            segment = run[lo:hi]
            if (lo, hi) == (0, size) or "=" in segment or _plain_word(segment):
                continue
            tried += 1
            decoded_text = decode_base64(segment)
            if decoded_text is not None:
                while hi < size and run[hi] == "=" and hi - lo < len(segment) + 2:
                    hi += 1
                yield lo, hi, decoded_text
                covered = hi
                break


__all__ = ["decode_base64", "decoded_runs"]
