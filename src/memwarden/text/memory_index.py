"""What the keyword index holds for one memory: its analyzed title, tags, body and context.

The body is the content's terms followed by the dates its relative time words name, resolved
against when the remembered thing happened (``text/dates.py``: "yesterday" said on 9 May 2023
adds "8 May 2023" in each configured language), so a search naming the date finds it. The
context (the message a memory replies to, the question it answers) is its own low-weight field.
"""

from __future__ import annotations

from memwarden.models import IndexText, Memory
from memwarden.text.analyzer import Analyzer
from memwarden.text.dates import resolve_dates


def memory_index(analyzer: Analyzer, memory: Memory) -> IndexText:
    """The analyzed fields of ``memory`` for a keyword index (see the module docstring)."""
    body = analyzer.index_text(memory.content)
    dates = resolve_dates(memory.content, memory.occurred, analyzer.languages)
    if dates:
        body = f"{body} {analyzer.index_text(dates)}".strip()
    return IndexText(
        title=analyzer.index_text(memory.title),
        tags=analyzer.index_text(" ".join(memory.tags)),
        body=body,
        context=analyzer.index_text(memory.context) if memory.context else "",
    )


__all__ = ["memory_index"]
