"""Importers for the files other memory tools write, turned into ``ImportRecord`` values.

- ``mcp-memory``: the MCP reference memory server's knowledge graph (``memory.jsonl``): one JSON
  object per line, ``{"type": "entity", "name", "entityType", "observations": [...]}`` or
  ``{"type": "relation", "from", "to", "relationType"}``. Each observation becomes one memory
  ("<name>: <observation>", titled with the entity, tagged with its type); each relation
  becomes one memory ("<from> <relationType> <to>", tagged ``relation``).
- ``mem0``: mem0's memory export (``get_all`` output): a list, or an object with ``results``
  (or ``memories``), of ``{"id", "memory", "metadata", "categories", "created_at", "updated_at"}``.
- ``memorry``: memorry-style JSON dumps: a list, or an object with ``memories``, of
  ``{"content" | "text", "id", "scope" | "project", "tags", "kind" | "type", "title", "pinned",
  "created_at", "updated_at", "expires_at"}``.

Foreign ids are not ULIDs, so imported memories get new ids; a re-import is still a no-op
because exact duplicates (same project and content) are skipped. A value that fits is passed on whole (the import
path checks and redacts it); a longer tag or entity title is redacted whole before it is cut
to fit (``_fit``), never cut first.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memwarden.errors import InvalidInput
from memwarden.identifiers import MAX_TAG_CHARS
from memwarden.models import KINDS
from memwarden.ops.export_format import memwarden_records
from memwarden.ops.record_fields import field_value, time_value
from memwarden.ops.transfer import FORMATS, ImportRecord, parse_json
from memwarden.validation import MAX_TITLE_CHARS

MAX_TAG = MAX_TAG_CHARS


Redact = Callable[[str], str]


def builtin_redact(text: str) -> str:
    """The built-in rules (the default when the caller passes no redactor of its own)."""
    from memwarden.govern.redactor import Redactor

    return Redactor().redact(text).text


def _fit(text: str, limit: int, redact: Redact) -> str:
    """``text`` (whitespace folded) within ``limit`` characters. A longer one is redacted whole
    first and then cut at a space: cut first, a value written in groups (a card, an IBAN)
    would keep groups no rule recognises any more; redacted first, its placeholder has no space
    and is kept or dropped whole. What is kept is redacted again, with the rest, downstream."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text  # whole: the import path checks and redacts it as it is
    head = redact(text)[: limit + 1]
    return head[: head.rindex(" ")].rstrip() if " " in head else ""


def _tag(value: object, redact: Redact) -> str | None:
    """A foreign category or type as a tag. One over a tag's length keeps the words before the
    first thing redaction finds in the whole value, cut at a space (a tag holds no placeholder);
    one that fits is passed whole, and refused downstream when a rule matches it."""
    text = " ".join(str(value).split())
    if len(text) > MAX_TAG:
        text = _fit(redact(text).split("[REDACTED:", 1)[0], MAX_TAG, redact)
    return text or None


def mcp_memory_records(text: str, redact: Redact = builtin_redact) -> list[ImportRecord]:
    records: list[ImportRecord] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        item = parse_json(line, what=where)
        if not isinstance(item, dict):
            raise InvalidInput(f"{where} is not a JSON object", field="data")
        kind = item.get("type")
        if kind == "entity":
            name = field_value(item, "name", where, (str,), required=True)
            entity_type = field_value(item, "entityType", where, (str,), default="")
            observations = field_value(item, "observations", where, (list,), default=[])
            tags = tuple(t for t in (_tag(entity_type, redact),) if t)
            for observation in observations:
                if not isinstance(observation, str):
                    raise InvalidInput(f"{where}: observations must be strings", field="observations")
                records.append(
                    ImportRecord(
                        content=f"{name}: {observation}", title=_fit(name, MAX_TITLE_CHARS, redact), tags=tags
                    )
                )
        elif kind == "relation":
            source = field_value(item, "from", where, (str,), required=True)
            target = field_value(item, "to", where, (str,), required=True)
            relation = field_value(item, "relationType", where, (str,), required=True)
            records.append(ImportRecord(content=f"{source} {relation} {target}", tags=("relation",)))
        else:
            raise InvalidInput(f'{where}: type must be "entity" or "relation", got {kind!r}', field="type")
    return records


def _items(document: Any, keys: tuple[str, ...], what: str) -> list[Any]:
    if isinstance(document, list):
        return document
    if isinstance(document, dict):
        for key in keys:
            if isinstance(document.get(key), list):
                return list(document[key])
    raise InvalidInput(
        f"not a {what} file: expected a list, or an object with {' or '.join(keys)}", field="data"
    )


def mem0_records(document: Any, redact: Redact = builtin_redact) -> list[ImportRecord]:
    records = []
    for number, item in enumerate(_items(document, ("results", "memories"), "mem0"), start=1):
        where = f"memory #{number}"
        if not isinstance(item, dict):
            raise InvalidInput(f"{where} is not an object", field="data")
        metadata = field_value(item, "metadata", where, (dict,), default={})
        categories = field_value(item, "categories", where, (list,), default=[])
        tags = [t for t in (_tag(c, redact) for c in categories) if t]
        if isinstance(metadata.get("type"), str) and (tag := _tag(metadata["type"], redact)):
            tags.append(tag)
        created = time_value(item, "created_at", where)
        records.append(
            ImportRecord(
                content=field_value(item, "memory", where, (str,), required=True),
                tags=tuple(dict.fromkeys(tags)),
                created_at=created,
                updated_at=time_value(item, "updated_at", where) or created,
            )
        )
    return records


def memorry_records(document: Any, redact: Redact = builtin_redact) -> list[ImportRecord]:
    records = []
    for number, item in enumerate(_items(document, ("memories", "items"), "memorry"), start=1):
        where = f"memory #{number}"
        if not isinstance(item, dict):
            raise InvalidInput(f"{where} is not an object", field="data")
        content = item.get("content", item.get("text"))
        if not isinstance(content, str):
            raise InvalidInput(f"{where}: missing field 'content' (or 'text')", field="content")
        project = item.get("project", item.get("scope"))
        if project is not None and not isinstance(project, str):
            raise InvalidInput(f"{where}: scope must be a string", field="scope")
        kind = item.get("kind", item.get("type", "fact"))
        tags = field_value(item, "tags", where, (list,), default=[])
        created = time_value(item, "created_at", where)
        records.append(
            ImportRecord(
                content=content,
                project=project,
                kind=kind if kind in KINDS else "note",
                title=field_value(item, "title", where, (str,), default=""),
                tags=tuple(t for t in (_tag(x, redact) for x in tags) if t),
                pinned=field_value(item, "pinned", where, (bool,), default=False),
                created_at=created,
                updated_at=time_value(item, "updated_at", where) or created,
                expires_at=time_value(item, "expires_at", where),
            )
        )
    return records


def _detect(document: Any) -> str:
    if isinstance(document, dict):
        if "format" in document or ("memories" in document and "version" in document):
            return "memwarden"
        if document.get("type") in ("entity", "relation"):
            return "mcp-memory"
        if "results" in document:
            return "mem0"
    items = (
        document
        if isinstance(document, list)
        else (document.get("memories") if isinstance(document, dict) else None)
    )
    if isinstance(items, list):
        first = items[0] if items else {}
        return (
            "mem0" if isinstance(first, dict) and "memory" in first and "content" not in first else "memorry"
        )
    raise InvalidInput(
        "cannot tell what kind of file this is; pass the format (memwarden, mcp-memory, mem0 or memorry)",
        field="format",
    )


def read_records(
    text: str, fmt: str = "auto", *, redact: Redact = builtin_redact
) -> tuple[str, list[ImportRecord]]:
    """Parse an import file's text as ``fmt`` (or the detected format): (format, records).
    ``redact`` (the caller's redactor; the built-in rules by default) sees every over-long value
    whole before it is cut to fit."""
    if fmt not in FORMATS:
        raise InvalidInput(f"unknown import format {fmt!r}; use {', '.join(FORMATS)}", field="format")
    if fmt == "mcp-memory":
        return fmt, mcp_memory_records(text, redact)
    try:
        document = parse_json(text)
    except InvalidInput:
        first = next((line for line in text.splitlines() if line.strip()), "")
        if fmt == "auto" and first.lstrip().startswith("{") and '"type"' in first:
            return "mcp-memory", mcp_memory_records(text, redact)  # JSON Lines: one object per line
        raise
    chosen = _detect(document) if fmt == "auto" else fmt
    if chosen == "mcp-memory":
        return chosen, mcp_memory_records(text, redact)
    if chosen == "memwarden":
        return chosen, memwarden_records(document)
    if chosen == "mem0":
        return chosen, mem0_records(document, redact)
    return chosen, memorry_records(document, redact)
