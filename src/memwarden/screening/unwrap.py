"""What wrappers and encodings hide: the text a model reads inside markup, JSON, YAML and base64.

A model reads the title of a Markdown link, the alt text of an image, the body of a fenced
```` ```system ```` block, the ``content`` of ``{"role": "system", …}``, the inside of
``<details>`` and a base64 run it is asked to decode, while a phrase rule sees them buried in
syntax (``"SYSTEM: …"`` inside a link title is not at the start of a line, and base64 is no
words at all). ``exposed_text`` returns the text followed by one line per hidden piece, each
written the way a reader would take it (a role becomes ``system: <content>`` at the start of a
line), so the phrase rules and the model see what the reader sees. Nothing here changes what is
stored.

Every scan is a single regular expression without nested quantifiers (linear time); base64 and
URL runs come from redaction's own decoder (``govern.layers.decoded_runs``).
"""

from __future__ import annotations

import itertools
import json
import re

from memwarden.govern.layers import decoded_runs

_ROLES = r"(?:system|developer|assistant|user|tool|function|human|ai)"
# Markdown: image alt text, a link's or a reference definition's title.
_MD_ALT = re.compile(r"!\[([^\]\n]{1,2000})\]")
_MD_TITLE = re.compile(
    r"\]\(\s*<?[^\s)>]*>?\s+(?:\"([^\"\n]{1,2000})\"|'([^'\n]{1,2000})'|\(([^)\n]{1,2000})\))\s*\)"
)
_MD_REF_TITLE = re.compile(
    r"(?m)^\s*\[[^\]\n]+\]:\s*\S+\s+(?:\"([^\"\n]{1,2000})\"|'([^'\n]{1,2000})'|\(([^)\n]{1,2000})\))"
)
# A fenced block whose info string names a role: ```system, ~~~ assistant, ```system-prompt.
_FENCE_ROLE = re.compile(
    r"(?m)^\s*(?:`{3,}|~{3,})\s*(system(?:[-_ ]?prompt)?|developer|assistant|instructions?|sys)\b[^\n]*\n"
    r"((?:(?!\s*(?:`{3}|~{3}))[^\n]*(?:\n|\Z)){0,200})"
)
# HTML: tags (replaced by line breaks, so "Assistant:" after a </summary> starts a line) and the
# attributes browsers show as text (title, alt, aria-label, placeholder).
_HTML_TAG = re.compile(r"</?[a-zA-Z][^<>]{0,2000}>")
_HTML_TEXT_ATTR = re.compile(
    r"\b(?:title|alt|aria-label|placeholder|data-[a-z-]{1,40})\s*=\s*(?:\"([^\"]{1,2000})\"|'([^']{1,2000})')",
    re.I,
)
_HTML_ENTITY = re.compile(r"&(?:#\d{1,7}|#x[0-9a-fA-F]{1,6}|[a-zA-Z]{2,10});")
# JSON: a role and the content string near it, in either order.
_JSON_ROLE = re.compile(rf"\"role\"\s*:\s*\"({_ROLES})\"", re.I)
_JSON_CONTENT = re.compile(
    r"\"(?:content|text|message|prompt|instructions?)\"\s*:\s*(\"(?:[^\"\\]|\\.){0,8000}\")", re.I
)
# YAML: a role key and the content key near it (``- role: system`` / ``content: …``).
_YAML_ROLE = re.compile(rf"(?im)^[ \t-]*role\s*:\s*[\"']?({_ROLES})[\"']?\s*$")
_YAML_CONTENT = re.compile(
    r"(?im)^[ \t-]*(?:content|text|message|prompt|instructions?)\s*:\s*[|>]?[-+]?\s*(.*)$"
)
# How far from a role key its content may be (characters), in JSON and YAML, and how many role
# keys are read: a conversation pasted whole shows its shape in the first few, and the cap keeps
# a text made of thousands of role keys from costing a search each.
_NEAR = 600
_MAX_ROLES = 32


def _json_string(literal: str) -> str:
    try:
        value = json.loads(literal)
    except ValueError:
        return literal.strip('"')
    return value if isinstance(value, str) else literal


def _groups(match: re.Match[str]) -> str:
    return next((g for g in match.groups() if g), "")


def _role_lines(text: str) -> list[str]:
    """``role: content`` for each role key of JSON or YAML chat messages in ``text``."""
    lines: list[str] = []
    if '"role"' in text or "'role'" in text:
        for match in itertools.islice(_JSON_ROLE.finditer(text), _MAX_ROLES):
            lo, hi = max(0, match.start() - _NEAR), match.end() + _NEAR
            content = _JSON_CONTENT.search(text, match.end(), hi) or _JSON_CONTENT.search(
                text, lo, match.start()
            )
            body = _json_string(content.group(1)) if content else ""
            lines.append(f"{match.group(1).lower()}: {body}")
    if "role" in text:
        for match in itertools.islice(_YAML_ROLE.finditer(text), _MAX_ROLES):
            content = _YAML_CONTENT.search(text, match.end(), match.end() + _NEAR)
            if content is None:
                content = _YAML_CONTENT.search(text, max(0, match.start() - _NEAR), match.start())
            lines.append(f"{match.group(1).lower()}: {content.group(1).strip() if content else ''}")
    return lines


def _markup_lines(text: str) -> list[str]:
    """The pieces of Markdown and HTML a reader sees apart from the running text."""
    lines: list[str] = []
    if "](" in text or "![" in text or "]:" in text:
        lines += [m.group(1) for m in _MD_ALT.finditer(text)]
        lines += [_groups(m) for m in _MD_TITLE.finditer(text)]
        lines += [_groups(m) for m in _MD_REF_TITLE.finditer(text)]
    if "```" in text or "~~~" in text:
        for match in _FENCE_ROLE.finditer(text):
            role = (
                "system"
                if match.group(1).lower().startswith(("sys", "instruction"))
                else match.group(1).lower()
            )
            lines.append(f"{role}: {match.group(2).strip()}")
    if "<" in text and _HTML_TAG.search(text):
        import html  # only for text holding markup

        lines += [html.unescape(_groups(m)) for m in _HTML_TEXT_ATTR.finditer(text)]
        lines.append(html.unescape(_HTML_TAG.sub("\n", text)))
    elif "&" in text and _HTML_ENTITY.search(text):
        import html

        lines.append(html.unescape(text))
    return lines


def exposed_text(text: str, depth: int = 2) -> str:
    """``text``, then a line for each thing its wrappers hide (decoded runs are unwrapped again,
    ``depth`` levels deep: base64 of a JSON chat message is read as the message)."""
    lines = _markup_lines(text) + _role_lines(text)
    if depth > 0:
        for _start, _end, decoded in decoded_runs(text):
            lines.append(exposed_text(decoded, depth - 1))
    pieces = [line.strip() for line in lines if line and line.strip()]
    return "\n".join([text, *pieces]) if pieces else text


__all__ = ["exposed_text"]
