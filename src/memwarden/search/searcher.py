"""Searcher: analyze the query, retrieve keyword and vector candidates, fuse, lift by thread
neighbours, rank, fit a budget.

``search`` is what callers run (audited, counts use: the row and the hit counts commit in one
transaction); ``find`` is the same retrieval without side
effects, for memwarden's own lookups (the vault's Related links) and ``memwarden eval``. ``find``
is ``gather`` (the candidates of both paths, once per query) then ``score`` (fusion, thread lift
and ranking under a ``Tuning``), so an evaluation can score many tunings on one gathering. The vector path runs beside
the keyword search within MEMWARDEN_VECTOR_TIMEOUT_MS; when it is missing, warming up, slow or
failing, the hits come from keywords alone and the result says why (``degraded``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from memwarden import validation as v
from memwarden.audit import operations as audit_ops
from memwarden.audit.operations import AuditCall, audited
from memwarden.errors import EmbeddingUnavailable, InvalidInput, MemwardenError
from memwarden.intake import Intake
from memwarden.logs import get_logger
from memwarden.models import Caller, Candidate, DegradeReason, Hit, KeywordQuery, Memory, SearchResult, utcnow
from memwarden.search.budget import fit_to_budget
from memwarden.search.hybrid import fuse
from memwarden.search.ranking import (
    DEFAULT_WEIGHTS,
    RankCandidate,
    RankingWeights,
    boost_by_time,
    keyword_candidates,
    memory_coverage,
    rank,
    time_window,
)
from memwarden.search.threads import THREAD_WEIGHT, lift_by_thread
from memwarden.search.tuning import Tuning
from memwarden.store.base import Store, VectorStore

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.audit.auditor import Auditor
    from memwarden.search.vector_path import VectorPath

CANDIDATES_PER_HIT = 5
MIN_CANDIDATES = 50
RELATED_LIMIT = 5
RELATED_QUERY_WORDS = 5

logger = get_logger(__name__)
DEFAULT_TUNING = Tuning(vector_weight=None, thread_weight=THREAD_WEIGHT)


class Gathered:
    """What both retrieval paths found for one query, before fusion and ranking.

    A plain class, not a named tuple: every cold search and hook defines it, and a named
    tuple's class costs several times as much to create (docs/performance.md#cold-start)."""

    __slots__ = (
        "include_expired",
        "keyword",
        "nearest",
        "now",
        "project",
        "query",
        "reason",
        "tags",
        "text",
        "waited_ms",
        "who",
    )

    def __init__(
        self,
        who: Caller,
        text: str,
        query: KeywordQuery,
        keyword: list[Candidate],
        nearest: list[Candidate],
        reason: DegradeReason | None,
        project: str | None,
        tags: tuple[str, ...],
        include_expired: bool,
        now: datetime,
        waited_ms: float = 0.0,
    ) -> None:
        self.who = who
        self.text = text
        self.query = query
        self.keyword = keyword
        self.nearest = nearest
        self.reason = reason
        self.project = project
        self.tags = tags
        self.include_expired = include_expired
        self.now = now
        self.waited_ms = waited_ms


class Searcher:
    """Finds and explains the caller's memories."""

    def __init__(
        self,
        store: Store,
        intake: Intake,
        *,
        default_caller: Caller,
        ranking: RankingWeights = DEFAULT_WEIGHTS,
        clock: Callable[[], datetime] = utcnow,
        auditor: Auditor | None = None,
        vectors: VectorPath | None = None,
        tuning: Tuning = DEFAULT_TUNING,
    ) -> None:
        self.store = store
        self.tuning = tuning
        self.intake = intake
        self.analyzer = intake.analyzer
        self.default_caller = default_caller
        self.ranking = ranking
        self.clock = clock
        self.auditor = auditor
        self.vectors = vectors

    def _caller(self, caller: Caller | None) -> Caller:
        return caller or self.default_caller

    def _record(self, who: Caller, result: SearchResult, now: datetime, audit: AuditCall | None) -> None:
        """The search's audit row and one use of each hit returned, in one store transaction.

        A search with no hits writes its row alone. When the joint write fails, the row and the
        counts are tried apart, as two transactions: a search refused for want of its row returns
        nothing and uses nothing (``AuditCall.record``); a search whose row was written (or that
        may fail open) is served even when its uses cannot be counted (logged)."""
        ids = [h.memory.id for h in result.hits]
        summary = audit_ops.search_summary(result)
        if audit is None:
            if ids:
                self.store.record_hits(who.tenant, ids, now)
            return
        if not ids:
            audit.record(summary)
            return
        row = audit.for_write(degraded=summary["degraded"], detail=summary["detail"])
        try:
            self.store.record_hits(who.tenant, ids, now, audit=row)
            return
        except MemwardenError:
            audit.record(summary)
        try:
            self.store.record_hits(who.tenant, ids, now)
        except MemwardenError as exc:  # the search was served and recorded; only its count is lost
            logger.error("search: a use could not be counted: %s", exc.message)

    @audited("search", None, query_arg=True)
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
        include_context: bool = False,
        caller: Caller | None = None,
        audit: AuditCall | None = None,
    ) -> SearchResult:
        """Keyword and vector candidates fused, then ranked; ``vector=False`` asks for keywords only.
        ``include_context`` returns each hit's context too (never counted in ``max_tokens``)."""
        who = self._caller(caller)
        text = v.check_query(query)
        top = v.check_limit(limit)
        budget = v.check_max_tokens(max_tokens)
        scope = self.intake.clean_project(project)
        wanted_tags = v.check_tags(tags)
        now = self.clock()
        result = self.find(
            who,
            text,
            project=scope,
            tags=wanted_tags,
            limit=top,
            include_expired=bool(include_expired),
            vector=vector,
            now=now,
        )
        hits, tokens, omitted = result.hits, None, 0
        if budget is not None:
            hits, tokens, omitted = fit_to_budget(hits, budget)
        found = SearchResult(
            hits=hits,
            degraded=result.degraded,
            degrade_reason=result.degrade_reason,
            tokens=tokens,
            omitted=omitted,
            vector_wait_ms=result.vector_wait_ms,
            include_context=bool(include_context),
        )
        self._record(who, found, now, audit)
        return found

    @audited("search", None, query_arg=True)
    def recall(
        self,
        query: object,
        *,
        projects: Sequence[object | None],
        limit: object = 5,
        caller: Caller | None = None,
        audit: AuditCall | None = None,
    ) -> SearchResult:
        """The best ``limit`` hits over several projects (the prompt hook's: the session's and
        ``default``), as one search: one use counted per hit returned and one audit row (its
        project the first one named, all of them in its detail: ``audit.operations.audited``).

        Each project is ranked on its own, as ``search`` ranks it, and the hits are merged by
        score: the session's best match and the user's best standing preference both compete
        at full strength, whichever project holds more or longer memories. ``None`` among
        ``projects`` means every project. While the model loads, recall answers by keywords at
        once (``degrade_reason`` warming_up) instead of waiting for it as ``search`` does: a
        hook's budget is tens of milliseconds.
        """
        who = self._caller(caller)
        text = v.check_query(query)
        top = v.check_limit(limit)
        if not isinstance(projects, (list, tuple)) or not projects:
            raise InvalidInput(
                "projects must be a list of at least one project (null: every project)", field="projects"
            )
        scopes = list(dict.fromkeys(self.intake.clean_project(p) for p in projects))
        if None in scopes:
            scopes = [None]
        now = self.clock()
        analyzed = self.analyzer.query(text)  # once for every project searched
        found = [
            self.find(
                who,
                text,
                project=p,
                tags=(),
                limit=top,
                include_expired=False,
                vector=True,
                now=now,
                # A hook waits tens of milliseconds; a model loads in seconds: keywords meanwhile.
                wait_for_model=False,
                analyzed=analyzed,
            )
            for p in scopes
        ]
        best: dict[str, Hit] = {}
        for hit in (hit for result in found for hit in result.hits):
            if hit.memory.id not in best or hit.score > best[hit.memory.id].score:
                best[hit.memory.id] = hit
        hits = sorted(best.values(), key=lambda h: h.score, reverse=True)[:top]
        degraded = next((r for r in found if r.degraded), None)
        merged = SearchResult(
            hits=hits,
            degraded=degraded is not None,
            degrade_reason=None if degraded is None else degraded.degrade_reason,
            vector_wait_ms=max(r.vector_wait_ms for r in found),
        )
        self._record(who, merged, now, audit)
        return merged

    def _with_index(self, candidates: list[Candidate]) -> list[Candidate]:
        """Candidates with their analyzed text, which the ranking's coverage reads.

        A path that does not return it (the vector path; PostgreSQL's keyword search, which
        keeps only a tsvector) gets it from the analyzer, so coverage means the same on every
        path and backend.
        """
        return [
            c if c.indexed is not None else c._replace(indexed=self.intake.index_text(c.memory))
            for c in candidates
        ]

    def find(
        self,
        who: Caller,
        text: str,
        *,
        project: str | None,
        tags: tuple[str, ...],
        limit: int,
        include_expired: bool,
        vector: bool,
        now: datetime,
        tuning: Tuning | None = None,
        wait_for_model: bool = True,
        analyzed: KeywordQuery | None = None,
    ) -> SearchResult:
        """The retrieval behind ``search`` (checked arguments), with no side effects: no use is
        counted and no audit row written. ``wait_for_model``: see ``VectorPath.submit``;
        ``analyzed``: ``text`` as the analyzer reads it, when the caller has it already."""
        if analyzed is None:
            analyzed = self.analyzer.query(text)
        if not analyzed.terms and not text.strip():
            recent = self.store.list_memories(
                who.tenant,
                project=project,
                tags=tags,
                pinned_only=False,
                include_expired=include_expired,
                now=now,
                limit=limit,
            )
            return SearchResult(hits=[Hit(m, 0.0, {"recent": 1.0}) for m in recent])
        gathered = self.gather(
            who,
            text,
            project=project,
            tags=tags,
            include_expired=include_expired,
            vector=vector,
            now=now,
            limit=limit,
            wait_for_model=wait_for_model,
            analyzed=analyzed,
        )
        hits = self.score(gathered, limit=limit, tuning=tuning)
        return SearchResult(
            hits=hits,
            degraded=gathered.reason is not None,
            degrade_reason=gathered.reason,
            vector_wait_ms=gathered.waited_ms,
        )

    def gather(
        self,
        who: Caller,
        text: str,
        *,
        project: str | None,
        tags: tuple[str, ...],
        include_expired: bool,
        vector: bool,
        now: datetime,
        limit: int = 10,
        wait_for_model: bool = True,
        analyzed: KeywordQuery | None = None,
    ) -> Gathered:
        """Keyword and vector candidates of one (non-empty) query (``analyzed``: see ``find``)."""
        keyword_query = self.analyzer.query(text) if analyzed is None else analyzed
        reason: DegradeReason | None = None
        pool = max(MIN_CANDIDATES, limit * CANDIDATES_PER_HIT)
        # The vector path starts first and runs beside the keyword search (see VectorPath.submit).
        pending = (
            None
            if not vector or self.vectors is None
            else self.vectors.submit(
                who.tenant,
                text,
                project=project,
                tags=tags,
                include_expired=include_expired,
                now=now,
                limit=pool,
                wait_for_model=wait_for_model,
            )
        )
        candidates = (
            self.store.keyword_search(
                who.tenant,
                keyword_query,
                project=project,
                tags=tags,
                include_expired=include_expired,
                now=now,
                limit=pool,
            )
            if keyword_query.terms
            else []
        )
        nearest: list[Candidate] = []
        if pending is not None:
            nearest, reason = pending()
        elif vector:
            reason = "no_embedder"
        return Gathered(
            who,
            text,
            keyword_query,
            self._with_index(candidates),
            self._with_index(nearest),
            reason,
            project,
            tags,
            include_expired,
            now,
            0.0 if pending is None else pending.waited_ms,
        )

    def score(self, gathered: Gathered, *, limit: int, tuning: Tuning | None = None) -> list[Hit]:
        """Fuse, lift by thread neighbours and rank what ``gather`` found (under ``tuning``, by
        default this searcher's own)."""
        tuning = tuning or self.tuning
        query = gathered.query
        fused: list[RankCandidate]
        if gathered.nearest and self.vectors is not None:
            weight = self.vectors.fusion_weight(gathered.text, tuning.vector_weight)
            covered = self.vectors.covered_weight(gathered.text, tuning.vector_weight)
            fused = fuse(
                gathered.keyword, gathered.nearest, query, vector_weight=weight, covered_weight=covered
            )
        else:
            fused = keyword_candidates(gathered.keyword, query)
        tenant = gathered.who.tenant

        def admit(found: Candidate) -> RankCandidate | None:
            memory = found.memory
            if (
                (gathered.project is not None and memory.project != gathered.project)
                or not set(gathered.tags) <= set(memory.tags)
                or (not gathered.include_expired and memory.is_expired(gathered.now))
            ):
                return None
            return RankCandidate(
                memory, 0.0, memory_coverage(query, found.indexed or self.intake.index_text(memory))
            )

        fused = lift_by_thread(
            fused,
            neighbours=lambda ids: self.store.thread_neighbours(tenant, ids),
            fetch=lambda ids: self.store.indexed_memories(tenant, ids),
            admit=admit,
            weights=self.ranking,
            weight=tuning.thread_weight,
        )

        # Time words of the query ("last week", "in May") lift what happened then: a boost, not a filter.
        def latest() -> list[Memory]:
            return self.store.list_memories(
                tenant,
                project=gathered.project,
                pinned_only=False,
                include_expired=True,
                now=gathered.now,
                limit=1,
            )

        fused = boost_by_time(fused, time_window(gathered.text, gathered.now, fused, latest))
        return rank(fused, now=gathered.now, limit=limit, weights=self.ranking)

    def audit_eval(self, caller: Caller, queries: int) -> None:
        """One audit row for a ``memwarden eval`` run (it reads memories like a search does)."""
        if self.auditor is not None:
            self.auditor.record("search", caller, result_count=queries, detail={"eval": queries})

    def related(self, memory: Memory, *, limit: int = RELATED_LIMIT) -> list[Memory]:
        """The live memories of the same tenant and project most related to ``memory``.

        Found by keyword retrieval (``find`` without the vector path) with the most specific
        words of the memory's title, tags and content as the query; the memory itself is left
        out, and no use is counted and no audit row written (a mirror's lookup is not a caller's
        search). Keyword-only because the vector path would embed a query per note, and its
        answers change while the model warms up, so the same vault would get different links
        from one `vault sync` to the next.
        """
        # The store does not expose document frequencies, so the longest words stand in for
        # the rarest ones (Zipf's law): a word found in most memories makes an OR search score
        # nearly every row.
        words = list(dict.fromkeys(f"{memory.title} {' '.join(memory.tags)} {memory.content}".split()))
        longest = set(
            sorted(words, key=lambda w: len(re.sub(r"\W", "", w)), reverse=True)[:RELATED_QUERY_WORDS]
        )
        query = " ".join(w for w in words if w in longest)[: v.MAX_QUERY_CHARS]
        if not query.strip():
            return []  # an empty query would list recent memories, which are not related ones
        result = self.find(
            Caller(actor="vault", tenant=memory.tenant),
            query,
            project=memory.project,
            tags=(),
            limit=min(limit + 1, v.MAX_LIMIT),
            include_expired=False,
            vector=False,
            now=self.clock(),
        )
        return [h.memory for h in result.hits if h.memory.id != memory.id and h.score > 0][:limit]

    # -- the vector path -----------------------------------------------------------------------

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
            return {
                "embedder": "none",
                "state": "off",
                "ok": True,
                "error": None,
                "model": None,
                "dimension": None,
                "memories": live,
                "with_vector": 0,
                "missing": live,
                "embedding_failed": 0,
            }
        counts: dict[str, Any] = {
            "memories": None,
            "with_vector": None,
            "missing": None,
            "embedding_failed": None,
        }
        space = self.vectors.space
        if space is not None and isinstance(self.store, VectorStore):
            c = self.store.vector_counts(who.tenant, space)
            counts = {
                "memories": c.live,
                "with_vector": c.with_vector,
                "missing": c.missing,
                "embedding_failed": c.failed,
            }
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
                "no embedder is configured: set MEMWARDEN_EMBEDDER (builtin, ollama or openai)",
                reason="no_embedder",
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
