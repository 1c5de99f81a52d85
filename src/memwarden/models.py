"""Plain typed values passed between layers.

Immutable named tuples, not dataclasses: every cold `memwarden search` and prompt hook creates
these classes, and a frozen dataclass costs several times a named tuple to create (its methods
are compiled from source; docs/performance.md#cold-start). Copy one with ``value._replace(field=...)``.
"""

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


# The routes a memory can be written through (``Memory.source``): the CLI, the dashboard, an MCP
# client (stdio, Streamable HTTP or the daemon's MCP relay alike), an import file, a hook; and
# ``unknown`` for rows stored before provenance was recorded, or by a caller that named no route.
SOURCES: tuple[str, ...] = ("cli", "dashboard", "mcp", "import", "hook", "library", "unknown")


class Caller(NamedTuple):
    """Who is calling: the actor (a person or agent), the tenant it acts in, and the route
    (``SOURCES``) the call came through, which a write records as the memory's ``source``.

    Compare callers with ``same_party``: the route is not part of who the caller is."""

    actor: str
    tenant: str
    source: str = "unknown"

    def same_party(self, other: "Caller | None") -> bool:
        """The same actor in the same tenant, whatever route either call came through."""
        return other is not None and self.actor == other.actor and self.tenant == other.tenant

    def via(self, source: str) -> "Caller":
        """This caller, coming through ``source`` (one of ``SOURCES``)."""
        if source not in SOURCES:
            raise ValueError(f"unknown source {source!r}; one of {', '.join(SOURCES)}")
        return self._replace(source=source)


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
    # Provenance: the route (``SOURCES``) and actor of the write that gave the memory its text
    # (the add, the import, or the last update that changed a text field); "unknown" and "" for
    # rows written before provenance was recorded whose audit rows do not say.
    source: str = "unknown"
    actor: str = ""

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
            "source": self.source,
            "actor": self.actor,
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
