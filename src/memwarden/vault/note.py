"""The Markdown of one vault note: frontmatter, ``# title``, content, Related links, footer.

Layout (the Related block is left out when there are no links)::

    ---
    <frontmatter>
    ---
    # <title>

    <content, or a "> [!important] Pinned" callout holding it>

    ## Related

    - [[<number> <title>]]

    %% memwarden: … %%

The Related block and the footer always end the note, so a link can be renamed or dropped by
replacing that exact suffix (``replace_related``) without reading the memory again.
"""

from __future__ import annotations

from collections.abc import Sequence

from memwarden.models import Memory
from memwarden.vault.frontmatter import render_frontmatter
from memwarden.vault.inert_markdown import inert_line, inert_markdown
from memwarden.vault.naming import display_title

RELATED_HEADING = "## Related"
PINNED_CALLOUT = "> [!important] Pinned"


def footer(memory_id: str) -> str:
    return (
        f"%% memwarden: this note mirrors memory {memory_id}. Change the memory with memwarden; "
        "edits made here are overwritten on its next update or `memwarden vault sync`. %%\n"
    )


def render_body(memory: Memory) -> str:
    """``# title`` and the content, both inert in Obsidian (``inert_markdown``: no embeds, HTML
    or code a plugin runs); a pinned memory's content sits in an important callout."""
    content = inert_markdown(memory.content)
    lines = [f"# {inert_line(display_title(memory))}", ""]
    if memory.pinned:
        lines.append(PINNED_CALLOUT)
        lines.extend(f"> {line}" if line else ">" for line in content.split("\n"))
    else:
        lines.append(content)
    return "\n".join(lines) + "\n"


def render_related(stems: Sequence[str]) -> str:
    """The Related block for these note names (file names without ``.md``); empty for none."""
    if not stems:
        return ""
    return f"{RELATED_HEADING}\n\n" + "".join(f"- [[{stem}]]\n" for stem in stems) + "\n"


def render_note(memory: Memory, related_stems: Sequence[str]) -> str:
    """The whole note for a memory that links to these notes."""
    return (
        render_frontmatter(memory)
        + render_body(memory)
        + "\n"
        + render_related(related_stems)
        + footer(memory.id)
    )


def replace_related(text: str, memory_id: str, old: Sequence[str], new: Sequence[str]) -> str | None:
    """``text`` with its Related block for ``old`` links replaced by one for ``new``.

    None when the note does not end the way memwarden wrote it (someone edited it): the caller
    then leaves it alone, and the next ``vault sync`` rewrites it.
    """
    tail = render_related(old) + footer(memory_id)
    if not text.endswith(tail):
        return None
    return text[: len(text) - len(tail)] + render_related(new) + footer(memory_id)
