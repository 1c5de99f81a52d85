"""Export and import: the content path of every write (``Intake``: validation, normalization,
redaction) runs on every imported record, then memories keep their ids and times.

Import is all-or-nothing at the checking stage: every record is checked and built before the
first one is written, so a bad record (with its number named) changes nothing.

Ids are tenant-safe: one tenant's import can never take, skip or reveal another tenant's id.
A record whose id the caller's tenant already holds is skipped (``skipped_same_id``: importing
the same file again changes nothing). Otherwise the local operator (the default caller: CLI,
stdio) keeps the file's id, unless another tenant holds it: then the record gets a fresh id
(counted in ``new_ids``). Any other caller (an HTTP token of some tenant) never places a
file's id as it is: the record is stored under ``tenant_import_id(tenant, id)``, an id derived
from its tenant and the file's id, so the answer is the same whether the id exists in another
tenant or nowhere, and importing the same file again finds its own derived ids.

A user's clear of a memory's screening flags travels with it: the export writes
``screening_cleared`` (the digest of the text the user cleared) for a memory whose clear still
holds, and an import that may keep it (``keep_cleared``: ``memwarden import`` run by the local
operator, never an agent's tool call) stores the memory unflagged and remembers the clear, when
the imported text has that digest. Every other import screens the memory like any write.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import IO, TYPE_CHECKING, Any

from memwarden import validation as v
from memwarden.errors import InvalidInput
from memwarden.intake import DEFAULT_PROJECT, Intake, content_hash, new_id
from memwarden.models import Caller, IndexText, Memory
from memwarden.ops.transfer import ImportRecord, export_header, memory_record, write_export
from memwarden.store.base import CLEARED_FLAGS_STATE, MaintainableStore, StateStore

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.audit.write_audit import WriteAudit

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
    new_ids: int = 0
    ids: list[str] = field(default_factory=list)
    # Records that carried a user's cleared flags, and the inserted memories whose clear was kept.
    cleared_in_file: int = 0
    kept_cleared: list[str] = field(default_factory=list)
    # For the audit rows, not the report: redaction matches replaced, batch transactions written.
    redaction_matches: int = 0
    batches: int = 0

    def to_dict(self, *, with_ids: bool = False) -> dict[str, Any]:
        out = {
            "format": self.format,
            "records": self.records,
            "inserted": self.inserted,
            "skipped_same_id": self.same_id,
            "skipped_duplicate": self.duplicate,
            "redacted": self.redacted,
            "new_ids": self.new_ids,
        }
        if self.cleared_in_file:
            out["kept_cleared"] = len(self.kept_cleared)
        if with_ids:
            out["ids"] = self.ids
        return out


_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def tenant_import_id(tenant: str, original: str) -> str:
    """The id a tenant's import stores ``original`` under: the original's time part (so ids
    still sort by creation time) and 80 bits of SHA-256 over the tenant and the original."""
    digest = int.from_bytes(hashlib.sha256(f"{tenant}\0{original}".encode()).digest()[:10], "big")
    tail = "".join(_CROCKFORD[(digest >> shift) & 31] for shift in range(75, -1, -5))
    return original[:10] + tail


def _held(store: Any, tenant: str, ids: Sequence[str]) -> set[str]:
    """Which of ``ids`` the tenant holds (deleted or not)."""
    found: set[str] = set()
    for start in range(0, len(ids), 500):
        found.update(m.id for m in store.get_many(tenant, ids[start : start + 500]))
    return found


def _build(
    intake: Intake, who: Caller, record: ImportRecord, project: str | None, now: datetime, memory_id: str
) -> tuple[Memory, IndexText, bool, int]:
    """The memory of one record, its index text, whether a rule redacted it and the matches
    replaced in it."""
    body = intake.clean_content(record.content)
    title = intake.clean_title(record.title)
    tags, tag_rules = intake.clean_tags(list(record.tags))
    context = intake.clean_context(record.context)
    text = body.text
    redactions = (*body.rules, *title.rules, *tag_rules, *context.rules)
    scope = project or intake.clean_project(record.project) or DEFAULT_PROJECT
    created = record.created_at or now
    updated = max(record.updated_at or created, created)
    memory = Memory(
        id=memory_id,
        tenant=who.tenant,
        project=scope,
        kind=intake.clean_kind(record.kind),
        title=title.text,
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
        # Rule names from the file are kept only when they are rules this redactor has: the field
        # is caller-written text like any other.
        redactions=tuple(dict.fromkeys((*intake.known_rules(record.redactions), *redactions))),
        context=context.text,
        thread=intake.clean_thread(record.thread),
        occurred_at=v.check_occurred_at(record.occurred_at, now=now) or created,
        # Provenance is what this database saw: an import by this caller. A file's own
        # ``source``/``actor`` are claims its writer made, so they are not carried over.
        source="import",
        actor=who.actor,
    )
    memory = intake.screened(memory)  # imported text is screened like any other write
    return memory, intake.index_text(memory), bool(redactions), body.matches + title.matches + context.matches


def import_records(
    store: MaintainableStore,
    intake: Intake,
    fmt: str,
    records: Sequence[ImportRecord],
    *,
    caller: Caller,
    now: datetime,
    project: object | None = None,
    progress: Progress | None = None,
    operator: bool = False,
    keep_cleared: bool = False,
    audit: WriteAudit | None = None,
) -> ImportReport:
    """Check and build every record, then write them in batches; nothing is written on a bad record.

    Records whose id the caller's tenant already holds are skipped before the (costly)
    redaction and analysis: that is what makes importing the same file again cheap. ``operator``:
    the caller is the local operator, who may keep the file's ids (see the module's docstring).
    Progress counts building as the first 80 % and writing as the rest. ``audit``: the row
    each batch transaction appends (with the redaction matches of the whole import).
    ``keep_cleared``: keep the users' cleared flags the file carries (see the module's docstring).
    """
    from memwarden.memories import screened_digest

    who = caller
    target = intake.clean_project(project)
    report = ImportReport(format=fmt, records=len(records))
    report.cleared_in_file = sum(r.screening_cleared is not None for r in records)
    total = len(records)
    asked = [None if r.id is None else v.check_id(r.id) for r in records]
    derived = [a if operator or a is None else tenant_import_id(who.tenant, a) for a in asked]
    placed = [i for i in {*asked, *derived} if i is not None]
    own = _held(store, who.tenant, placed) if placed else set()
    elsewhere = (
        store.existing_ids([i for i in derived if i is not None and i not in own]) if placed else set()
    )
    built: list[tuple[Memory, IndexText]] = []
    cleared: dict[str, str] = {}  # memory id -> the digest of the clear kept
    for number, (record, memory_id) in enumerate(zip(records, derived, strict=True), start=1):
        if memory_id is not None and (memory_id in own or asked[number - 1] in own):
            report.same_id += 1  # the tenant holds it already (under the file's id or its own)
            continue
        if memory_id is None or memory_id in elsewhere:
            memory_id = new_id()  # another tenant holds it: never skip, overwrite or reveal it
        report.new_ids += record.id is not None and memory_id != asked[number - 1]
        try:
            memory, index, redacted, matches = _build(intake, who, record, target, now, memory_id)
        except InvalidInput as exc:
            raise InvalidInput(
                f"memory #{number}: {exc.message}; nothing was imported", **exc.fields
            ) from None
        report.redacted += redacted
        report.redaction_matches += matches
        if keep_cleared and record.screening_cleared == screened_digest(memory):
            if memory.injection_flags:  # the user read this very text and vouched for it
                memory = memory._replace(injection_flags=())
                index = intake.index_text(memory)
            cleared[memory.id] = record.screening_cleared
        built.append((memory, index))
        if progress and number % CHUNK == 0:
            progress(number * 4 // 5, total)
    if audit is not None:
        audit = audit.with_redactions(report.redaction_matches)
    for start in range(0, len(built), CHUNK):
        chunk = built[start : start + CHUNK]
        report.batches += 1
        # Remembered before the memories are written, as ``Memories.clear_flags`` does, so the
        # background embedder never scores them unremembered; taken back for those not written.
        before = _remember_cleared(store, {m.id: cleared[m.id] for m, _ in chunk if m.id in cleared})
        for (memory, _), outcome in zip(chunk, store.import_memories(chunk, audit=audit), strict=True):
            if memory.id in before:
                if outcome == "inserted":
                    report.kept_cleared.append(memory.id)
                else:
                    _forget_cleared(store, memory.id, before[memory.id])
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


def _remember_cleared(store: object, digests: dict[str, str]) -> dict[str, str | None]:
    """Store the cleared-flag rows of ``digests`` (memory id -> digest); each row's value before."""
    if not digests or not isinstance(store, StateStore):
        return {}
    held = store.states(CLEARED_FLAGS_STATE)
    before = {i: held.get(CLEARED_FLAGS_STATE + i) for i in digests}
    for memory_id, digest in digests.items():
        store.put_state(CLEARED_FLAGS_STATE + memory_id, digest)
    return before


def _forget_cleared(store: object, memory_id: str, value: str | None) -> None:
    """Put a cleared-flag row back as it was before an import that did not write its memory."""
    assert isinstance(store, StateStore)
    if value is None:
        store.delete_state(CLEARED_FLAGS_STATE + memory_id)
    else:
        store.put_state(CLEARED_FLAGS_STATE + memory_id, value)


def _memories(
    store: MaintainableStore, who: Caller, project: str | None, include_deleted: bool
) -> Iterable[Memory]:
    return store.iter_memories(who.tenant, project=project, include_deleted=include_deleted)


def _records(
    store: MaintainableStore, who: Caller, project: str | None, include_deleted: bool
) -> Iterable[dict[str, Any]]:
    """The export records of the caller's memories, each with ``screening_cleared`` when a
    user's clear of its flags holds for its text now."""
    from memwarden.memories import screened_digest

    held = store.states(CLEARED_FLAGS_STATE) if isinstance(store, StateStore) else {}
    for memory in _memories(store, who, project, include_deleted):
        record = memory_record(memory)
        digest = held.get(CLEARED_FLAGS_STATE + memory.id)
        if digest is not None and not memory.injection_flags and digest == screened_digest(memory):
            record["screening_cleared"] = digest
        yield record


def export_stream(
    store: MaintainableStore,
    out: IO[str],
    *,
    caller: Caller,
    project: str | None,
    include_deleted: bool,
    now: datetime,
) -> int:
    """Write the caller's memories (a checked project or all) as a memwarden export to ``out``."""
    header = export_header(caller.tenant, project, now)
    return write_export(out, header, _records(store, caller, project, include_deleted))


def export_document(
    store: MaintainableStore,
    *,
    caller: Caller,
    project: str | None,
    include_deleted: bool,
    now: datetime,
    limit: int = MAX_INLINE_EXPORT,
) -> dict[str, Any]:
    """The export as one object, for callers that cannot take a file (at most ``limit`` memories)."""
    who = caller
    scope = project
    records: list[dict[str, Any]] = []
    for record in _records(store, who, scope, include_deleted):
        if len(records) == limit:
            raise InvalidInput(
                f"more than {limit} memories to export; pass a file name to write them to a file instead",
                field="name",
            )
        records.append(record)
    return {**export_header(who.tenant, scope, now), "count": len(records), "memories": records}
