"""memwarden's export format (version 1): writing it, and reading any supported import file.

The format is one JSON object (described once in ``export_format.py``, which generates
docs/export-format.schema.json; explained in docs/export-import.md)::

    {"format": "memwarden.export", "version": 1, "exported_at": "…Z", "tenant": "…",
     "project": null, "count": 2, "memories": [{"id": "01…", "content": "…", …}, …]}

Reading checks everything before anything is written: size (before reading a byte), JSON
syntax, format and version, and every record's fields. A bad file is refused whole, with the
record number and field named.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from memwarden.errors import InvalidInput
from memwarden.models import Memory, format_time
from memwarden.os_error_words import cannot_read

FORMAT = "memwarden.export"
VERSION = 1
FORMATS = ("auto", "memwarden", "mcp-memory", "mem0", "memorry")
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
EXPORT_FIELDS = (
    "id",
    "project",
    "kind",
    "title",
    "tags",
    "content",
    "pinned",
    "created_at",
    "updated_at",
    "expires_at",
    "deleted_at",
    "version",
    "hit_count",
    "last_used_at",
    "redactions",
    "context",
    "thread",
    "occurred_at",
    "source",
    "actor",
)


@dataclass(frozen=True, slots=True)
class ImportRecord:
    """One memory to import, checked for shape; the service validates and redacts content.

    ``id`` and the times are None when the source has none (a new id / now is used).
    """

    content: str
    project: str | None = None
    kind: str = "fact"
    title: str = ""
    tags: tuple[str, ...] = ()
    pinned: bool = False
    id: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    expires_at: datetime | None = None
    deleted_at: datetime | None = None
    version: int = 1
    hit_count: int = 0
    last_used_at: datetime | None = None
    redactions: tuple[str, ...] = ()
    context: str = ""
    thread: str = ""
    occurred_at: datetime | None = None
    # A user's clear of the memory's screening flags where it was exported: the digest of the
    # text screening read (``memories.screened_digest``); None when none was cleared.
    screening_cleared: str | None = None


def safe_file_name(name: object, *, field: str = "name") -> str:
    """A plain file name inside a server-chosen folder: no separators, no ``..``, no hidden files."""
    if not isinstance(name, str) or not _SAFE_NAME.match(name) or ".." in name:
        raise InvalidInput(
            f"{field} must be a plain file name such as memories.json (letters, digits, '.', '_', '-'; "
            f"no folders, no '..'); got {name!r}",
            field=field,
        )
    return name


def tenant_folder_name(tenant: str) -> str:
    """A folder name of its own for each tenant: a readable part (the tenant's name cut to safe
    characters) and 12 hex digits of its SHA-256, so no two tenants share a folder, also where
    names differ only in case or in characters that were cut."""
    import hashlib

    readable = re.sub(r"[^A-Za-z0-9._-]", "_", tenant)[:40].lstrip(".") or "tenant"
    return f"{readable}-{hashlib.sha256(tenant.encode('utf-8', 'surrogatepass')).hexdigest()[:12]}"


def _unreadable(path: Path, exc: OSError) -> str:
    return cannot_read(
        path,
        exc,
        what="import file",
        missing_fix="check the name (an export writes one: `memwarden export --out FILE`, or memory_export)",
    )


def read_limited(path: Path, max_bytes: int) -> str:
    """The text of ``path``, refused by size before it is read, and as invalid UTF-8."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InvalidInput(_unreadable(path, exc), field="file") from None
    if not path.is_file():
        raise InvalidInput(
            f"{path} is not a regular file (a folder?): give the path of the file to import",
            field="file",
        )
    if size > max_bytes:
        raise InvalidInput(
            f"{path} is {size} bytes, over the import limit of {max_bytes} (MEMWARDEN_IMPORT_MAX_BYTES); "
            "split the file or raise the limit",
            field="file",
        )
    try:
        with path.open("rb") as handle:
            raw = handle.read(max_bytes + 1)
    except OSError as exc:  # no permission to read it, or it vanished since the size check
        raise InvalidInput(_unreadable(path, exc), field="file") from None
    if len(raw) > max_bytes:  # the file grew after the size check
        raise InvalidInput(f"{path} is over the import limit of {max_bytes} bytes", field="file")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InvalidInput(
            f"{path} is not UTF-8 text (byte {exc.start}); save it as UTF-8", field="file"
        ) from None


def parse_json(text: str, *, what: str = "import data") -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"{what} is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}): import a file "
            f"an export wrote, or one in a supported format ({', '.join(FORMATS[1:])})",
            field="data",
        ) from None
    except RecursionError:
        raise InvalidInput(f"{what} is nested too deeply to be an export", field="data") from None
    except ValueError:  # the only other failure of json.loads: a number past int()'s digit limit
        import sys

        raise InvalidInput(
            f"{what} holds a number of more than {sys.get_int_max_str_digits()} digits, which is no "
            "value an export holds",
            field="data",
        ) from None


# -- writing ------------------------------------------------------------------------------------


def export_header(tenant: str, project: str | None, now: datetime) -> dict[str, Any]:
    from memwarden.version import __version__

    return {
        "format": FORMAT,
        "version": VERSION,
        "exported_at": format_time(now),
        "memwarden_version": __version__,
        "tenant": tenant,
        "project": project,
    }


def memory_record(memory: Memory) -> dict[str, Any]:
    full = memory.to_dict(include_context=True)
    return {key: full[key] for key in EXPORT_FIELDS}


def write_export(out: IO[str], header: dict[str, Any], records: Iterable[dict[str, Any]]) -> int:
    """Stream an export's records (``memory_record``) to ``out`` (never all held at once); the
    count written."""
    head = json.dumps(header, ensure_ascii=False)[:-1]
    out.write(head + ', "memories": [\n')
    count = 0
    for record in records:
        out.write((",\n" if count else "") + json.dumps(record, ensure_ascii=False))
        count += 1
    out.write(f'\n], "count": {count}}}\n')
    return count
