"""Stored text written into a vault note so that Obsidian shows it and does nothing else.

A memory may hold text a hostile page or import put there. Written into a note as live Markdown,
it would act when the note is opened: a remote image (``![](https://…)``, ``<img src=…>``) calls
home, ``<iframe>``, ``<script>`` and ``<object>`` load pages, a ```` ```dataviewjs ```` block or
an inline ```$= …``` query runs JavaScript (Dataview), a ```` ```button ```` block runs commands
(Buttons), ``<% … %>`` runs when Templater processes the file. ``inert_markdown`` escapes these
with Markdown's own means, so reading view shows the same characters as the stored text:

- outside code blocks: ``<`` is written ``&lt;`` (no HTML element, comment, autolink or
  Templater tag remains), ``&`` is written ``&amp;`` where it would start a character reference,
  ``![`` becomes ``!\\[`` (no embed, remote or local), every backtick and tilde is escaped (no
  inline code, so no inline Dataview query or inline button, and no fence inside a quote or a
  list), ``%%`` becomes ``%\\%`` (no Obsidian comment hiding text or the note's own footer), and
  a backslash of the stored text before punctuation is doubled (it shows, as stored);
- fenced code blocks that start a line stay code blocks, displayed as they are (an indented
  fence, which may sit in a list item or quote, is escaped as prose), but the info string
  starts with ``text`` (``text dataviewjs``): plugins pick a block by its first word, so none
  takes it; ``<%`` inside one gets a WORD JOINER (U+2060) between its two characters, because
  Templater reads the raw file, code blocks included; a block left open is closed, so it cannot
  swallow the note's Related links and footer.

The stored memory is never changed (the note is a mirror, nothing reads it back); its exact
fields are in the frontmatter, the content as the note's body.
"""

from __future__ import annotations

import re

INERT_INFO = "text"
WORD_JOINER = "\u2060"
# A fence opener or closer: up to 3 spaces, then 3+ backticks or 3+ tildes (CommonMark).
_FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})(.*)$")
_ENTITY_START = re.compile(r"&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{1,31};)")
# A backslash the stored text puts before ASCII punctuation would escape it in Markdown.
_BACKSLASH_ESCAPE = re.compile(r"\\(?=[!-/:-@\[-`{-~])")
_PROSE = str.maketrans({"<": "&lt;", "`": "\\`", "~": "\\~"})


def _inert_prose(line: str) -> str:
    line = _BACKSLASH_ESCAPE.sub(r"\\\\", line)
    line = _ENTITY_START.sub("&amp;", line).translate(_PROSE)
    return line.replace("![", "!\\[").replace("%%", "%\\%")


def inert_line(text: str) -> str:
    """One line of prose (a heading's text) made inert as outside code blocks."""
    return _inert_prose(text)


def inert_markdown(text: str) -> str:
    """``text`` as Markdown that Obsidian renders inert, showing the same characters."""
    out: list[str] = []
    fence: tuple[str, int] | None = None  # the open block's fence character and length
    for line in text.split("\n"):
        found = _FENCE.match(line)
        if fence is None:
            # Only a fence at the start of a line is kept a fence: indented, it could belong to a
            # list item or quote that ends before its closing line, and what follows would then
            # render as Markdown; as prose, its backticks or tildes are escaped instead.
            if found and not found.group(1) and not (found.group(2)[0] == "`" and "`" in found.group(3)):
                _, marks, info = found.groups()
                fence = (marks[0], len(marks))
                out.append(f"{marks}{INERT_INFO}{' ' + info.strip() if info.strip() else ''}")
            else:
                out.append(_inert_prose(line))
            continue
        closes = (
            found is not None
            and found.group(2)[0] == fence[0]
            and len(found.group(2)) >= fence[1]
            and not found.group(3).strip()
        )
        if closes:
            fence = None
            out.append(line)
        else:
            out.append(line.replace("<%", f"<{WORD_JOINER}%"))
    if fence is not None:
        out.append(fence[0] * fence[1])
    return "\n".join(out)
