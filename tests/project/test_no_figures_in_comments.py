"""Measured figures live in docs/performance.md with their commands, never in code comments.

A timing or size written beside the code ("~15 ms", "96 MB at 1M") goes stale the day the code
or the machine changes, and nothing re-measures it. Comments and docstrings say why in words
and point at docs/performance.md; this test reads every comment (``tokenize``) and every bare
string statement (docstrings, attribute docstrings: ``ast``) under ``src/memwarden`` and fails
on a number followed by a time or size unit.

One allowlist, ``_CONSTANTS``, of (file, words of the line) pairs: figures that are not
measurements but the value of a setting or a limit stated where it is set or relied on (a
PostgreSQL default, a page size, a byte cap), or an example of an output format.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

import memwarden

SRC = Path(memwarden.__file__).parent

#: A number (digits, thousands commas, decimals) right before a unit of time or size.
FIGURE = re.compile(
    r"(?<![\w.])\d[\d,]*(?:\.\d+)?\s?"
    r"(?:ns|µs|us|ms|s|sec|secs|seconds?|minutes?|KB|KiB|kB|MB|MiB|GB|GiB|TB|bytes)\b"
)

#: Real constants, not measurements: (file under src/memwarden, words the line contains).
_CONSTANTS: frozenset[tuple[str, str]] = frozenset(
    {
        # The layout of the packaged 4-bit weight file (ggml's Q4_0 block), which the reader decodes.
        ("embed/e5_file.py", "a float16 scale + 16 bytes of nibbles"),
        # PostgreSQL's own default for wal_writer_delay, which the durability argument rests on.
        ("store/postgres/audit.py", "WAL writer delay (200 ms by default)"),
        # PostgreSQL's documented limits on tsvector lexemes, which the index code enforces.
        ("store/postgres/textsearch.py", "a lexeme under 2 KiB"),
        # The operating system's page size, the unit the mapping is read in.
        ("store/sqlite/vector_slots.py", "every 4 KiB page"),
        # The size of the probe vector the health check writes: 384 float32 values.
        ("store/sqlite/maintenance.py", "1536 bytes: a 384-dimension float32 vector"),
        # The refresh intervals the dashboard offers: a setting's choices.
        ("ui/live.py", "(off, 10, 30 or 60 s"),
        # A setting: how much of a text screening reads.
        ("screening/__init__.py", "the first 64 KiB of a text"),
        # An example of the size format's output.
        ("ui/display.py", "``196608`` -> ``192 KB``"),
        # Examples of ordinary numbers the short-number rule leaves alone.
        ("govern/pii_phones.py", "phone with 256 GB"),
    }
)


def commentary(source: str) -> Iterator[tuple[int, str]]:
    """``(line, text)`` of every comment and every bare string statement of one module."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            for offset, line in enumerate(node.value.value.splitlines()):
                yield node.lineno + offset, line


def figures(rel: str, source: str) -> list[str]:
    found = []
    for line, text in commentary(source):
        if not FIGURE.search(text):
            continue
        if any(rel == where and words in text for where, words in _CONSTANTS):
            continue
        found.append(f"{rel}:{line}: {text.strip()}")
    return found


def sources() -> Iterator[tuple[str, str]]:
    for path in sorted(SRC.rglob("*.py")):
        yield path.relative_to(SRC).as_posix(), path.read_text(encoding="utf-8")


def test_comments_and_docstrings_hold_no_measured_figures() -> None:
    found = [hit for rel, source in sources() for hit in figures(rel, source)]
    assert not found, (
        "measured figures in comments or docstrings: move each, with the command that measures it, "
        "to docs/performance.md and say why in words here (or, for a real constant, add it to "
        "_CONSTANTS):\n" + "\n".join(found)
    )


def test_every_constant_allowed_is_still_in_the_code() -> None:
    text = {rel: source for rel, source in sources()}
    stale = [f"{rel}: {words}" for rel, words in sorted(_CONSTANTS) if words not in text.get(rel, "")]
    assert not stale, "allowlisted constants no longer in the code (remove them):\n" + "\n".join(stale)


def test_the_scanner_finds_a_figure_in_a_comment_and_a_docstring() -> None:
    source = '"""Loads in about 15 ms."""\nx = 1  # a 96 MB block\ny = "12 ms"  # a string, not a comment\n'
    assert figures("example.py", source) == [
        "example.py:2: # a 96 MB block",
        "example.py:1: Loads in about 15 ms.",
    ]


def test_the_scanner_leaves_words_and_versions_alone() -> None:
    source = '"""int8 vectors, 3 times faster, Python 3.11, 4 sections, per 1,000 rows."""\n'
    assert figures("example.py", source) == []
