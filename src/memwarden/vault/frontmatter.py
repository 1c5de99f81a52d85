"""YAML frontmatter for vault notes, written by hand so every value round-trips exactly.

Every string is a YAML double-quoted scalar: inside double quotes a colon, ``#``, ``---``, a
leading ``-`` or ``[`` or ``&`` mean nothing, and escapes carry what must not appear raw:

- ``"`` and ``\\`` are escaped;
- newlines, tabs and every character that is not printable (control characters, U+0085,
  U+2028/U+2029 which YAML would fold into a space, U+FEFF, non-characters, unassigned code
  points) are written as ``\\n``/``\\t``/``\\uXXXX``/``\\UXXXXXXXX`` escapes, which YAML readers
  (PyYAML, the one inside Obsidian) decode back to the same character. PyYAML refuses some of
  these characters even inside quotes, so escaping them is required, not cosmetic.

Times are plain YAML timestamps (``2026-11-29T19:53:07.123456Z``), which parse back to the
same instant; ``pinned`` is ``true``/``false``.
"""

from __future__ import annotations

import re

from memwarden.models import Memory, format_time
from memwarden.vault.naming import note_tags, obsidian_tag

FENCE = "---"
_NAMED_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
_ID_LINE = re.compile(r'^id: "([0-9A-Z]{26})"$', re.MULTILINE)
FRONTMATTER_SCAN_CHARS = 4096


def yaml_string(value: str) -> str:
    """``value`` as a YAML double-quoted scalar that parses back to exactly ``value``."""
    if value.isprintable() and '"' not in value and "\\" not in value:
        return f'"{value}"'
    parts = ['"']
    for ch in value:
        if ch in _NAMED_ESCAPES:
            parts.append(_NAMED_ESCAPES[ch])
        elif ch.isprintable():
            parts.append(ch)
        else:
            code = ord(ch)
            parts.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
    parts.append('"')
    return "".join(parts)


def _string_list(key: str, values: list[str]) -> list[str]:
    if not values:
        return [f"{key}: []"]
    return [f"{key}:", *(f"  - {yaml_string(v)}" for v in values)]


def render_frontmatter(memory: Memory) -> str:
    """The frontmatter block (fences included, ending in a newline) for one memory.

    ``tags`` holds the Obsidian forms of the memory's tags and ``project/<name>`` last. When an
    Obsidian form differs from the tag as stored (spaces, punctuation), ``memwarden_tags`` also
    holds the exact tags, so the memory's fields can always be read back from the note.
    ``thread`` and ``context`` appear when the memory has them, ``occurred`` when the remembered
    thing happened at another time than the memory was stored.
    """
    lines = [
        FENCE,
        f"id: {yaml_string(memory.id)}",
        f"project: {yaml_string(memory.project)}",
        f"kind: {yaml_string(memory.kind)}",
        f"title: {yaml_string(memory.title)}",
        *_string_list("tags", note_tags(memory)),
    ]
    if [obsidian_tag(t) for t in memory.tags] != list(memory.tags):
        lines.extend(_string_list("memwarden_tags", list(memory.tags)))
    lines += [
        f"pinned: {'true' if memory.pinned else 'false'}",
        f"created: {format_time(memory.created_at)}",
        f"updated: {format_time(memory.updated_at)}",
    ]
    if memory.occurred != memory.created_at:
        lines.append(f"occurred: {format_time(memory.occurred)}")
    if memory.thread:
        lines.append(f"thread: {yaml_string(memory.thread)}")
    if memory.context:
        lines.append(f"context: {yaml_string(memory.context)}")
    lines += [
        FENCE,
    ]
    return "\n".join(lines) + "\n"


def frontmatter_id(text: str) -> str | None:
    """The memory id in a note's frontmatter, or None when the text is not a memwarden note."""
    if not text.startswith(FENCE + "\n"):
        return None
    end = text.find("\n" + FENCE + "\n", len(FENCE), FRONTMATTER_SCAN_CHARS)
    if end < 0:
        return None
    found = _ID_LINE.search(text, 0, end)
    return found.group(1) if found else None
