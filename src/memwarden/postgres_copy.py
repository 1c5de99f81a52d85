"""Copy a SQLite database to an empty PostgreSQL database and prove the copy is whole.

``memwarden migrate --to postgresql://…`` reads the SQLite database of ``MEMWARDEN_DB`` (or
``--db``) and writes, into a new, empty PostgreSQL database: every memory of every tenant
(deleted ones too, with their ids, times, versions and usage), their vectors (each in its own
space, then one HNSW build per space), the users' cleared screening flags (the state rows that
keep a cleared memory from being flagged again when it is embedded again: ``CLEARED_FLAGS_STATE``)
and the audit chain row for row (the same hashes: the database's triggers check that each row
continues the chain). Then it verifies: row counts equal on both sides, the cleared-flag rows the
same on both sides, the copied chain verifies and ends at the source's head. Only after that
it appends one audit row on the new database saying what was migrated.

Before it writes anything it marks the target ``incomplete:migrate`` (``ops/markers.py``) and
removes the mark only after the verification passed: a migrate that was killed, crashed or
failed leaves the mark, and ``health`` on the target reports it with what to do.

Running the same migrate again resumes: memories are copied in committed batches and a memory
already in the target is skipped when it is the same row as in the source (id, version, times,
content hash); vectors already there are kept; the audit chain continues from the target's
head, which must be a row of the source's chain (same sequence number and hash). Then the
usual verification. When the source changed meanwhile in a way a resume cannot carry (a memory
copied earlier was updated or purged, the chain was pruned, the marker names another source),
the rerun refuses and says to drop the target and migrate again.

Nothing is written to the source. A destination that already holds memories or audit rows is
refused, and so is a source whose audit log was pruned (its chain starts at a checkpoint,
which the new database's append-only log cannot take as its start).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from memwarden.audit.base import AuditLog, AuditRecord, ChainHead, CopyTargetLog
from memwarden.config import Settings
from memwarden.errors import InvalidInput, StorageError
from memwarden.models import IndexText, Memory
from memwarden.ops.markers import incomplete_operations, mark_complete, mark_failed, mark_incomplete
from memwarden.settings_paths import is_postgres_url
from memwarden.store.base import CLEARED_FLAGS_STATE, CopySource, CopyTarget, StateStore
from memwarden.store.postgres.connect import redact_url

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.service import MemoryService

BATCH = 2000


def migrate_to_postgres(
    settings: Settings, to_url: str, *, progress: Callable[[int, int], None] | None = None
) -> dict[str, Any]:
    """Copy the configured SQLite database to ``to_url``; the verification report.

    ``progress(done, total)`` counts the rows copied (memories, then vectors, then audit rows)
    against the source's row counts, for a bar with rate and time left.
    """
    from memwarden.app import build_service
    from memwarden.audit.base import AuditEvent
    from memwarden.models import utcnow
    from memwarden.store.audit_logs import open_audit_log, verify_database

    source_url = settings.database_url()
    if is_postgres_url(source_url):
        raise InvalidInput(
            "migrate copies a SQLite database: point MEMWARDEN_DB (or --db) at the SQLite file", field="db"
        )
    if not is_postgres_url(to_url):
        raise InvalidInput("--to must be a postgresql:// URL of a new, empty database", field="to")
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
        before = dst.table_counts()
        tell = _overall_progress(src.table_counts(), progress)
        if unfinished is not None:
            _can_resume(unfinished, source_url, to_url, before)
            tell("resuming", before.get("memories", 0))
        elif before.get("memories", 0) or before.get("audit_log", 0):
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
        resumed = unfinished is not None
        if not resumed:
            mark_incomplete(dst, "migrate", source=source_url, by=settings.actor)  # first …
        try:
            memories = _copy_memories(src, dst, target, tell, resume=resumed)
            vectors = _copy_vectors(src, dst, tell, resume=resumed)
            cleared = _copy_cleared_flags(src, dst)
            audit_rows, summary_written = _copy_audit(source_log, target_log, tell, resume=resumed)
            report = _verify(
                src,
                dst,
                source_log,
                target_log,
                verify_database(to_url).to_dict(),
                summary_written=summary_written,
            )
        except BaseException as exc:  # the marker stays, noted as failed (health: interrupted)
            with suppress(Exception):
                mark_failed(dst, "migrate", f"{type(exc).__name__}: {exc}")
            raise
        report.update(
            copied={
                "memories": memories,
                "vectors": vectors,
                "cleared_flags": cleared,
                "audit_rows": audit_rows,
            },
            resumed={"memories": before.get("memories", 0), "audit_rows": before.get("audit_log", 0)}
            if resumed
            else None,
            source=source_url,
            target=redact_url(to_url),
        )
        if not report["ok"]:
            mark_failed(dst, "migrate", "verification failed: " + "; ".join(report["problems"]))
        if resumed and not report["ok"]:
            report["problems"].append(f"this migrate cannot be resumed: {START_AGAIN}")
        if report["ok"] and summary_written:  # killed after its last row, before the unmark
            mark_complete(dst, "migrate")
        elif report["ok"]:
            target_log.append(
                AuditEvent(
                    actor=settings.actor,
                    tenant=settings.tenant,
                    action="import",
                    result_count=report["counts"]["memories"]["target"],
                    detail={
                        "migrated_from": "sqlite",
                        "memories": report["counts"]["memories"]["target"],
                        "vectors": vectors,
                        "cleared_flags": cleared,
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


def _can_resume(unfinished: dict[str, Any], source_url: str, to_url: str, counts: dict[str, int]) -> None:
    """Refuse, saying what to do, when the unfinished migrate in the target cannot be resumed."""
    if unfinished.get("state") == "running":
        raise InvalidInput(
            f"a migrate into {redact_url(to_url)} is running (process {unfinished.get('pid')} on "
            f"{unfinished.get('host')}): wait for it to finish",
            field="to",
        )
    if unfinished.get("source") != source_url:
        raise InvalidInput(
            f"{redact_url(to_url)} holds an unfinished migrate from {unfinished.get('source')} (started "
            f"{unfinished.get('started_at')}, {counts.get('memories', 0)} memories and "
            f"{counts.get('audit_log', 0)} audit rows copied), not from {source_url}: run the migrate "
            f"again with that source to resume it, or {START_AGAIN}",
            field="to",
        )


START_AGAIN = (
    "drop the target database and create it empty again (e.g. `dropdb NAME && createdb NAME`), then run "
    "`memwarden migrate` again (the SQLite source is never changed)"
)


def _overall_progress(
    counts: dict[str, int], progress: Callable[[int, int], None] | None
) -> Callable[[str, int], None]:
    """``tell(stage, copied)`` of the copy steps as ``progress(done, total)`` over all rows."""
    sizes = [counts.get("memories", 0), counts.get("memory_vectors", 0), counts.get("audit_log", 0)]
    before = {"memories": 0, "vectors": sizes[0], "audit": sizes[0] + sizes[1]}
    total = sum(sizes)

    def tell(stage: str, copied: int) -> None:
        if progress is not None and total and stage in before:  # not "resuming": no rows copied
            progress(min(total, before[stage] + copied), total)

    return tell


def _copy_memories(
    src: CopySource,
    dst: CopyTarget,
    target: MemoryService,
    tell: Callable[[str, int], None],
    *,
    resume: bool = False,
) -> int:
    copied = 0
    for tenant in src.tenants():
        batch: list[tuple[Memory, IndexText]] = []
        for memory in src.iter_memories(tenant, project=None, include_deleted=True):
            batch.append((memory, target.intake.index_text(memory)))
            if len(batch) >= BATCH:
                copied += _import(dst, batch, resume)
                batch = []
                tell("memories", copied)
        copied += _import(dst, batch, resume)
        tell("memories", copied)
    return copied


def _same_row(a: Memory, b: Memory) -> bool:
    return (a.tenant, a.version, a.updated_at, a.deleted_at, a.content_hash, a.expires_at) == (
        b.tenant,
        b.version,
        b.updated_at,
        b.deleted_at,
        b.content_hash,
        b.expires_at,
    )


def _import(dst: CopyTarget, batch: list[tuple[Memory, IndexText]], resume: bool) -> int:
    """Copy one batch; how many memories were new in the target."""
    if not batch:
        return 0
    outcomes = dst.import_memories(batch)
    there = [m for (m, _), outcome in zip(batch, outcomes, strict=True) if outcome == "same_id"]
    refused = [m.id for (m, _), outcome in zip(batch, outcomes, strict=True) if outcome == "duplicate"]
    if there and resume:  # copied by the interrupted run: must be the same row as in the source now
        stored = {m.id: m for m in dst.get_many(there[0].tenant, [m.id for m in there])}
        changed = [m.id for m in there if m.id not in stored or not _same_row(m, stored[m.id])]
        if changed:
            raise InvalidInput(
                f"{len(changed)} memories changed in the source since the interrupted migrate copied them "
                f"(first: {changed[0]}), so it cannot be resumed: {START_AGAIN}",
                field="to",
            )
    elif there:
        refused += [m.id for m in there]
    if refused:
        raise StorageError(
            f"{len(refused)} memories could not be copied (first: {refused[0]}); the target is "
            "not empty any more: another writer is using it"
        )
    return outcomes.count("inserted")


def _copy_vectors(
    src: CopySource, dst: CopyTarget, tell: Callable[[str, int], None], *, resume: bool = False
) -> int:
    spaces = sorted({space for _, space, _ in src.iter_vectors()}, key=lambda s: (s.model_id, s.dimension))
    total = 0
    for space in spaces:
        rows = ((mid, blob) for mid, s, blob in src.iter_vectors() if s == space)
        total += dst.load_vectors(space, rows, skip_existing=resume)
        tell("vectors", total)
    return total


def _cleared_flags(store: object) -> dict[str, str]:
    """The cleared-flag state rows of ``store`` (none when it keeps no state)."""
    return store.states(CLEARED_FLAGS_STATE) if isinstance(store, StateStore) else {}


def _copy_cleared_flags(src: CopySource, dst: CopyTarget) -> int:
    """Copy the users' cleared screening flags (one state row per memory; a rerun writes the same
    values again); how many. Without them the first embedding in the target would flag again the
    memories a user cleared."""
    rows = _cleared_flags(src)
    for key, value in rows.items():
        dst.put_state(key, value)
    return len(rows)


def _is_summary(record: AuditRecord) -> bool:
    """The row a finished migrate appends last (``migrated_from``)."""
    detail = record.detail if isinstance(record.detail, str) else ""
    return record.action == "import" and '"migrated_from"' in detail


def _resume_point(source_log: AuditLog, target_log: AuditLog) -> tuple[int, bool]:
    """The source row the target's chain ends at (its seq; 0 for an empty target) and whether the
    migrate's summary row was already written after it. Refuses a target chain that is not a
    prefix of the source's."""
    head = target_log.head()
    if head.seq == 0:
        return 0, False
    tail = list(itertools.islice(target_log.records(since=None), max(0, head.seq - 2), None))
    summary = _is_summary(tail[-1]) and head.seq == source_log.head().seq + 1
    end = head.seq - 1 if summary else head.seq
    ours = next((r for r in tail if r.seq == end), None)
    theirs = next((r for r in source_log.records() if r.seq == end), None)
    if ours is None or theirs is None or ours.hash != theirs.hash:
        raise InvalidInput(
            f"the target's audit chain ends at seq {end}, which is not the row the source has there "
            f"(the source's audit log changed since the interrupted migrate), so it cannot be resumed: "
            f"{START_AGAIN}",
            field="to",
        )
    return end, summary


def _copy_audit(
    source_log: AuditLog,
    target_log: CopyTargetLog,
    tell: Callable[[str, int], None],
    *,
    resume: bool = False,
) -> tuple[int, bool]:
    """Copy the source's rows the target lacks; (rows copied, the summary row is already there)."""
    copied, batch = 0, list[AuditRecord]()
    with source_log.snapshot():
        after, summary = _resume_point(source_log, target_log) if resume else (0, False)
        if summary:
            return 0, True
        for record in source_log.records():
            if record.seq <= after:
                continue
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
    return copied, False


def _verify(
    src: CopySource,
    dst: CopyTarget,
    source_log: AuditLog,
    target_log: AuditLog,
    chain: dict[str, Any],
    *,
    summary_written: bool = False,
) -> dict[str, Any]:
    source_counts, target_counts = src.table_counts(), dst.table_counts()
    if summary_written:  # the target's chain has the summary row after the source's rows
        target_counts["audit_log"] = target_counts.get("audit_log", 0) - 1
    counts = {
        table: {"source": source_counts.get(source_table, 0), "target": target_counts.get(table, 0)}
        for table, source_table in (
            ("memories", "memories"),
            ("memory_vectors", "memory_vectors"),
            ("audit_log", "audit_log"),
        )
    }
    source_cleared, target_cleared = _cleared_flags(src), _cleared_flags(dst)
    counts["cleared_flags"] = {"source": len(source_cleared), "target": len(target_cleared)}
    problems = [
        f"{t}: {c['source']} rows in the source, {c['target']} in the target"
        for t, c in counts.items()
        if c["source"] != c["target"]
    ]
    if len(source_cleared) == len(target_cleared) and source_cleared != target_cleared:
        problems.append("cleared_flags: the target's cleared-flag rows differ from the source's")
    if not chain["ok"]:
        problems.append(
            "the copied audit chain does not verify: "
            + "; ".join(p["message"] for p in chain["problems"][:3])
        )
    source_head, target_head = source_log.head(), target_log.head()
    if summary_written:
        target_head = next(
            (ChainHead(r.seq, r.hash) for r in target_log.records() if r.seq == target_head.seq - 1),
            target_head,
        )
    if (source_head.seq, source_head.hash) != (target_head.seq, target_head.hash):
        problems.append(
            f"the copied chain ends at seq {target_head.seq}, the source's at seq {source_head.seq}"
        )
    return {"ok": not problems, "problems": problems, "counts": counts, "audit_chain": chain}
