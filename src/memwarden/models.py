"""Plain typed values passed between layers.

Immutable named tuples, not dataclasses: every cold `memwarden search` and prompt hook creates
these classes, and a frozen dataclass costs about 1 ms to create (its methods are compiled from
source) against about 0.1 ms for a named tuple. Copy one with ``value._replace(field=...)``.
"""

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Literal, NamedTuple

Kind = Literal["fact", "preference", "episode", "note"]
KINDS: tuple[str, ...] = ("fact", "preference", "episode", "note")
# Where an HTTP adapter leaves the authenticated caller in the ASGI scope for the MCP tools.
CALLER_SCOPE_KEY = "memwarden.caller"
DegradeReason = Literal["no_embedder", "warming_up", "query_timeout", "vector_error"]


def utcnow() -> datetime:
    return datetime.now(UTC)


def format_time(value: datetime | None) -> str | None:
    """ISO 8601 in UTC with microseconds and a Z: fixed width, so it sorts as text."""
    if value is None:
        return None
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_time(value: str | None) -> datetime | None:
    if value is None:
        return None
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


class Caller(NamedTuple):
    """Who is calling: the actor (a person or agent) and the tenant it acts in."""

    actor: str
    tenant: str


class Memory(NamedTuple):
    id: str
    tenant: str
    project: str
    kind: str
    title: str
    tags: tuple[str, ...]
    content: str
    content_hash: str
    pinned: bool
    created_at: datetime
    updated_at: datetime
    expires_at: datetime | None = None
    deleted_at: datetime | None = None
    version: int = 1
    hit_count: int = 0
    last_used_at: datetime | None = None
    redactions: tuple[str, ...] = ()
    # Why this memory reads like instructions to a model (screening.FLAGS); empty when it does not.
    injection_flags: tuple[str, ...] = ()
    # Text explaining the memory (the message it replies to, the question it answers); redacted
    # like content, indexed at low weight, embedded with content, shown only on request.
    context: str = ""
    # Groups memories of one conversation, session or task; "" when none.
    thread: str = ""
    # When the remembered thing happened; None means when it was stored (``occurred``).
    occurred_at: datetime | None = None

    @property
    def occurred(self) -> datetime:
        """When the remembered thing happened: ``occurred_at``, else the time of storing."""
        return self.occurred_at if self.occurred_at is not None else self.created_at

    def is_expired(self, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= now

    def to_dict(self, *, include_context: bool = False) -> dict[str, Any]:
        """The public JSON shape of a memory (the tenant is implied by the caller); ``context``
        only when asked for (it can be long and is not what a caller searched for)."""
        extra = {"context": self.context} if include_context else {}
        return {
            "id": self.id,
            "project": self.project,
            "kind": self.kind,
            "title": self.title,
            "tags": list(self.tags),
            "content": self.content,
            "pinned": self.pinned,
            "created_at": format_time(self.created_at),
            "updated_at": format_time(self.updated_at),
            "expires_at": format_time(self.expires_at),
            "deleted_at": format_time(self.deleted_at),
            "version": self.version,
            "hit_count": self.hit_count,
            "last_used_at": format_time(self.last_used_at),
            "redactions": list(self.redactions),
            "injection_flags": list(self.injection_flags),
            "thread": self.thread,
            "occurred_at": format_time(self.occurred),
            **extra,
        }


class IndexText(NamedTuple):
    """The analyzed text a store's keyword index holds for one memory (never shown to users).

    ``body`` is the content's terms plus the dates its relative time words name (text/dates.py);
    ``context`` the terms of the memory's context, a low-weight field.
    """

    title: str
    tags: str
    body: str
    context: str = ""


class Candidate(NamedTuple):
    """A memory found by one retrieval path, with that path's raw score (higher is better).

    ``indexed`` is the memory's analyzed text when the path has it (the keyword index does); the
    ranking uses it to measure how much of the query a memory covers.
    """

    memory: Memory
    score: float
    indexed: IndexText | None = None


class Hit(NamedTuple):
    memory: Memory
    score: float
    why: dict[str, float]

    def to_dict(self, *, include_context: bool = False) -> dict[str, Any]:
        return {
            **self.memory.to_dict(include_context=include_context),
            "score": round(self.score, 6),
            "why": self.why,
        }


class SearchResult(NamedTuple):
    hits: list[Hit]
    degraded: bool = False
    degrade_reason: DegradeReason | None = None
    # With a token budget: the estimated tokens of the hits returned, and how many of the best
    # ``limit`` hits were left out because they did not fit (see search/budget.py).
    tokens: int | None = None
    omitted: int = 0
    # How long the search waited for the embedding model to finish loading (0 when it was ready).
    vector_wait_ms: float = 0.0
    # Whether hits carry their context (the caller asked for it).
    include_context: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "hits": [hit.to_dict(include_context=self.include_context) for hit in self.hits],
            "count": len(self.hits),
            "degraded": self.degraded,
            "degrade_reason": self.degrade_reason,
            "tokens": self.tokens,
            "omitted": self.omitted,
            "vector_wait_ms": self.vector_wait_ms,
        }


class Similar(NamedTuple):
    id: str
    preview: str
    score: float


class AddResult(NamedTuple):
    memory: Memory
    duplicate: bool = False
    similar: Sequence[Similar] = ()
    redacted: bool = False
    redactions: tuple[str, ...] = ()
    embedding_failed: bool = False
    # enforce: ``redactions`` were applied; dry-run: they would have been (content stored as sent).
    redaction_mode: str = "enforce"
    embedding_error: str | None = None
    # Rules in dry-run (a pack's ``"mode": "dry-run"``, the optional high_entropy rule) that would
    # have matched: reported, never applied.
    redactions_dry_run: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.memory.id,
            "duplicate": self.duplicate,
            "version": self.memory.version,
            "similar": [{"id": s.id, "preview": s.preview, "score": round(s.score, 4)} for s in self.similar],
            "redacted": self.redacted,
            "redactions": list(self.redactions),
            "redaction_mode": self.redaction_mode,
            "redactions_dry_run": list(self.redactions_dry_run),
            "embedding_failed": self.embedding_failed,
            "embedding_error": self.embedding_error,
            "memory": self.memory.to_dict(),
        }


class DeleteResult(NamedTuple):
    id: str
    deleted: bool
    already_deleted: bool

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "deleted": self.deleted, "already_deleted": self.already_deleted}


class VectorSpace(NamedTuple):
    """What a vector belongs to: vectors compare only when model id and dimension are equal."""

    model_id: str
    dimension: int


class VectorCounts(NamedTuple):
    """How far one tenant's memories are embedded in one space (for health and status)."""

    live: int
    with_vector: int
    failed: int

    @property
    def missing(self) -> int:
        return self.live - self.with_vector


class KeywordQuery(NamedTuple):
    """Analyzed query terms for a keyword index; ``prefix`` marks terms matched as prefixes.

    Each backend turns this into its own syntax (FTS5 MATCH, tsquery) and quotes every term,
    so no query syntax from the user ever reaches the index.
    """

    terms: tuple[str, ...]
    prefix: frozenset[str] = frozenset()
    # For each query word, its alternative terms (one per language); a word is covered by a
    # memory holding any of them. Empty means every term is its own word.
    groups: tuple[tuple[str, ...], ...] = ()
    # Terms a store may also match as prefixes when the exact term finds few memories (the
    # SQLite store does; a store that ignores this field just matches them exactly).
    prefix_if_rare: frozenset[str] = frozenset()


class MemoryQuery(NamedTuple):
    """Filters for browsing memories page by page (the dashboard's table); None means any."""

    project: str | None = None
    kind: str | None = None
    tag: str | None = None
    pinned: bool | None = None
    flagged: bool | None = None  # injection screening flagged it (``injection_flags`` not empty)
    created_since: datetime | None = None
    created_until: datetime | None = None  # exclusive


class BrowseCursor(NamedTuple):
    """A place in the browse order (most recently updated first, then by id, descending): the
    ``updated_at`` and ``id`` of the memory a page starts or ends at. Pages read from it with an
    indexed range (keyset paging), so the thousandth page costs what the first does."""

    updated_at: datetime
    id: str

    @classmethod
    def of(cls, memory: Memory) -> "BrowseCursor":
        return cls(memory.updated_at, memory.id)


class MemoryPage(NamedTuple):
    """One page of a browse: the memories, how many match (counted up to ``count_limit``), and
    whether there are matches newer than its first row and older than its last."""

    memories: list[Memory]
    total: int
    total_is_lower_bound: bool = False
    newer: bool = False
    older: bool = False


class StoreOverview(NamedTuple):
    """Aggregates of one tenant's live memories for the dashboard's overview."""

    counts: list[tuple[str, str, int]]  # (project, kind, live memories)
    added_per_week: list[tuple[str, str, int]]  # (ISO date of the week's Monday, project, added)
    most_recalled: list[Memory]
    redactions_per_rule: dict[str, int]  # rule name -> live memories it redacted something in
