"""``memwarden audit export``: audit rows as CSV or JSON, every column including the hashes.

JSON is one object: ``{"format": "memwarden.audit", "version": 1, "exported_at", "filters",
"head", "count", "records": [...]}``; CSV has one header line with the column names, and
``memory_ids`` / ``detail`` as JSON text. Rows are streamed, never held in memory all at once.

The CSV goes to spreadsheets, which run a cell that starts with ``=``, ``+``, ``-``, ``@`` (or a
tab or carriage return) as a formula (``=HYPERLINK(...)``, a DDE call ``=cmd|...``). Project,
actor, tenant and detail are written by whoever calls the server (a refused add is audited with
the project as sent), so such a text cell gets a leading apostrophe, which spreadsheets show as
text and do not display. The JSON export is exact: verify and tools read that one.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from memwarden.audit.base import AuditLog, AuditRecord
from memwarden.models import format_time, utcnow

FIELDS = (
    "seq",
    "at",
    "actor",
    "tenant",
    "project",
    "action",
    "outcome",
    "memory_ids",
    "result_count",
    "degraded",
    "redaction_count",
    "query_sha256",
    "query_len",
    "query_plain",
    "detail",
    "prev_hash",
    "hash",
)


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(value: Any) -> Any:
    """``value`` as a cell no spreadsheet evaluates: an apostrophe before a formula start."""
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_STARTS) else value


def _csv_row(record: AuditRecord) -> list[Any]:
    row = record.to_dict()
    return [
        spreadsheet_cell(json.dumps(row[f], ensure_ascii=False) if f in ("memory_ids", "detail") else row[f])
        for f in FIELDS
    ]


def _builtin_redact(text: str) -> str:
    from memwarden.govern.redactor import Redactor

    return Redactor().redact(text).text


def write_rows(
    out: IO[str],
    log: AuditLog,
    fmt: str,
    filters: dict[str, Any],
    *,
    action: str | None = None,
    redact: Callable[[str], str] = _builtin_redact,
    **query: Any,
) -> int:
    """Write the export of the rows ``log.records(**query)`` yields (of one ``action`` if given)
    to an open text stream, from one snapshot; the row count. The ``filters`` echoed in a JSON
    export are redacted (``redact``: the caller's redactor, the built-in rules by default): an
    actor filter may be an e-mail address; the rows are selected with the values as given."""
    filters = {k: redact(v) if isinstance(v, str) else v for k, v in filters.items()}
    count = 0
    with log.snapshot():
        head = log.head()
        records = (r for r in log.records(**query) if action is None or r.action == action)
        if fmt == "csv":
            writer = csv.writer(out, lineterminator="\n")
            writer.writerow(FIELDS)
            for record in records:
                writer.writerow(_csv_row(record))
                count += 1
            return count
        out.write(
            json.dumps(
                {
                    "format": "memwarden.audit",
                    "version": 1,
                    "exported_at": format_time(utcnow()),
                    "filters": filters,
                    "head": {"seq": head.seq, "hash": head.hash},
                }
            )[:-1]
        )
        out.write(', "records": [')
        for record in records:
            out.write(("," if count else "") + "\n  " + json.dumps(record.to_dict(), ensure_ascii=False))
            count += 1
        out.write(f'\n], "count": {count}}}\n')
    return count


def write_audit_export(
    log: AuditLog,
    out: Path | None,
    *,
    fmt: str,
    since: datetime | None,
    until: datetime | None,
    tenant: str | None,
    actor: str | None,
    filters: dict[str, Any],
    redact: Callable[[str], str] = _builtin_redact,
) -> int:
    """Write the matching rows to ``out`` (a new file; None: standard output); the row count."""
    query: dict[str, Any] = {"since": since, "until": until, "tenant": tenant, "actor": actor}
    if out is None:
        return write_rows(sys.stdout, log, fmt, filters, redact=redact, **query)
    tmp = out.with_name(out.name + ".partial")
    try:
        with tmp.open("x", encoding="utf-8", newline="") as handle:
            count = write_rows(handle, log, fmt, filters, redact=redact, **query)
        tmp.replace(out)
    finally:
        tmp.unlink(missing_ok=True)
    return count
