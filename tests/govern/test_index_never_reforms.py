"""What the keyword index receives never spells a value redaction removed.

The analyzer splits on every Unicode blank and decodes nothing, and it sees the stored (redacted)
content: a value that redaction missed because of a separator or an encoding would reach the index
as ASCII digits in a row, and a keyword search for the plain value would find it. For every trick
below the value is written, then the index is read back: no token run spells the value, and a
keyword search for the plain value finds nothing.
"""

from __future__ import annotations

import base64
import html
import sqlite3
from pathlib import Path
from urllib.parse import quote

import pytest

from memwarden.errors import InvalidInput
from memwarden.service import MemoryService

VALUES = {
    "card": "4111 1111 1111 1111",
    "phone": "+44 20 7946 0958",
    "national phone": "06 12 34 56 78",
    "iban": "DE89 3704 0044 0532 0130 00",
    "ssn": "123 45 6789",
}
BLANKS = ["\u2028", "\u2029", "\u0085", "\u00a0", "\u1680", "\u2800", "\u3000", "\u202f", "\x0b", "\x0c"]


def _tricks(value: str) -> dict[str, str]:
    out = {f"groups split by U+{ord(b):04X}": value.replace(" ", b) for b in BLANKS}
    out["zero-width inside"] = value.replace(" ", " \u200b")
    out["full-width digits"] = value.translate({c: c + 0xFEE0 for c in range(0x30, 0x3A)})
    out["Arabic-Indic digits"] = value.translate({c: c - 0x30 + 0x0660 for c in range(0x30, 0x3A)})
    out["HTML references"] = "".join(f"&#{ord(c)};" for c in value)
    out["named and hex references"] = html.escape(value).replace(" ", "&nbsp;").replace("1", "&#x31;")
    out["JSON escapes"] = "".join(f"\\u{ord(c):04x}" for c in value)
    out["quoted-printable"] = "".join(f"={ord(c):02X}" for c in value)
    out["URL-encoded"] = quote(value, safe="")
    out["base64"] = base64.b64encode(f"note {value}".encode()).decode()
    return out


CASES = [
    (f"{name}: {trick}", written, value)
    for name, value in VALUES.items()
    for trick, written in _tricks(value).items()
]


def _index_rows(db_path: Path) -> list[list[str]]:
    conn = sqlite3.connect(db_path)
    try:
        rows = conn.execute("SELECT title, tags, body, context FROM memories_fts").fetchall()
    finally:
        conn.close()
    return [" ".join(field or "" for field in row).split() for row in rows]


def _spells(tokens: list[str], value_terms: list[str]) -> bool:
    width = len(value_terms)
    compact = "".join(value_terms)
    if compact in tokens or compact.lstrip("+") in tokens:
        return True
    return any(tokens[i : i + width] == value_terms for i in range(len(tokens) - width + 1))


@pytest.mark.keyword_only
def test_no_index_token_run_spells_a_redacted_value(service: MemoryService, db_path: Path) -> None:
    analyzer = service.intake.analyzer
    stored = 0
    for number, (label, written, value) in enumerate(CASES):
        try:
            service.memories.add(f"Reference {written} for the renewal", project=f"p{number}")
        except InvalidInput:
            continue  # a refused write stores nothing, which is just as safe
        stored += 1
        for tokens in _index_rows(db_path):
            assert not _spells(tokens, analyzer.terms(value)), label
        hits = service.searcher.search(value, vector=False, limit=50).hits
        assert not [h for h in hits if value.split()[-1] in h.memory.content], label
    assert stored >= len(CASES) - len(VALUES) * 2  # only the control characters may be refused
    raw = db_path.read_bytes() + Path(f"{db_path}-wal").read_bytes()
    for value in VALUES.values():
        assert value.encode() not in raw and value.replace(" ", "").encode() not in raw
