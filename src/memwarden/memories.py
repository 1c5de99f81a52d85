"""Memories: add, get, list, update, delete and count the caller's memories.

Writes go through ``Intake`` (validation, redaction, screening, analysis), then the store and
its keyword index in one transaction, then the vector path and the vault mirror; every call
writes one audit row (``@audited``). A write hands its row to the store call that writes
(``audit=``), with the redaction count its intake returned: both commit together or not at all.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from memwarden import validation as v
from memwarden.audit import operations as audit_ops
from memwarden.audit.operations import AuditCall, audited
from memwarden.errors import Conflict, InvalidInput, NotFound
from memwarden.intake import DEFAULT_PROJECT, Intake, content_hash, new_id
from memwarden.models import Caller, Memory, utcnow
from memwarden.requests import (
    AddRequest,
    DeleteRequest,
    GetRequest,
    ListRequest,
    Request,
    StatsRequest,
    UpdateRequest,
)
from memwarden.search.similar import find_similar
from memwarden.store.base import CLEARED_FLAGS_STATE, StateStore, Store
from memwarden.write_results import AddResult, DeleteResult

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.audit.auditor import Auditor
    from memwarden.search.vector_path import VectorPath
    from memwarden.vault.mirror import VaultMirror


class FlagsCleared(NamedTuple):
    """What ``clear_flags`` did: the memory as stored now, and the flags it cleared."""

    memory: Memory
    cleared: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"memory": self.memory.to_dict(), "cleared_flags": list(self.cleared)}


R = TypeVar("R", bound=Request)


def _request(model: type[R], given: object, fields: dict[str, Any], *, first: str = "") -> R:
    """``given`` when it is the request already; else the request of the keyword form, whose
    first positional argument is the field ``first`` (content, id or ids; list and stats have
    none)."""
    if isinstance(given, model):
        if fields:
            raise InvalidInput(
                f"pass either a {model.__name__} or keyword arguments, not both", field=next(iter(fields))
            )
        return given
    if not first:
        raise InvalidInput(f"pass a {model.__name__} or keyword arguments", field="arguments")
    return model(**{first: given, **fields})


def _expiry(now: datetime, ttl_hours: float | None) -> datetime | None:
    return None if ttl_hours is None else now + timedelta(hours=ttl_hours)


# The fields screening reads: an update of any of them screens the memory again (so a cleared
# flag stays cleared through a pin or a move, and comes back only with new text).
SCREENED_FIELDS = frozenset({"content", "title", "tags", "context", "thread"})
# Where a memory's cleared flags are remembered (a ``StateStore`` row per memory, valued by the
# digest of the text screening read when the user cleared them; ``store.base`` says where the
# row goes when the memory is purged, migrated, exported).
CLEARED_STATE = CLEARED_FLAGS_STATE
# The actor of the audit rows of flags the system sets on its own (the semantic head's).
SYSTEM_ACTOR = "memwarden"


def screened_digest(memory: Memory) -> str:
    """A digest of what screening reads of a memory, the vector's text among it: the value of
    its cleared-flag state row (an export says the memory was cleared when the two agree)."""
    from memwarden.digests import sha256

    text = "\x00".join((memory.title, memory.content, memory.context, memory.thread, *memory.tags))
    return sha256(text.encode("utf-8")).hexdigest()


# The fields a model reads as the memory: an update of any of them makes the updater the
# memory's provenance (``source``, ``actor``); a pin or a new expiry does not.
AUTHORED_FIELDS = SCREENED_FIELDS | {"project", "kind"}


class Memories:
    """The caller's memories, one at a time. ``caller`` on each method is who is calling;
    adapters serving several users (HTTP) pass it per request, the rest get ``default_caller``."""

    def __init__(
        self,
        store: Store,
        intake: Intake,
        *,
        default_caller: Caller,
        clock: Callable[[], datetime] = utcnow,
        auditor: Auditor | None = None,
        vectors: VectorPath | None = None,
        vault: VaultMirror | None = None,
    ) -> None:
        self.store = store
        self.intake = intake
        self.default_caller = default_caller
        self.clock = clock
        self.auditor = auditor
        self.vectors = vectors
        self.vault = vault

    def _caller(self, caller: Caller | None) -> Caller:
        return caller or self.default_caller

    def _embed(self, memories: list[Memory]) -> str | None:
        """Embed right away when the vector path is ready; the error text when that failed.

        A failure never loses the memory: it is stored, marked, and the backfill retries it.
        """
        return None if self.vectors is None else self.vectors.embed_memories(memories)

    # -- writes ------------------------------------------------------------------------------

    @audited("add", None)
    def add(
        self,
        request: AddRequest | str,
        /,
        *,
        caller: Caller | None = None,
        audit: AuditCall | None = None,
        **fields: Any,
    ) -> AddResult:
        """Store one memory. ``add("text", project=…)`` is the keyword form (the tests' and
        benches' spelling): it builds the ``AddRequest``, so both forms are checked alike."""
        req = _request(AddRequest, request, fields, first="content")
        who = self._caller(caller)
        intake = self.intake
        now = self.clock()
        content, project, title, tags, context = req.content, req.project, req.title, req.tags, req.context
        thread = req.thread
        body = intake.clean_content(content)
        clean_context = intake.clean_context(context)
        clean_thread = intake.clean_thread(thread)
        occurred = v.check_occurred_at(req.occurred_at, now=now) or now
        clean_title = intake.clean_title(title)
        clean_tags, tag_rules = intake.clean_tags(tags)
        scope = intake.clean_project(project) or DEFAULT_PROJECT
        text = body.text
        redactions = tuple(dict.fromkeys((*body.rules, *clean_title.rules, *tag_rules, *clean_context.rules)))
        matches = body.matches + clean_title.matches + clean_context.matches
        mode = intake.redactor.mode
        would = (
            () if mode != "dry-run" else intake.would_redact(content, title, tags, project, context, thread)
        )
        memory = Memory(
            id=new_id(),
            tenant=who.tenant,
            project=scope,
            kind=req.kind,
            title=clean_title.text,
            tags=clean_tags,
            content=text,
            content_hash=content_hash(text),
            pinned=req.pinned,
            created_at=now,
            updated_at=now,
            expires_at=_expiry(now, req.ttl_hours),
            redactions=redactions,
            context=clean_context.text,
            thread=clean_thread,
            occurred_at=occurred,
            source=who.source,
            actor=who.actor,
        )
        memory = intake.screened(memory)
        index = intake.index_text(memory)
        similar = find_similar(self.store, intake.analyzer, memory, now, indexed_body=index.body)
        row = audit.for_write(redaction_count=matches) if audit is not None else None
        stored, duplicate = self.store.add(memory, index, audit=row)
        error = None if duplicate else self._embed([stored])
        if self.vault is not None and not duplicate:
            self.vault.upserted(stored)
        return AddResult(
            memory=stored,
            duplicate=duplicate,
            similar=[] if duplicate else similar,
            redacted=bool(redactions),
            redactions=redactions or would,
            redaction_mode=mode,
            embedding_failed=error is not None,
            embedding_error=error,
            redactions_dry_run=intake.dry_run_rules(memory.content, memory.title),
        )

    @audited("update", None, ids_arg="id")
    def update(
        self,
        request: UpdateRequest | str,
        /,
        *,
        caller: Caller | None = None,
        audit: AuditCall | None = None,
        **fields: Any,
    ) -> Memory:
        """Change fields of one live memory; ``update(memory_id, content=…)`` is the keyword form."""
        req = _request(UpdateRequest, request, fields, first="id")
        who = self._caller(caller)
        current = self.get_live(who, req.id)
        if req.if_version is not None and req.if_version != current.version:
            raise Conflict(
                f"memory {current.id} is at version {current.version}, not {req.if_version}: "
                "get it again and retry the update",
                id=current.id,
                current_version=current.version,
            )
        now = self.clock()
        intake = self.intake
        changes: dict[str, Any] = {"updated_at": now}
        matches = 0
        if req.content is not None:
            body = intake.clean_content(req.content)
            matches += body.matches
            changes.update(content=body.text, content_hash=content_hash(body.text), redactions=body.rules)
        if req.project is not None:
            changes["project"] = intake.clean_project(req.project)
        if req.kind is not None:
            changes["kind"] = req.kind
        if req.title is not None:
            title = intake.clean_title(req.title)
            matches += title.matches
            changes["title"] = title.text
        if req.tags is not None:
            changes["tags"] = intake.clean_tags(req.tags)[0]
        if req.pinned is not None:
            changes["pinned"] = req.pinned
        if req.ttl_hours is not None:
            changes["expires_at"] = _expiry(now, req.ttl_hours)
        if req.context is not None:  # "" clears it
            context = intake.clean_context(req.context)
            matches += context.matches
            changes["context"] = context.text
        if req.thread is not None:
            changes["thread"] = intake.clean_thread(req.thread)
        if req.occurred_at is not None:
            changes["occurred_at"] = v.check_occurred_at(req.occurred_at, now=now) or current.occurred
        if len(changes) == 1:
            raise InvalidInput(
                "nothing to update: pass at least one of content, project, kind, title, tags, pinned, ttl_hours, "
                "context, thread, occurred_at",
                field="content",
            )
        if AUTHORED_FIELDS & changes.keys():
            changes.update(source=who.source, actor=who.actor)
        updated = current._replace(**changes)
        # What the stored fields now hold: markers kept from before plus those just made.
        held = intake.rules_held(updated.content, updated.title, *updated.tags, updated.context)
        updated = updated._replace(redactions=held)
        if SCREENED_FIELDS & changes.keys():
            updated = intake.screened(updated)
        stored = self.store.update(
            updated,
            intake.index_text(updated),
            expected_version=current.version,
            audit=audit.for_write(redaction_count=matches) if audit is not None else None,
        )
        if {"content", "title", "project", "context"} & changes.keys():
            self._embed([stored])  # the old vector was dropped with the old text; a failure is retried
        if self.vault is not None:
            self.vault.upserted(stored)
        return stored

    @audited("update", None, ids_arg="memory_id")
    def clear_flags(
        self, memory_id: object, *, caller: Caller | None = None, audit: AuditCall | None = None
    ) -> FlagsCleared:
        """Clear a live memory's injection flags: the user read it and vouches for it.

        The memory stays as it is otherwise (its version moves on); the audit row, written in
        the same transaction, names the flags cleared. The flags stay cleared through reads,
        pins and moves; an update of what screening reads screens the memory again. A memory
        without flags is returned unchanged (the call is still recorded)."""
        who = self._caller(caller)
        current = self.get_live(who, v.check_id(memory_id))
        if not current.injection_flags:
            if audit is not None:  # nothing written: the row of a clear that changed nothing
                audit.record({"memory_ids": [current.id], "result_count": 0, "detail": {"cleared_flags": []}})
            return FlagsCleared(current, ())
        cleared = current._replace(injection_flags=(), updated_at=self.clock())
        flags = {"cleared_flags": list(current.injection_flags)}
        # Remembered first, so that the semantic head, which flags a memory again whenever its
        # vector is stored again (a move, a new model), leaves this text alone.
        if isinstance(self.store, StateStore):
            self.store.put_state(CLEARED_STATE + current.id, screened_digest(current))
        stored = self.store.update(
            cleared,
            self.intake.index_text(cleared),
            expected_version=current.version,
            audit=audit.for_write(detail=flags) if audit is not None else None,
        )
        return FlagsCleared(stored, current.injection_flags)

    def flag_semantic(self, memories: list[Memory]) -> list[Memory]:
        """Flag these just-embedded memories ``semantic_injection``: the semantic screening head
        found their vectors close to injections (``screening.semantic``; the vector path calls
        this). Each flag is written like any other (the store's update, one audit row with the
        system as actor, ``SYSTEM_ACTOR``) and behaves like one: hooks leave the memory out,
        review lists it, a user can clear it. Skipped: a memory that has a flag already, one a
        user cleared at this same text, and one changed or deleted since it was embedded (its
        new text is embedded and scored again). Returns the memories as stored now."""
        from memwarden.models import Caller
        from memwarden.screening.semantic import SEMANTIC_FLAG

        stored = []
        for memory in memories:
            if memory.injection_flags or self._cleared_at(memory):
                continue
            flagged = memory._replace(injection_flags=(SEMANTIC_FLAG,))
            audit = None
            if self.auditor is not None:
                audit = self.auditor.for_write(
                    "update",
                    Caller(SYSTEM_ACTOR, memory.tenant),
                    project=memory.project,
                    detail={"flagged": [SEMANTIC_FLAG]},
                )
            try:
                stored.append(
                    self.store.update(
                        flagged, self.intake.index_text(flagged), expected_version=memory.version, audit=audit
                    )
                )
            except (Conflict, NotFound):
                continue
        return stored

    def _cleared_at(self, memory: Memory) -> bool:
        """Whether a user cleared this memory's flags while it held the text it holds now."""
        if not isinstance(self.store, StateStore):
            return False
        key = CLEARED_STATE + memory.id
        return self.store.states(key).get(key) == screened_digest(memory)

    @audited("delete", None, ids_arg="id")
    def delete(
        self, request: DeleteRequest | str, /, *, caller: Caller | None = None, audit: AuditCall | None = None
    ) -> DeleteResult:
        """Soft-delete one memory; ``delete(memory_id)`` is the keyword form."""
        mid = _request(DeleteRequest, request, {}, first="id").id
        who = self._caller(caller)
        before = self.store.get_many(who.tenant, [mid])
        if not before:
            raise NotFound(f"no memory with id {mid}", id=mid)
        if before[0].deleted_at is not None:
            done = DeleteResult(id=mid, deleted=True, already_deleted=True)
            if audit is not None:  # nothing written: recorded on its own
                audit.record(audit_ops.delete_summary(done))
            return done
        now = self.clock()
        gone = self.store.soft_delete(
            who.tenant, mid, now, audit=audit.for_write() if audit is not None else None
        )
        done = DeleteResult(id=mid, deleted=True, already_deleted=False)
        if audit is not None and (gone is None or gone.deleted_at != now):
            audit.record(audit_ops.delete_summary(done))  # deleted meanwhile: the store wrote no row
        if self.vault is not None:
            self.vault.removed(who.tenant, mid)
        return done

    # -- reads -------------------------------------------------------------------------------

    def get_live(self, who: Caller, memory_id: str) -> Memory:
        """The caller's live memory with this (checked) id; NotFound otherwise. Not audited."""
        found = self.store.get_many(who.tenant, [memory_id])
        if not found or found[0].deleted_at is not None:
            raise NotFound(f"no memory with id {memory_id}", id=memory_id)
        return found[0]

    @audited("get", audit_ops.get_summary, ids_arg="ids")
    def get(
        self, request: GetRequest | str | list[str], /, *, caller: Caller | None = None
    ) -> tuple[list[Memory], list[str]]:
        """Live memories with these ids, and the ids that are unknown or deleted; ``get(ids)`` is
        the keyword form. (``include_context`` shapes what an adapter shows, not what is read.)"""
        wanted = _request(GetRequest, request, {}, first="ids").ids
        who = self._caller(caller)
        found = [m for m in self.store.get_many(who.tenant, wanted) if m.deleted_at is None]
        known = {m.id for m in found}
        return found, [i for i in wanted if i not in known]

    @audited("list", audit_ops.list_summary)
    def list(
        self, request: ListRequest | None = None, /, *, caller: Caller | None = None, **fields: Any
    ) -> list[Memory]:
        """Memories by date; ``list(project=…, limit=…)`` is the keyword form."""
        req = _request(ListRequest, request, fields) if request is not None else ListRequest(**fields)
        who = self._caller(caller)
        return self.store.list_memories(
            who.tenant,
            project=self.intake.clean_project(req.project),
            tags=tuple(req.tags or ()),
            pinned_only=req.pinned,
            include_expired=req.include_expired,
            now=self.clock(),
            limit=req.limit,
        )

    @audited("stats", audit_ops.stats_summary)
    def stats(
        self, request: StatsRequest | None = None, /, *, caller: Caller | None = None, **fields: Any
    ) -> dict[str, Any]:
        """Counts and sizes; ``stats(project=…)`` is the keyword form."""
        project = (
            _request(StatsRequest, request, fields) if request is not None else StatsRequest(**fields)
        ).project
        who = self._caller(caller)
        stats = {
            "tenant": who.tenant,
            **self.store.stats(who.tenant, self.intake.clean_project(project), self.clock()),
        }
        if not who.same_party(self.default_caller):
            # The database is shared by every tenant: its size tells one tenant about the others.
            stats.pop("database_bytes", None)
        return stats
