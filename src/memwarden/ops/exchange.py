"""Export and import through the service: the service's own content path (validation,
normalization, redaction) runs on every imported record, then memories keep their ids and times.

Import is all-or-nothing at the checking stage: every record is checked and built before the
first one is written, so a bad record (with its number named) changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import IO, TYPE_CHECKING, Any

from memwarden import validation as v
from memwarden.errors import InvalidInput
from memwarden.models import Caller, IndexText, Memory
from memwarden.ops.transfer import ImportRecord, export_header, memory_record, write_export

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.service import MemoryService

Progress = Callable[[int, int], None]
CHUNK = 1000
MAX_INLINE_EXPORT = 1000


@dataclass
class ImportReport:
    format: str
    records: int
    inserted: int = 0
    same_id: int = 0
    duplicate: int = 0
    redacted: int = 0
    ids: list[str] = field(default_factory=list)

    def to_dict(self, *, with_ids: bool = False) -> dict[str, Any]:
        out = {"format": self.format, "records": self.records, "inserted": self.inserted,
               "skipped_same_id": self.same_id, "skipped_duplicate": self.duplicate, "redacted": self.redacted}
        if with_ids:
            out["ids"] = self.ids
        return out


def _build(service: MemoryService, who: Caller, record: ImportRecord, project: str | None,
           now: datetime) -> tuple[Memory, IndexText, bool]:
    from memwarden.service import DEFAULT_PROJECT, _new_id, content_hash

    text, redactions = service.clean_content(record.content)
    title, title_rules = service.clean_title(record.title)
    tags, tag_rules = service.clean_tags(list(record.tags))
    redactions = (*redactions, *title_rules, *tag_rules)
    created = record.created_at or now
    updated = max(record.updated_at or created, created)
    memory = Memory(
        id=v.check_id(record.id) if record.id is not None else _new_id(),
        tenant=who.tenant,
        project=project or (v.check_project(record.project) if record.project is not None else DEFAULT_PROJECT),
        kind=v.check_kind(record.kind),
        title=title,
        tags=tags,
        content=text,
        content_hash=content_hash(text),
        pinned=bool(record.pinned),
        created_at=created,
        updated_at=updated,
        expires_at=record.expires_at,
        deleted_at=record.deleted_at,
        version=record.version,
        hit_count=record.hit_count,
        last_used_at=record.last_used_at,
        redactions=tuple(dict.fromkeys((*record.redactions, *redactions))),
    )
    memory = service.screened(memory)  # imported text is screened like any other write
    return memory, service._index_text(memory), bool(redactions)


def import_records(service: MemoryService, fmt: str, records: Sequence[ImportRecord], *, caller: Caller | None,
                   project: object | None = None, progress: Progress | None = None) -> ImportReport:
    """Check and build every record, then write them in batches; nothing is written on a bad record.

    Records whose id is already stored are skipped before the (costly) redaction and analysis:
    that is what makes importing the same file again cheap. Progress counts building as the
    first 80 % and writing as the rest.
    """
    who = caller or service.default_caller
    target = None if project is None else v.check_project(project)
    now = service.clock()
    store = service.maintainable("import")
    report = ImportReport(format=fmt, records=len(records))
    total = len(records)
    present = store.existing_ids([v.check_id(r.id) for r in records if r.id is not None]) if total else set()
    built: list[tuple[Memory, IndexText]] = []
    for number, record in enumerate(records, start=1):
        if record.id is not None and record.id.strip().upper() in present:
            report.same_id += 1
            continue
        try:
            memory, index, redacted = _build(service, who, record, target, now)
        except InvalidInput as exc:
            raise InvalidInput(f"memory #{number}: {exc.message}; nothing was imported", **exc.fields) from None
        report.redacted += redacted
        built.append((memory, index))
        if progress and number % CHUNK == 0:
            progress(number * 4 // 5, total)
    for start in range(0, len(built), CHUNK):
        chunk = built[start : start + CHUNK]
        for (memory, _), outcome in zip(chunk, store.import_memories(chunk), strict=True):
            if outcome == "inserted":
                report.inserted += 1
                report.ids.append(memory.id)
            elif outcome == "same_id":
                report.same_id += 1
            else:
                report.duplicate += 1
        if progress:
            progress(total * 4 // 5 + (start + len(chunk)) * (total - total * 4 // 5) // len(built), total)
    if progress:
        progress(total, total)
    return report


def _memories(service: MemoryService, who: Caller, project: str | None, include_deleted: bool) -> Iterable[Memory]:
    return service.maintainable("export").iter_memories(who.tenant, project=project, include_deleted=include_deleted)


def export_stream(service: MemoryService, out: IO[str], *, caller: Caller | None, project: object | None,
                  include_deleted: bool) -> int:
    who = caller or service.default_caller
    scope = None if project is None else v.check_project(project)
    header = export_header(who.tenant, scope, service.clock())
    return write_export(out, header, _memories(service, who, scope, bool(include_deleted)))


def export_document(service: MemoryService, *, caller: Caller | None, project: object | None,
                    include_deleted: bool, limit: int = MAX_INLINE_EXPORT) -> dict[str, Any]:
    """The export as one object, for callers that cannot take a file (at most ``limit`` memories)."""
    who = caller or service.default_caller
    scope = None if project is None else v.check_project(project)
    records = []
    for memory in _memories(service, who, scope, bool(include_deleted)):
        if len(records) == limit:
            raise InvalidInput(
                f"more than {limit} memories to export; pass a file name to write them to a file instead",
                field="name",
            )
        records.append(memory_record(memory))
    return {**export_header(who.tenant, scope, service.clock()), "count": len(records), "memories": records}
