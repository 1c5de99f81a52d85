"""MemoryService: the one façade every adapter (MCP, HTTP, CLI, hooks) calls."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from memwarden import validation as v
from memwarden.audit import operations as audit_ops
from memwarden.audit.operations import audited
from memwarden.errors import ConfigError, Conflict, EmbeddingUnavailable, InvalidInput, NotFound
from memwarden.models import (
    AddResult,
    Caller,
    Candidate,
    DegradeReason,
    DeleteResult,
    Hit,
    IndexText,
    Memory,
    SearchResult,
    utcnow,
)
from memwarden.ops.options import OpsOptions
from memwarden.screening import screen_text
from memwarden.search.budget import fit_to_budget
from memwarden.search.hybrid import fuse
from memwarden.search.ranking import DEFAULT_WEIGHTS, RankingWeights, rank, rank_keyword
from memwarden.search.similar import find_similar
from memwarden.search.vector_path import VectorPath
from memwarden.service_ops import SYNC_PAGE, OperationsMixin
from memwarden.store.base import Store
from memwarden.text.analyzer import Analyzer

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.audit.auditor import Auditor
    from memwarden.govern.redactor import Redaction, Redactor
    from memwarden.ops.backup import BackupManager  # noqa: F401
    from memwarden.vault.mirror import VaultMirror

DEFAULT_PROJECT = "default"
CANDIDATES_PER_HIT = 5
MIN_CANDIDATES = 50
RELATED_LIMIT = 5
RELATED_QUERY_WORDS = 5

_WORD_CHARS = re.compile(r"\W")


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def _new_id() -> str:
    from ulid import ULID

    return str(ULID())


class MemoryService(OperationsMixin):
    """Validates, stores, finds and explains memories for one caller at a time.

    ``caller`` on each method is who is calling; adapters that serve several users (HTTP)
    pass it per request, the rest use the default caller from the settings.

    Governance collaborators (docs/governance.md):
    - ``redactor`` (``govern.Redactor``, or a zero-argument factory so per-prompt paths that never
      write skip compiling the rules) runs on content, title and tags before dedup, the keyword
      index, vectors, logs, vault notes and backups see them. Code that writes memories without
      ``add``/``update`` (import) must pass content through ``clean_content`` and titles and tags
      through ``clean_title`` / ``clean_tags``; ``redact_text`` scrubs any other text.
    - ``auditor`` (``audit.Auditor``; None disables auditing) records one hash-chained row per
      add, search, get, list, update, delete, stats, export and import through ``@audited``.
      Operations that live outside this class record themselves with ``audit(...)``.
    """

    def __init__(
        self,
        store: Store,
        *,
        analyzer: Analyzer,
        default_caller: Caller,
        max_content_bytes: int = 16 * 1024,
        ranking: RankingWeights = DEFAULT_WEIGHTS,
        clock: Callable[[], datetime] = utcnow,
        ops: OpsOptions | None = None,
        redactor: Redactor | Callable[[], Redactor] | None = None,
        auditor: Auditor | None = None,
        vectors: VectorPath | None = None,
        vault: VaultMirror | None = None,
    ) -> None:
        self.store = store
        self.vectors = vectors
        self.analyzer = analyzer
        self.default_caller = default_caller
        self.max_content_bytes = max_content_bytes
        self.ranking = ranking
        self.clock = clock
        self.ops = ops or OpsOptions()
        self.backups = self.ops.backups
        self.purge_grace = self.ops.purge_grace
        self._redactor = redactor
        self.auditor = auditor
        self.vault = vault
        if vault is not None:
            vault.bind(lambda memory: [m.id for m in self.related(memory)])

    def close(self) -> None:
        if self.vault is not None:
            self.vault.close()  # before the store: pending notes still need their Related search
        if self.vectors is not None:
            self.vectors.close()
        self.store.close()
        if self.auditor is not None:
            self.auditor.close()

    # -- governance: redaction and audit ---------------------------------------------------------

    @property
    def redactor(self) -> Redactor:
        """The redactor (built-in rules, enforce mode, unless the composition root gave one)."""
        if self._redactor is None or not hasattr(self._redactor, "redact"):
            from memwarden.govern.redactor import Redactor

            factory = self._redactor
            self._redactor = factory() if callable(factory) else Redactor()
        return self._redactor  # type: ignore[return-value]

    def _redact(self, text: str) -> Redaction:
        outcome = self.redactor.redact(text)
        audit_ops.note_redactions(outcome.count if outcome.applied else 0)
        return outcome

    def redact_text(self, text: str) -> str:
        """``text`` with every match replaced, whatever the mode (``off`` leaves it as is)."""
        return self.redactor.scrub_text(text)

    def clean_title(self, title: object) -> tuple[str, tuple[str, ...]]:
        """The stored form of a title and the rules applied to it."""
        outcome = self._redact(v.check_title(title or ""))
        return outcome.text, outcome.rules if outcome.applied else ()

    def clean_tags(self, tags: object) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The stored tags (each redacted, duplicates dropped) and the rules applied to them."""
        cleaned: list[str] = []
        rules: list[str] = []
        for tag in v.check_tags(tags):
            outcome = self._redact(tag)
            cleaned.append(outcome.text)
            rules.extend(outcome.rules if outcome.applied else ())
        return tuple(dict.fromkeys(cleaned)), tuple(dict.fromkeys(rules))

    def audit(self, action: str, *, caller: Caller | None = None, project: str | None = None,
              memory_ids: Sequence[str] = (), result_count: int = 0, degraded: bool = False,
              redaction_count: int = 0, outcome: str = "ok", query: str | None = None,
              detail: dict[str, Any] | None = None) -> None:
        """Record one audit row for an operation done outside this class (backups, restores…).

        ``action`` is one of ``audit.base.ACTIONS``; a no-op when auditing is off.
        """
        if self.auditor is not None:
            self.auditor.record(action, self._caller(caller), project=project, memory_ids=memory_ids,
                                result_count=result_count, degraded=degraded, redaction_count=redaction_count,
                                outcome=outcome, query=query, detail=detail)

    def ensure_index(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Re-index stored memories if the keyword index was built by another analyzer
        (an older version, or other MEMWARDEN_LANGUAGES); returns how many were re-indexed."""
        return self.store.ensure_index(self.analyzer.fingerprint, self._index_text, progress)

    # -- helpers -----------------------------------------------------------------------------

    def _caller(self, caller: Caller | None) -> Caller:
        return caller or self.default_caller

    def _index_text(self, memory: Memory) -> IndexText:
        return IndexText(
            title=self.analyzer.index_text(memory.title),
            tags=self.analyzer.index_text(" ".join(memory.tags)),
            body=self.analyzer.index_text(memory.content),
        )

    def clean_content(self, content: object) -> tuple[str, tuple[str, ...]]:
        """The stored form of content and the redaction rules that fired: the one content path
        of add, update and import."""
        text = v.normalize_content(v.check_text("content", content, max_bytes=self.max_content_bytes))
        outcome = self._redact(text)
        return outcome.text, outcome.rules if outcome.applied else ()

    @staticmethod
    def screened(memory: Memory) -> Memory:
        """The memory with its injection flags: does its text read like instructions to a model?"""
        return replace(memory, injection_flags=screen_text(memory.title, memory.content))

    def _with_index(self, candidates: list[Candidate]) -> list[Candidate]:
        """Candidates with their analyzed text, which the ranking's coverage reads.

        A path that does not return it (the vector path; PostgreSQL's keyword search, which
        keeps only a tsvector) gets it from the analyzer, so coverage means the same on every
        path and backend.
        """
        return [c if c.index is not None else replace(c, index=self._index_text(c.memory)) for c in candidates]

    def _expiry(self, now: datetime, ttl_hours: float | None) -> datetime | None:
        return None if ttl_hours is None else now + timedelta(hours=ttl_hours)

    def _project(self, project: object | None) -> str | None:
        return None if project is None else v.check_project(project)

    # -- writes ------------------------------------------------------------------------------

    @audited("add", audit_ops.add_summary)
    def add(
        self,
        content: object,
        *,
        project: object | None = None,
        kind: object = "fact",
        title: object = "",
        tags: object = None,
        pinned: bool = False,
        ttl_hours: object = None,
        caller: Caller | None = None,
    ) -> AddResult:
        who = self._caller(caller)
        text, redactions = self.clean_content(content)
        clean_title, title_rules = self.clean_title(title)
        clean_tags, tag_rules = self.clean_tags(tags)
        redactions = tuple(dict.fromkeys((*redactions, *title_rules, *tag_rules)))
        would = () if self.redactor.mode != "dry-run" else self._would_redact(content, title, tags)
        now = self.clock()
        memory = Memory(
            id=_new_id(),
            tenant=who.tenant,
            project=self._project(project) or DEFAULT_PROJECT,
            kind=v.check_kind(kind),
            title=clean_title,
            tags=clean_tags,
            content=text,
            content_hash=content_hash(text),
            pinned=bool(pinned),
            created_at=now,
            updated_at=now,
            expires_at=self._expiry(now, v.check_ttl_hours(ttl_hours)),
            redactions=redactions,
        )
        memory = self.screened(memory)
        index = self._index_text(memory)
        similar = find_similar(self.store, self.analyzer, memory, now, indexed_body=index.body)
        stored, duplicate = self.store.add(memory, index)
        error = None if duplicate else self._embed([stored])
        if self.vault is not None and not duplicate:
            self.vault.upserted(stored)
        return AddResult(memory=stored, duplicate=duplicate, similar=[] if duplicate else similar,
                         redacted=bool(redactions),
                         redactions=redactions or would, redaction_mode=self.redactor.mode,
                         embedding_failed=error is not None, embedding_error=error)

    def _embed(self, memories: list[Memory]) -> str | None:
        """Embed right away when the vector path is ready; the error text when that failed.

        A failure never loses the memory: it is stored, marked, and the backfill retries it.
        """
        return None if self.vectors is None else self.vectors.embed_memories(memories)

    def _would_redact(self, *fields: object) -> tuple[str, ...]:
        """Dry-run: the rules that would have matched these (already validated) fields."""
        texts = [f for f in fields if isinstance(f, str)]
        texts += [t for f in fields if isinstance(f, (list, tuple)) for t in f if isinstance(t, str)]
        found = [finding.rule for text in texts for finding in self.redactor.find(text)]
        return tuple(dict.fromkeys(found))

    @audited("update", audit_ops.memory_summary)
    def update(
        self,
        memory_id: object,
        *,
        content: object | None = None,
        project: object | None = None,
        kind: object | None = None,
        title: object | None = None,
        tags: object | None = None,
        pinned: bool | None = None,
        ttl_hours: object | None = None,
        if_version: int | None = None,
        caller: Caller | None = None,
    ) -> Memory:
        who = self._caller(caller)
        current = self._get_live(who, v.check_id(memory_id))
        if if_version is not None and (isinstance(if_version, bool) or not isinstance(if_version, int)):
            raise InvalidInput("if_version must be a whole number", field="if_version")
        if if_version is not None and if_version != current.version:
            raise Conflict(
                f"memory {current.id} is at version {current.version}, not {if_version}: "
                "get it again and retry the update",
                id=current.id,
                current_version=current.version,
            )
        now = self.clock()
        changes: dict[str, Any] = {"updated_at": now}
        if content is not None:
            text, redactions = self.clean_content(content)
            changes.update(content=text, content_hash=content_hash(text), redactions=redactions)
        if project is not None:
            changes["project"] = v.check_project(project)
        if kind is not None:
            changes["kind"] = v.check_kind(kind)
        if title is not None:
            changes["title"] = self.clean_title(title)[0]
        if tags is not None:
            changes["tags"] = self.clean_tags(tags)[0]
        if pinned is not None:
            changes["pinned"] = bool(pinned)
        if ttl_hours is not None:
            changes["expires_at"] = self._expiry(now, v.check_ttl_hours(ttl_hours))
        if len(changes) == 1:
            raise InvalidInput(
                "nothing to update: pass at least one of content, project, kind, title, tags, pinned, ttl_hours",
                field="content",
            )
        updated = replace(current, **changes)
        from memwarden.govern.redactor import rules_in_markers

        # What the stored fields now hold: markers kept from before plus those just made.
        held = rules_in_markers("\n".join((updated.content, updated.title, *updated.tags)))
        updated = replace(updated, redactions=tuple(held))
        updated = self.screened(updated)
        stored = self.store.update(updated, self._index_text(updated), expected_version=current.version)
        if {"content", "title", "project"} & changes.keys():
            self._embed([stored])  # the old vector was dropped with the old text; a failure is retried
        if self.vault is not None:
            self.vault.upserted(stored)
        return stored

    @audited("delete", audit_ops.delete_summary)
    def delete(self, memory_id: object, *, caller: Caller | None = None) -> DeleteResult:
        who = self._caller(caller)
        mid = v.check_id(memory_id)
        before = self.store.get_many(who.tenant, [mid])
        if not before:
            raise NotFound(f"no memory with id {mid}; find ids with memory_search or memory_list", id=mid)
        if before[0].deleted_at is not None:
            return DeleteResult(id=mid, deleted=True, already_deleted=True)
        self.store.soft_delete(who.tenant, mid, self.clock())
        if self.vault is not None:
            self.vault.removed(who.tenant, mid)
        return DeleteResult(id=mid, deleted=True, already_deleted=False)

    # -- reads -------------------------------------------------------------------------------

    def _get_live(self, who: Caller, memory_id: str) -> Memory:
        found = self.store.get_many(who.tenant, [memory_id])
        if not found or found[0].deleted_at is not None:
            raise NotFound(
                f"no memory with id {memory_id}; find ids with memory_search or memory_list", id=memory_id
            )
        return found[0]

    @audited("get", audit_ops.get_summary)
    def get(self, ids: object, *, caller: Caller | None = None) -> tuple[list[Memory], list[str]]:
        """Live memories with these ids, and the ids that are unknown or deleted."""
        who = self._caller(caller)
        wanted = v.check_ids(ids)
        found = [m for m in self.store.get_many(who.tenant, wanted) if m.deleted_at is None]
        known = {m.id for m in found}
        return found, [i for i in wanted if i not in known]

    @audited("list", audit_ops.list_summary)
    def list(
        self,
        *,
        project: object | None = None,
        tags: object = None,
        pinned: bool = False,
        limit: object = 20,
        include_expired: bool = False,
        caller: Caller | None = None,
    ) -> list[Memory]:
        who = self._caller(caller)
        return self.store.list_memories(
            who.tenant,
            project=self._project(project),
            tags=v.check_tags(tags),
            pinned_only=bool(pinned),
            include_expired=bool(include_expired),
            now=self.clock(),
            limit=v.check_limit(limit),
        )

    @audited("search", audit_ops.search_summary, query_arg=True)
    def search(
        self,
        query: object,
        *,
        project: object | None = None,
        tags: object = None,
        limit: object = 10,
        include_expired: bool = False,
        vector: bool = True,
        max_tokens: object = None,
        caller: Caller | None = None,
    ) -> SearchResult:
        """Keyword and vector candidates fused, then ranked; ``vector=False`` asks for keywords only.

        The vector path runs within MEMWARDEN_VECTOR_TIMEOUT_MS; when it is missing, warming up,
        slow or failing, the hits come from keywords alone and the result says why (``degraded``).
        """
        who = self._caller(caller)
        text = v.check_query(query)
        top = v.check_limit(limit)
        budget = v.check_max_tokens(max_tokens)
        scope = self._project(project)
        wanted_tags = v.check_tags(tags)
        now = self.clock()
        result = self._find(who, text, project=scope, tags=wanted_tags, limit=top,
                            include_expired=bool(include_expired), vector=vector, now=now)
        hits, tokens, omitted = result.hits, None, 0
        if budget is not None:
            hits, tokens, omitted = fit_to_budget(hits, budget)
        self.store.record_hits(who.tenant, [h.memory.id for h in hits], now)
        return SearchResult(hits=hits, degraded=result.degraded, degrade_reason=result.degrade_reason,
                            tokens=tokens, omitted=omitted)

    def _find(
        self, who: Caller, text: str, *, project: str | None, tags: tuple[str, ...], limit: int,
        include_expired: bool, vector: bool, now: datetime,
    ) -> SearchResult:
        """The retrieval behind ``search`` (checked arguments), with no side effects: no use is
        counted and no audit row written, so memwarden's own lookups (``related``) can use it."""
        scope, wanted_tags, top = project, tags, limit
        keyword_query = self.analyzer.query(text)
        terms = keyword_query.terms
        reason: DegradeReason | None = None
        if not terms and not text.strip():
            recent = self.store.list_memories(
                who.tenant, project=scope, tags=wanted_tags, pinned_only=False,
                include_expired=include_expired, now=now, limit=top,
            )
            hits = [Hit(m, 0.0, {"recent": 1.0}) for m in recent]
        else:
            pool = max(MIN_CANDIDATES, top * CANDIDATES_PER_HIT)
            # The vector path starts first and runs beside the keyword search (see VectorPath.submit).
            pending = None if not vector or self.vectors is None else self.vectors.submit(
                who.tenant, text, project=scope, tags=wanted_tags,
                include_expired=include_expired, now=now, limit=pool,
            )
            candidates = self.store.keyword_search(
                who.tenant, keyword_query, project=scope, tags=wanted_tags,
                include_expired=include_expired, now=now, limit=pool,
            ) if terms else []
            nearest: list[Candidate] = []
            if pending is not None:
                nearest, reason = pending()
            elif vector:
                reason = "no_embedder"
            candidates, nearest = self._with_index(candidates), self._with_index(nearest)
            if nearest:
                assert self.vectors is not None
                fused = fuse(candidates, nearest, keyword_query, vector_weight=self.vectors.fusion_weight(text))
                hits = rank(fused, now=now, limit=top, weights=self.ranking)
            else:
                hits = rank_keyword(candidates, keyword_query, now=now, limit=top, weights=self.ranking)
        return SearchResult(hits=hits, degraded=reason is not None, degrade_reason=reason)

    # -- vectors -----------------------------------------------------------------------------

    def start_background(self) -> None:
        """Start loading the embedding model (servers call this once they can answer)."""
        if self.vectors is not None:
            self.vectors.start()

    def vector_status(self, *, probe: bool = True, caller: Caller | None = None) -> dict[str, Any]:
        """State of the vector path and how many of the caller's memories lack a current vector.

        ``state`` is off (no embedder) | loading | ready | failed; ``ok`` is false only when
        failed. ``missing`` counts live memories without a vector of the current model,
        ``embedding_failed`` those whose last embedding failed (the backfill retries them).
        With ``probe`` a ready path embeds a short text within MEMWARDEN_VECTOR_TIMEOUT_MS and
        reports ``probe_ms`` or ``probe_error``.
        """
        who = self._caller(caller)
        if self.vectors is None:
            live = self.store.stats(who.tenant, None, self.clock())["memories"]
            return {"embedder": "none", "state": "off", "ok": True, "error": None, "model": None,
                    "dimension": None, "memories": live, "with_vector": 0, "missing": live, "embedding_failed": 0}
        counts: dict[str, Any] = {"memories": None, "with_vector": None, "missing": None, "embedding_failed": None}
        space = self.vectors.space
        if space is not None:
            c = self.store.vector_counts(who.tenant, space)
            counts = {"memories": c.live, "with_vector": c.with_vector, "missing": c.missing,
                      "embedding_failed": c.failed}
        if probe and space is not None:
            counts.update(self.vectors.probe())
        status = self.vectors.status(counts)
        return {"embedder": self.vectors.kind, "ok": status["state"] != "failed", **status}

    def reindex_embeddings(
        self, *, progress: Callable[[int, int], None] | None = None, wait_s: float = 600.0
    ) -> dict[str, Any]:
        """Embed, in batches, every live memory (all tenants) lacking a vector of the current model."""
        if self.vectors is None:
            raise EmbeddingUnavailable(
                "no embedder is configured: set MEMWARDEN_EMBEDDER (builtin, ollama or openai)", reason="no_embedder"
            )
        if not self.vectors.wait_ready(wait_s):
            raise EmbeddingUnavailable(
                f"the embedder is not usable: {self.vectors.error or 'still loading'}", reason="not_ready"
            )
        self.vectors.on_progress = progress
        try:
            embedded = self.vectors.backfill()
        finally:
            self.vectors.on_progress = None
        return {"embedded": embedded, **self.vector_status()}

    @audited("stats", audit_ops.stats_summary)
    def stats(self, *, project: object | None = None, caller: Caller | None = None) -> dict[str, Any]:
        who = self._caller(caller)
        stats = {"tenant": who.tenant, **self.store.stats(who.tenant, self._project(project), self.clock())}
        if who != self.default_caller:
            # The database is shared by every tenant: its size tells one tenant about the others.
            stats.pop("database_bytes", None)
        return stats

    def related(self, memory: Memory, *, limit: int = RELATED_LIMIT) -> list[Memory]:
        """The live memories of the same tenant and project most related to ``memory``.

        Found by this service's own keyword retrieval (``_find``, what ``search`` runs, without the
        vector path), with the most specific words of the memory's title, tags and content as the
        query; the memory itself
        is left out, and no use is counted and no audit row written (a mirror's lookup is not a
        caller's search).
        """
        # A word found in most memories makes an OR search score nearly every row (18 ms at 10k
        # memories, against under 1 ms without it). The store does not expose document
        # frequencies, so the longest words stand in for the rarest ones (Zipf's law).
        words = list(dict.fromkeys(f"{memory.title} {' '.join(memory.tags)} {memory.content}".split()))
        longest = set(sorted(words, key=lambda w: len(_WORD_CHARS.sub("", w)), reverse=True)[:RELATED_QUERY_WORDS])
        query = " ".join(w for w in words if w in longest)[: v.MAX_QUERY_CHARS]
        if not query.strip():
            return []  # an empty query would list recent memories, which are not related ones
        # Keyword retrieval only: the vector path would embed a query per note (about 20 ms CPU with
        # the builtin model, 4x the mirror's budget), and its answers change while the model warms
        # up, so the same vault would get different links from one `vault sync` to the next.
        result = self._find(
            Caller(actor="vault", tenant=memory.tenant), query, project=memory.project, tags=(),
            limit=min(limit + 1, v.MAX_LIMIT), include_expired=False, vector=False, now=self.clock(),
        )
        return [h.memory for h in result.hits if h.memory.id != memory.id and h.score > 0][:limit]

    # -- vault mirror --------------------------------------------------------------------------

    def vault_status(self, *, probe: bool = False) -> dict[str, Any]:
        """The vault mirror's state for health checks: pending changes, errors, the last error,
        the folders failing now; ``probe=True`` first tries a real file write in each folder."""
        if self.vault is not None and probe:
            self.vault.probe()
        if self.vault is None:
            return {"enabled": False, "pending": 0, "errors": 0, "last_error": None, "failing": [], "folders": []}
        return self.vault.status()

    def vault_flush(self, timeout: float = 10.0) -> bool:
        """Wait (bounded) until every change so far is in the vault folders; False on timeout."""
        return True if self.vault is None else self.vault.flush(timeout)

    def vault_sync(self) -> dict[str, Any]:
        """Rebuild every vault note of the mirrored tenant; remove notes of deleted memories."""
        if self.vault is None:
            raise ConfigError(
                "no vault folders are configured: set MEMWARDEN_VAULT_DIRS to one or more folders "
                "(separated by the OS path separator) and run again"
            )
        memories: list[Memory] = []
        while page := self.store.list_memories(
            self.vault.tenant, project=None, pinned_only=False, include_expired=False,
            now=self.clock(), limit=SYNC_PAGE, offset=len(memories),
        ):
            memories.extend(page)
        return self.vault.sync(memories)

    def echo(self, message: str) -> str:
        return message


__all__ = ["MemoryService", "content_hash"]
