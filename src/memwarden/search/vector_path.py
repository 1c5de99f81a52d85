"""The vector side of memwarden: warm-up in the background, a time budget, and the backfill.

Nothing here may make a search hang or an add fail. The state machine:

    off (no embedder) ──────────────────────────────► searches degrade: no_embedder
    loading (model loads, vectors load) ────────────► searches degrade: warming_up
    ready ──► each query: embed + vector search within MEMWARDEN_VECTOR_TIMEOUT_MS,
              else keyword results with query_timeout (too slow) or vector_error (failed)
    failed (the model could not load) ──────────────► searches degrade: vector_error

A server's writes never wait for the model: an add commits the memory and its keyword index and
wakes the background embedder, which drains the store's embedding queue (live memories without
a vector of the current model, found from a watermark, so a pass costs what changed) in batches.
The queue is the database itself: nothing is lost on a crash, and a search meanwhile finds the
new memory by its keywords.

The embedder gives way to requests: its thread (and the inference threads it starts) runs at a
lower OS priority on Linux, and while writes keep arriving it waits for a pause in them
(``QUIET_S``), never longer than ``MAX_DEFER_S`` after the first write it has not embedded; so a
burst of adds does not share the cores with its own embedding, and under a steady stream every
memory still gets its vector within that bound plus the embedding time.

Memories this process wrote while the model loaded are embedded by the first drain after it:
until that drain has run, a search would miss them by meaning without saying so, so it waits for
the drain (within MEMWARDEN_VECTOR_WARMUP_WAIT_MS) and otherwise answers by keywords with
``warming_up``. A one-shot process (``background=False``) embeds at once instead.
When embedding fails the memory is kept and marked (``embedding_error``); the background
retries it every ``backfill_interval_s``.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from datetime import datetime
from typing import Any, Literal

from memwarden.embed.base import BATCH_SIZE, Embedder
from memwarden.errors import EmbeddingUnavailable, MemwardenError, StorageError
from memwarden.govern.markers import unmarked
from memwarden.logs import get_logger
from memwarden.models import Candidate, DegradeReason, Memory, VectorSpace
from memwarden.store.base import Store, VectorStore

logger = get_logger(__name__)
#: The embedder embeds written memories once writes have paused this long (a burst of adds then
#: forms one batch, and the adds do not share the cores with the embedding of the ones before)...
QUIET_S = 0.1
#: ...or once the first of them has waited this long, however steady the stream of writes.
MAX_DEFER_S = 2.0
#: Memories embedded per step of a drain; between steps a drain gives way to writes that arrived
#: (within the same bound), so a long backlog does not hold the cores through a burst of adds.
DRAIN_STEP = 32
#: How much the embedder's thread lowers its OS priority (Linux niceness, per thread; the threads
#: it starts inherit it): requests run first whenever the cores are short.
BACKGROUND_NICE = 10
#: Query vectors kept for reuse (the same text searched again soon, e.g. in two projects).
RECENT_QUERIES = 32
State = Literal["off", "loading", "ready", "failed"]


def embedding_text(memory: Memory) -> str:
    """What is embedded for a memory: its title (when it has one) above its content, each
    redaction marker as one neutral word (a rule's name would pull the memory toward queries
    about e-mail or phones). The context is not embedded: it reaches search through the keyword
    index and the thread lift, and embedding it with the content measured worse on LoCoMo (a
    reply's vector moved towards the question before it, which then ranked both; docs/search.md)."""
    return unmarked("\n".join(part for part in (memory.title, memory.content) if part))


def give_way_to_requests() -> None:
    """Lower the calling thread's OS priority by ``BACKGROUND_NICE`` and name it for ``top -H``.

    Linux only, where niceness belongs to each thread (``setpriority`` on its id) and threads it
    starts inherit it; elsewhere the id would name a process, so nothing is done. A refusal (a
    sandbox without the right) leaves the thread as it was: it then shares the cores evenly.
    """
    if not sys.platform.startswith("linux"):
        return
    tid = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + BACKGROUND_NICE))
    except OSError as exc:
        logger.debug("the background embedder keeps its priority: %s", exc)
    try:
        with open(f"/proc/self/task/{tid}/comm", "w", encoding="ascii") as comm:
            comm.write("memwarden-embed")
    except OSError:
        pass  # a name for the process list only


class PendingVectors:
    """A vector search under way: call it for ``(candidates, degrade reason)``; ``waited_ms`` is
    how long starting it waited for the model to finish loading."""

    def __init__(
        self, wait: Callable[[], tuple[list[Candidate], DegradeReason | None]], waited_ms: float = 0.0
    ):
        self._wait = wait
        self.waited_ms = waited_ms

    def __call__(self) -> tuple[list[Candidate], DegradeReason | None]:
        return self._wait()


class VectorPath:
    """Owns the embedder for one service. ``background=False`` (the CLI) loads on first use."""

    def __init__(
        self,
        store: Store | VectorStore,
        embedder: Embedder | None,
        *,
        timeout_ms: int,
        backfill_interval_s: float = 60.0,
        background: bool = True,
        kind: str = "",
        warmup_wait_ms: int = 0,
    ) -> None:
        # A Store that is usually also a VectorStore (checked in ``_load``, before any vector call).
        self.store: Any = store
        self.kind = kind or ("none" if embedder is None else type(embedder).__name__)
        self.embedder = embedder
        self.timeout_s = timeout_ms / 1000
        self.backfill_interval_s = backfill_interval_s
        self.warmup_wait_s = warmup_wait_ms / 1000
        self.background = background
        self.state: State = "off" if embedder is None else "loading"
        self.error: str | None = None
        self._started = False
        self._start_lock = threading.Lock()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._loaded = threading.Event()
        # Set once the queue has been drained after the model loaded; only waited for when this
        # process wrote memories while it loaded (``_written_while_loading``).
        self._caught_up = threading.Event()
        self._written_while_loading = False
        # When the last write woke the embedder, and when the first it has not embedded did
        # (None: every write so far is served by a drain under way or done); monotonic clock.
        self._last_write = float("-inf")
        self._first_waiting: float | None = None
        self._thread: threading.Thread | None = None
        self._executor: ThreadPoolExecutor | None = None
        self.on_progress: Callable[[int, int], None] | None = None
        #: Called with the just-embedded memories the semantic screening head flags (``Memories``
        #: sets it to write the flag); None: stored vectors are not screened.
        self.on_semantic_flags: Callable[[list[Memory]], object] | None = None
        self._recent_queries: OrderedDict[tuple[VectorSpace, str], Any] = OrderedDict()
        self._recent_lock = threading.Lock()

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> None:
        """Begin loading (in a daemon thread unless ``background`` is off). Idempotent."""
        with self._start_lock:
            if self._started or self.embedder is None:
                return
            self._started = True
        if not self.background:
            self._load()
            return
        self._thread = threading.Thread(target=self._run, name="memwarden-embedder", daemon=True)
        self._thread.start()

    def _load(self) -> None:
        assert self.embedder is not None
        if not isinstance(self.store, VectorStore):
            self.state = "failed"
            self.error = f"the {self.store.backend} backend has no vector search yet; searches use keywords"
            self._loaded.set()
            return
        try:
            self.embedder.load()
            self.store.warm_vectors(self.embedder.identity)
        except (EmbeddingUnavailable, StorageError) as exc:
            self.state, self.error = "failed", exc.message
            logger.warning("vector search is off: %s", exc.message)
        else:
            self.state = "ready"
        finally:
            self._loaded.set()

    def _run(self) -> None:
        give_way_to_requests()
        self._load()
        if self.state == "ready":
            self._say_backlog()
        mark: Any = None
        retried = time.monotonic()
        while self.state == "ready" and not self._stop.is_set():
            try:
                try:
                    mark = self._drain(mark)
                finally:
                    self._caught_up.set()  # a memory whose embedding failed is retried later
                if time.monotonic() - retried >= self.backfill_interval_s:
                    retried = time.monotonic()
                    self._retry_failed()
                maintain = getattr(self.store, "maintain_vectors", None)
                if maintain is not None and self.space is not None:
                    maintain(self.space)
            except (EmbeddingUnavailable, StorageError) as exc:
                logger.warning("background embedding will retry: %s", exc.message)
            if self._wake.wait(self.backfill_interval_s):
                self._wait_for_pause(self._defer_deadline())
            self._wake.clear()

    def _defer_deadline(self) -> float:
        """``MAX_DEFER_S`` after the first write not embedded yet (or from now, when none waits)."""
        first = self._first_waiting
        return MAX_DEFER_S + (time.monotonic() if first is None else first)

    def _wait_for_pause(self, deadline: float) -> None:
        """Wait until no write has arrived for ``QUIET_S``, or until ``deadline`` (monotonic)."""
        while not self._stop.is_set():
            now = time.monotonic()
            until = min(self._last_write + QUIET_S, deadline)
            if now >= until:
                return
            self._stop.wait(until - now)

    def _say_backlog(self) -> None:
        """Once the model is loaded in a server: how many memories wait for a vector of it. After
        a change of model (an upgrade whose default model is another one) that is every memory,
        said as a warning; the memories written while the model loaded are only noted. The loop
        below embeds them, and keyword search finds them meanwhile."""
        import logging

        space = self.space
        if space is None:
            return
        try:
            counts = self.store.vector_counts(None, space)
            changed = bool(counts.missing) and self.store.holds_other_vectors(space)
        except StorageError:
            return
        if counts.missing:
            logger.log(
                logging.WARNING if changed else logging.INFO,
                "%d of %d memories have no vector of %s yet: embedding them in the background; "
                "keyword search finds them meanwhile",
                counts.missing,
                counts.live,
                space.model_id,
            )

    def _drain(self, mark: Any) -> Any:
        """Embed the store's queue until it is empty, in steps of ``DRAIN_STEP`` memories, giving
        way to writes between steps until ``MAX_DEFER_S`` after the first write this drain
        serves; returns the queue's new watermark."""
        space = self.space
        seen: set[str] = set()
        deadline = self._defer_deadline()
        self._first_waiting = None  # writes from here on are served by this drain or the next
        while space is not None and not self._stop.is_set():
            step_started = time.monotonic()
            batch, mark = self.store.embedding_queue(space, mark, limit=DRAIN_STEP)
            batch = [m for m in batch if m.id not in seen]
            if not batch:
                break
            seen.update(m.id for m in batch)
            error = self._embed_now(space, batch)
            if error is not None:
                raise EmbeddingUnavailable(error, reason="backfill")
            if self._last_write > step_started:
                self._wait_for_pause(deadline)
        return mark

    def _retry_failed(self) -> None:
        space = self.space
        if space is None:
            return
        failed = self.store.failed_embeddings(space, limit=BATCH_SIZE)
        if failed:
            self._embed_now(space, failed)

    def wait_ready(self, timeout: float) -> bool:
        """Start if needed and block until loading finished; True when ready."""
        self.start()
        if self.embedder is not None:
            self._loaded.wait(timeout)
        return self.state == "ready"

    def wait_caught_up(self, timeout: float) -> bool:
        """Block until the background embedder has finished its first drain after loading (the
        memories written before then are embedded; later writes wait for a pause). True when it
        has; False on timeout, or with no background thread."""
        return self._thread is not None and self._caught_up.wait(timeout)

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
        if self.embedder is not None:
            self.embedder.close()

    def fusion_weight(self, query: str, weight: float | None = None) -> float:
        """The share of fused relevance the vector path gets for this query: ``weight`` (the
        MEMWARDEN_SEARCH_VECTOR_WEIGHT setting) or the model's own, except where the model says
        it is no judge of the query (the builtin MiniLM on CJK queries: 0)."""
        from memwarden.search.hybrid import VECTOR_WEIGHT

        own = float(getattr(self.embedder, "fusion_weight", VECTOR_WEIGHT))
        per_query = getattr(self.embedder, "fusion_weight_for", None)
        if per_query is not None and float(per_query(query)) <= 0.0:
            return 0.0
        if weight is not None:
            return weight
        return float(per_query(query)) if per_query is not None else own

    def covered_weight(self, query: str, weight: float | None = None) -> float | None:
        """The vector share for a query its keyword hits cover completely (``hybrid.fuse``):
        the model's ``covered_fusion_weight``, or None (a flat weight) when the model has none,
        when MEMWARDEN_SEARCH_VECTOR_WEIGHT sets the weight, or when the model sits this query out."""
        covered = getattr(self.embedder, "covered_fusion_weight", None)
        if weight is not None or covered is None or self.fusion_weight(query) <= 0.0:
            return None
        return float(covered)

    @property
    def space(self) -> VectorSpace | None:
        if self.embedder is None or self.state != "ready":
            return None
        return self.embedder.identity

    # -- writes ---------------------------------------------------------------------------------

    def embed_memories(self, memories: Sequence[Memory]) -> str | None:
        """Vectors for these just-written memories; the error text when embedding them failed.

        A server (background thread) only wakes its embedder: the write returns at once and the
        memories are embedded from the queue within moments. A one-shot process embeds now.
        Not ready yet: nothing happens (the queue is drained once the model is warm).
        """
        self.start()
        if not memories:
            return None
        if self._thread is not None:
            if self.state == "loading":
                self._written_while_loading = True
            self._last_write = time.monotonic()
            if self._first_waiting is None:
                self._first_waiting = self._last_write
            self._wake.set()
            return None
        space = self.space
        if space is None:
            return None
        return self._embed_now(space, memories)

    def _embed_now(self, space: VectorSpace, memories: Sequence[Memory]) -> str | None:
        import numpy as np

        assert self.embedder is not None
        try:
            vectors = self.embedder.embed_documents([embedding_text(m) for m in memories])
            vectors = np.ascontiguousarray(vectors, dtype=np.float32)
            self.store.put_vectors(
                space, [(m.id, m.version, vectors[i].tobytes()) for i, m in enumerate(memories)]
            )
        except EmbeddingUnavailable as exc:
            self.store.record_embedding_failure([m.id for m in memories], exc.message)
            self._wake.set()
            return exc.message
        self._screen_vectors(space, memories, vectors)
        return None

    def _screen_vectors(self, space: VectorSpace, memories: Sequence[Memory], vectors: Any) -> None:
        """Score the vectors just stored with the semantic screening heads (``screening.semantic``)
        trained in this space, and hand the memories they flag that carry no flag yet
        to ``on_semantic_flags``. A failure to write a flag is logged: the vectors are stored."""
        if self.on_semantic_flags is None:
            return
        from memwarden.screening.semantic import heads_for, semantic_flagged

        heads = heads_for(space)
        if not heads:
            return
        fresh = [i for i, m in enumerate(memories) if not m.injection_flags]
        if not fresh:
            return
        flagged = semantic_flagged(heads, vectors[fresh], [embedding_text(memories[i]) for i in fresh])
        over = [memories[i] for i, hit in zip(fresh, flagged, strict=True) if hit]
        if not over:
            return
        try:
            self.on_semantic_flags(over)
        except MemwardenError as exc:
            logger.warning("semantic screening could not flag %d memories: %s", len(over), exc.message)

    def backfill(self, *, limit: int | None = None, tenant: str | None = None) -> int:
        """Embed memories that lack a vector of the current model, in batches; how many were."""
        space = self.space
        if space is None:
            return 0
        # Counting is for the progress bar of an explicit reindex only (never in the background).
        total = 0 if self.on_progress is None else self.store.vector_counts(tenant, space).missing
        done = 0
        cursor: Any = None
        while not self._stop.is_set() and (limit is None or done < limit):
            # One walk over the table, page after page (each page used to start again from the
            # first row, so each page read the whole embedded part again at 1M memories).
            batch, cursor = self.store.missing_vectors_page(space, cursor, limit=BATCH_SIZE, tenant=tenant)
            if not batch:
                if tenant is None:
                    self._caught_up.set()  # every memory has a vector now, as after a drain
                break
            error = self._embed_now(space, batch)
            if error is not None:
                raise EmbeddingUnavailable(error, reason="backfill")
            done += len(batch)
            if self.on_progress is not None:
                self.on_progress(done, max(total, done))
        return done

    def embed_backlog(self) -> int:
        """After a bulk write (import): a server wakes its backfill thread and returns at once;
        a one-shot command embeds everything missing now, in batches. How many were embedded."""
        if self.background:
            self._wake.set()
            return 0
        if not self.wait_ready(600):
            return 0
        try:
            return self.backfill()
        except EmbeddingUnavailable as exc:
            logger.warning("embedding after import failed (memories kept, retried later): %s", exc.message)
            return 0

    # -- search ---------------------------------------------------------------------------------

    def _pool(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="memwarden-vector")
        return self._executor

    def search(
        self,
        tenant: str,
        text: str,
        *,
        project: str | None,
        tags: Sequence[str],
        include_expired: bool,
        now: datetime,
        limit: int,
    ) -> tuple[list[Candidate], DegradeReason | None]:
        """Vector candidates within the budget, or none and the reason why."""
        return self.submit(
            tenant, text, project=project, tags=tags, include_expired=include_expired, now=now, limit=limit
        )()

    def submit(
        self,
        tenant: str,
        text: str,
        *,
        project: str | None,
        tags: Sequence[str],
        include_expired: bool,
        now: datetime,
        limit: int,
        wait_for_model: bool = True,
    ) -> PendingVectors:
        """Start the vector search in the background and return the function that waits for it.

        The caller runs its keyword search in the meantime, so a hybrid search costs about the
        slower of the two paths, not their sum. The budget counts from this call. Without
        ``wait_for_model`` a search arriving while the model loads does not wait for it (the
        prompt hook's: its budget is tens of milliseconds, a model loads in seconds).
        """
        self.start()
        if self.embedder is None:
            return PendingVectors(lambda: ([], "no_embedder"))
        waited = 0.0
        if self.state == "loading" and self.warmup_wait_s > 0 and wait_for_model:
            # A search arriving while the model loads waits for it a bounded time
            # (MEMWARDEN_VECTOR_WARMUP_WAIT_MS) rather than answer keyword-only at once; the
            # result reports the wait (vector_wait_ms), and warming_up when it ran out.
            started = time.monotonic()
            self._loaded.wait(self.warmup_wait_s)
            waited = round((time.monotonic() - started) * 1000, 1)
        if self.state == "loading":
            return PendingVectors(lambda: ([], "warming_up"), waited)
        if self.state == "failed":
            return PendingVectors(lambda: ([], "vector_error"), waited)
        if self._written_while_loading and not self._caught_up.is_set():
            # When: this process stored memories while the model loaded and the embedder has not
            # drained them yet. Why: a vector search now would miss them without saying so. What
            # the caller sees: the same bounded wait, then keyword results marked warming_up.
            if wait_for_model:
                started = time.monotonic()
                self._caught_up.wait(max(0.0, self.warmup_wait_s - waited / 1000))
                waited = round(waited + (time.monotonic() - started) * 1000, 1)
            if not self._caught_up.is_set():
                return PendingVectors(lambda: ([], "warming_up"), waited)
        embedder, space, budget = self.embedder, self.embedder.identity, self.timeout_s
        floor = float(getattr(embedder, "min_similarity", 0.0))
        deadline = time.monotonic() + budget

        def run() -> list[Candidate]:
            vector = self._query_vector(text, budget)
            found = self.store.vector_search(
                tenant,
                space,
                vector,
                project=project,
                tags=tags,
                include_expired=include_expired,
                now=now,
                limit=limit,
            )
            # Nearest is not the same as related: below the model's floor a vector hit is noise.
            return [c for c in found if c.score >= floor]

        future: Future[list[Candidate]] = self._pool().submit(run)

        def wait() -> tuple[list[Candidate], DegradeReason | None]:
            try:
                return future.result(timeout=max(0.0, deadline - time.monotonic())), None
            except FutureTimeout:
                future.cancel()
                return [], "query_timeout"
            except EmbeddingUnavailable as exc:
                return [], "query_timeout" if exc.fields.get("reason") == "timeout" else "vector_error"
            except (StorageError, ValueError) as exc:
                logger.warning("vector search failed: %s", exc)
                return [], "vector_error"

        return PendingVectors(wait, waited)

    def _query_vector(self, text: str, budget: float) -> Any:
        """The query's vector, reused when the same text was embedded moments ago: the prompt
        hook's recall searches two projects with one query, and a client often repeats one."""
        assert self.embedder is not None
        key = (self.embedder.identity, text)
        with self._recent_lock:
            vector = self._recent_queries.get(key)
            if vector is not None:
                self._recent_queries.move_to_end(key)
                return vector
        vector = self.embedder.embed_query(text, timeout=budget)
        with self._recent_lock:
            self._recent_queries[key] = vector
            while len(self._recent_queries) > RECENT_QUERIES:
                self._recent_queries.popitem(last=False)
        return vector

    def probe(self) -> dict[str, Any]:
        """Embed a short text within the search budget: ``probe_ms``, or ``probe_error``."""
        if self.embedder is None or self.state != "ready":
            return {"probe_error": f"vector path is {self.state}"}
        embedder = self.embedder
        started = time.perf_counter()
        future = self._pool().submit(embedder.embed_query, "memwarden health probe", timeout=self.timeout_s)
        try:
            future.result(timeout=self.timeout_s)
        except FutureTimeout:
            return {"probe_error": f"no answer within {int(self.timeout_s * 1000)} ms"}
        except EmbeddingUnavailable as exc:
            return {"probe_error": exc.message}
        return {"probe_ms": round((time.perf_counter() - started) * 1000, 2)}

    def status(self, counts: Any) -> dict[str, Any]:
        space = self.embedder.identity if self.embedder is not None and self.state == "ready" else None
        return {
            "state": self.state,
            "error": self.error,
            "model": space.model_id if space else None,
            "dimension": space.dimension if space else None,
            "timeout_ms": int(self.timeout_s * 1000),
            **counts,
        }
