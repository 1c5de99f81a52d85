"""Copy a SQLite database to an empty PostgreSQL database and prove the copy is whole.

``memwarden migrate --to postgresql://…`` reads the SQLite database of ``MEMWARDEN_DB`` (or
``--db``) and writes, into a new, empty PostgreSQL database: every memory of every tenant
(deleted ones too, with their ids, times, versions and usage), their vectors (each in its own
space, then one HNSW build per space) and the audit chain row for row (the same hashes: the
database's triggers check that each row continues the chain). Then it verifies: row counts
equal on both sides, the copied chain verifies and ends at the source's head. Only after that
it appends one audit row on the new database saying what was migrated.

Before it writes anything it marks the target ``incomplete:migrate`` (``ops/markers.py``) and
removes the mark only after the verification passed: a migrate that was killed, crashed or
failed leaves the mark, ``health`` on the target reports it with what to do, and a second
migrate into that database refuses with the same explanation instead of "not empty".

Nothing is written to the source. A destination that already holds memories or audit rows is
refused, and so is a source whose audit log was pruned (its chain starts at a checkpoint,
which the new database's append-only log cannot take as its start).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memwarden.audit.base import AuditLog, AuditRecord, CopyTargetLog
from memwarden.config import Settings
from memwarden.errors import InvalidInput, StorageError
from memwarden.models import IndexText, Memory
from memwarden.ops.markers import incomplete_operations, mark_complete, mark_incomplete
from memwarden.settings_paths import is_postgres_url
from memwarden.store.base import CopySource, CopyTarget
from memwarden.store.postgres.connect import redact_url

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.service import MemoryService

BATCH = 2000


def migrate_to_postgres(
    settings: Settings, to_url: str, *, progress: Callable[[str, int], None] | None = None
) -> dict[str, Any]:
    """Copy the configured SQLite database to ``to_url``; the verification report."""
    from memwarden.app import build_service
    from memwarden.audit import open_audit_log, verify_database
    from memwarden.audit.base import AuditEvent
    from memwarden.models import utcnow

    source_url = settings.database_url()
    if is_postgres_url(source_url):
        raise InvalidInput(
            "migrate copies a SQLite database: point MEMWARDEN_DB (or --db) at the SQLite file", field="db"
        )
    if not is_postgres_url(to_url):
        raise InvalidInput("--to must be a postgresql:// URL of a new, empty database", field="to")
    tell = progress or (lambda stage, n: None)
    source = build_service(settings, embeddings=False)
    target = build_service(settings.model_copy(update={"db": to_url}), embeddings=False)
    src, dst = source.store, target.store
    source_log = open_audit_log(source_url, readonly=True)
    target_log = open_audit_log(to_url)
    try:
        if (
            not isinstance(src, CopySource)
            or not isinstance(dst, CopyTarget)
            or not isinstance(target_log, CopyTargetLog)
        ):
            raise StorageError(f"the {dst.backend} backend cannot take a copy of the {src.backend} database")
        unfinished = next((m for m in incomplete_operations(dst) if m["operation"] == "migrate"), None)
        if unfinished is not None:
            counts = dst.table_counts()
            raise InvalidInput(
                f"{redact_url(to_url)} holds an unfinished migrate (started {unfinished.get('started_at')} on "
                f"{unfinished.get('host')}, {counts.get('memories', 0)} memories and {counts.get('audit_log', 0)} "
                f"audit rows copied before it stopped): {unfinished['advice']}",
                field="to",
            )
        before = dst.table_counts()
        if before.get("memories", 0) or before.get("audit_log", 0):
            raise InvalidInput(
                f"{redact_url(to_url)} is not empty ({before.get('memories', 0)} memories, "
                f"{before.get('audit_log', 0)} audit rows): migrate into a new, empty database",
                field="to",
            )
        if source_log.checkpoints():
            raise InvalidInput(
                "the source's audit log was pruned (it starts at a checkpoint); the new database's log "
                "must start at its first row, so this database cannot be migrated with its chain",
                field="db",
            )
        mark_incomplete(dst, "migrate", source=source_url, by=settings.actor)  # first …
        memories = _copy_memories(src, dst, target, tell)
        vectors = _copy_vectors(src, dst, tell)
        audit_rows = _copy_audit(source_log, target_log, tell)
        report = _verify(src, dst, source_log, target_log, verify_database(to_url).to_dict())
        report.update(
            copied={"memories": memories, "vectors": vectors, "audit_rows": audit_rows},
            source=source_url,
            target=redact_url(to_url),
        )
        if report["ok"]:
            target_log.append(
                AuditEvent(
                    actor=settings.actor,
                    tenant=settings.tenant,
                    action="import",
                    result_count=memories,
                    detail={
                        "migrated_from": "sqlite",
                        "memories": memories,
                        "vectors": vectors,
                        "audit_rows": audit_rows,
                    },
                ),
                utcnow(),
            )
            mark_complete(dst, "migrate")  # … and last, once the copy is proven whole
        return report
    finally:
        source_log.close()
        target_log.close()
        source.close()
        target.close()


def _copy_memories(
    src: CopySource, dst: CopyTarget, target: MemoryService, tell: Callable[[str, int], None]
) -> int:
    copied = 0
    for tenant in src.tenants():
        batch: list[tuple[Memory, IndexText]] = []
        for memory in src.iter_memories(tenant, project=None, include_deleted=True):
            batch.append((memory, target.intake.index_text(memory)))
            if len(batch) >= BATCH:
                copied += _import(dst, batch)
                batch = []
                tell("memories", copied)
        copied += _import(dst, batch)
        tell("memories", copied)
    return copied


def _import(dst: CopyTarget, batch: list[tuple[Memory, IndexText]]) -> int:
    if not batch:
        return 0
    outcomes = dst.import_memories(batch)
    refused = [m.id for (m, _), outcome in zip(batch, outcomes, strict=True) if outcome != "inserted"]
    if refused:
        raise StorageError(
            f"{len(refused)} memories could not be copied (first: {refused[0]}); the target is "
            "not empty any more: another writer is using it"
        )
    return len(batch)


def _copy_vectors(src: CopySource, dst: CopyTarget, tell: Callable[[str, int], None]) -> int:
    spaces = sorted({space for _, space, _ in src.iter_vectors()}, key=lambda s: (s.model_id, s.dimension))
    total = 0
    for space in spaces:
        rows = ((mid, blob) for mid, s, blob in src.iter_vectors() if s == space)
        total += dst.load_vectors(space, rows)
        tell("vectors", total)
    return total


def _copy_audit(source_log: AuditLog, target_log: CopyTargetLog, tell: Callable[[str, int], None]) -> int:
    copied, batch = 0, list[AuditRecord]()
    with source_log.snapshot():
        for record in source_log.records():
            batch.append(record)
            if len(batch) >= BATCH:
                target_log.append_records(batch)
                copied += len(batch)
                batch = []
                tell("audit", copied)
        if batch:
            target_log.append_records(batch)
            copied += len(batch)
    tell("audit", copied)
    return copied


def _verify(
    src: CopySource, dst: CopyTarget, source_log: AuditLog, target_log: AuditLog, chain: dict[str, Any]
) -> dict[str, Any]:
    source_counts, target_counts = src.table_counts(), dst.table_counts()
    counts = {
        table: {"source": source_counts.get(source_table, 0), "target": target_counts.get(table, 0)}
        for table, source_table in (
            ("memories", "memories"),
            ("memory_vectors", "memory_vectors"),
            ("audit_log", "audit_log"),
        )
    }
    problems = [
        f"{t}: {c['source']} rows in the source, {c['target']} in the target"
        for t, c in counts.items()
        if c["source"] != c["target"]
    ]
    if not chain["ok"]:
        problems.append(
            "the copied audit chain does not verify: "
            + "; ".join(p["message"] for p in chain["problems"][:3])
        )
    source_head, target_head = source_log.head(), target_log.head()
    if (source_head.seq, source_head.hash) != (target_head.seq, target_head.hash):
        problems.append(
            f"the copied chain ends at seq {target_head.seq}, the source's at seq {source_head.seq}"
        )
    return {"ok": not problems, "problems": problems, "counts": counts, "audit_chain": chain}
