"""Names in a vault: note file names and Obsidian tags, safe on Windows, macOS and Linux.

A note is called ``<number> <title>.md``. The number is the note's own, given once by the vault
folder and never reused, so the name is unique even when titles repeat, and it never collides
with a reserved Windows name (``CON``, ``NUL``…) because it starts with digits. The title part
keeps what a person can read and drops what breaks a file system or an Obsidian link:

- ``<>:"/\\|?*`` (Windows), control characters, and ``#^[]|`` (they end or split a wikilink);
- trailing dots and spaces (Windows strips them, so two names would meet);
- length: at most ``MAX_TITLE_BYTES`` of UTF-8, cut at a word where possible (255-byte name
  limits on Linux and macOS, 260-character paths on Windows).

Names are NFC: macOS file systems compare names in a normalization-insensitive way, so an NFC
name written on Linux reads back the same there.
"""

from __future__ import annotations

import re
import unicodedata

from memwarden.models import Memory

MAX_TITLE_BYTES = 120
TITLE_WORDS_FROM_CONTENT = 8
FALLBACK_TITLE = "memory"
NOTE_SUFFIX = ".md"
_UNSAFE = re.compile(r'[<>:"/\\|?*#^\[\]\x00-\x1f\x7f-\x9f\u2028\u2029]')
_TAG_UNSAFE = re.compile(r"[^\w/-]")


def display_title(memory: Memory) -> str:
    """The title shown for a memory: its own, else the first words of its content."""
    if memory.title.strip():
        return " ".join(memory.title.split())
    words = memory.content.split()[:TITLE_WORDS_FROM_CONTENT]
    return " ".join(words) or FALLBACK_TITLE


def _cut(text: str, max_bytes: int) -> str:
    if len(text.encode("utf-8")) <= max_bytes:
        return text
    cut = text.encode("utf-8")[:max_bytes].decode("utf-8", errors="ignore")
    space = cut.rfind(" ")
    return cut[:space] if space >= max_bytes // 3 else cut


def safe_title(title: str) -> str:
    """The readable part of a file name: unsafe characters become spaces, then trimmed."""
    text = unicodedata.normalize("NFC", title)
    text = " ".join(_UNSAFE.sub(" ", text).split())
    text = _cut(text, MAX_TITLE_BYTES).rstrip(". ")
    return text or FALLBACK_TITLE


def note_stem(number: int, title: str, *, disambiguator: str = "") -> str:
    """``<number> <title>`` (plus `` (<disambiguator>)`` when a foreign file took the name)."""
    stem = f"{number} {safe_title(title)}"
    return f"{stem} ({disambiguator})" if disambiguator else stem


def obsidian_tag(value: str) -> str:
    """A tag Obsidian recognises: letters, digits, ``_``, ``-`` and ``/``, not only digits.

    Spaces and other characters become ``-``; a leading ``#`` is dropped; an all-digit tag gets a
    leading ``_`` (Obsidian ignores tags made only of digits).
    """
    text = unicodedata.normalize("NFC", value.strip().lstrip("#"))
    text = _TAG_UNSAFE.sub("-", "-".join(text.split()))
    text = re.sub(r"/+", "/", text).strip("/") or "_"
    return f"_{text}" if text.replace("/", "").isdigit() else text


def project_tag(project: str) -> str:
    return f"project/{obsidian_tag(project)}"


def note_tags(memory: Memory) -> list[str]:
    """The memory's tags as Obsidian tags, in order, then ``project/<name>`` last."""
    return [*(obsidian_tag(t) for t in memory.tags), project_tag(memory.project)]
