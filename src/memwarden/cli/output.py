"""How the CLI prints: JSON with --json (a stable contract), short readable lines otherwise; and
the one guard between stored text and the operator's terminal.

Stored text may hold terminal control sequences (a memory written by an agent that summarised a
hostile page, an import, a foreign writer): ESC sequences that erase lines or set the window
title, OSC 52 that writes the clipboard, C1 controls that some terminals obey like ESC. Every
command runs with ``TerminalSafeStdout`` (``main.run_handler``), so whatever it prints reaches
the terminal with each C0 control other than newline and tab, DEL, each C1 control, and each
bidirectional embedding, override and isolate control (U+202A-U+202E, U+2066-U+2069: "Trojan
Source" text that shows one thing and says another) written as a ``\\uXXXX`` escape. That is
also how JSON may write such a character inside a string, so JSON output stays valid JSON that
decodes to the same values; byte streams (``sys.stdout.buffer``:
the MCP stdio server) are left alone.
"""

from __future__ import annotations

import json
import sys
from types import TracebackType
from typing import Any, TextIO, cast

# C0 controls but newline and tab, DEL, the C1 controls, and the bidirectional controls that
# reorder what the terminal shows.
_CONTROL_ESCAPES = str.maketrans(
    {
        c: f"\\u{c:04x}"
        for c in (*range(0x20), *range(0x7F, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A))
        if c not in (0x09, 0x0A)
    }
)


def for_terminal(text: str) -> str:
    """``text`` with every control character a terminal could act on written as an escape."""
    return text.translate(_CONTROL_ESCAPES)


class _TerminalSafe:
    """A text stream that writes through ``for_terminal``; everything else is the stream's."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(for_terminal(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class TerminalSafeStdout:
    """Within the block, text written to ``sys.stdout`` goes through ``for_terminal``.

    A class, not ``contextlib.contextmanager``: ``memwarden search`` runs in it, and its cold
    start imports nothing it does not need."""

    def __enter__(self) -> None:
        self._original: TextIO | None = None
        if not isinstance(sys.stdout, _TerminalSafe):  # not already guarded
            self._original = sys.stdout
            sys.stdout = cast(TextIO, _TerminalSafe(sys.stdout))

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._original is not None and isinstance(sys.stdout, _TerminalSafe):
            sys.stdout = self._original


def emit_json(value: Any) -> None:
    """``value`` as indented JSON; C1 controls escaped too (``json`` escapes only C0)."""
    sys.stdout.write(for_terminal(json.dumps(value, ensure_ascii=False, indent=2)) + "\n")


def one_line(text: str, width: int = 100) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def print_memory(memory: dict[str, Any]) -> None:
    flags = " [pinned]" if memory.get("pinned") else ""
    if memory.get("injection_flags"):
        flags += f" [reads like instructions: {', '.join(memory['injection_flags'])}]"
    title = f"{memory['title']}: " if memory.get("title") else ""
    tags = f"  #{' #'.join(memory['tags'])}" if memory.get("tags") else ""
    print(f"{memory['id']}  {memory['project']}/{memory['kind']}{flags}{tags}")
    print(f"    {title}{one_line(memory['content'])}")
    if memory.get("context"):
        print(f"    context: {one_line(memory['context'])}")


# The parts of a hit's relevance a hybrid search reports apart (``search.ranking.explain``).
RELEVANCE_PARTS = ("keyword", "vector")


def shown_why(why: dict[str, float]) -> dict[str, float]:
    """A hit's score breakdown as the text output shows it: the keyword and vector parts of a
    hybrid search (the daemon's) as one ``relevance``, the name a keyword search (in this
    process) gives it, so a search prints the same lines whichever process answered. ``--json``
    keeps the parts."""
    if not any(name in why for name in RELEVANCE_PARTS):
        return why
    shown = {"relevance": sum(why.get(name, 0.0) for name in RELEVANCE_PARTS)}
    shown.update((k, v) for k, v in why.items() if k not in RELEVANCE_PARTS and k != "relevance")
    return shown


def print_hits(result: dict[str, Any]) -> None:
    # Which process answered, and how, is a note on stderr: stdout is the same either way.
    if result.get("via") == "daemon" and not result.get("degraded"):
        print("(searched by the memwarden daemon: keywords and meaning)", file=sys.stderr)
    if result.get("degraded"):
        where = " in the memwarden daemon" if result.get("via") == "daemon" else ""
        print(
            f"(degraded{where}: {result.get('degrade_reason')}; keyword results only)",
            file=sys.stderr if where else sys.stdout,
        )
    if not result["hits"]:
        print("no memories found")
    for hit in result["hits"]:
        print_memory(hit)
        why = ", ".join(f"{k}={v:.3f}" for k, v in shown_why(hit["why"]).items())
        print(f"    score {hit['score']:.4f} ({why})")
    if result.get("tokens") is not None:
        left_out = f", {result['omitted']} more did not fit" if result.get("omitted") else ""
        print(f"(about {result['tokens']} tokens{left_out})")
