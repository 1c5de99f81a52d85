"""Building memories and their analyzed index text for store-level contract tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from memwarden.intake import content_hash
from memwarden.models import IndexText, Memory
from memwarden.store.base import Store
from memwarden.text.analyzer import Analyzer

T0 = datetime(2026, 3, 1, 12, 0, 0, 123456, tzinfo=UTC)
ANALYZER = Analyzer()


def new_id() -> str:
    from ulid import ULID

    return str(ULID())


def make_memory(
    content: str,
    *,
    tenant: str = "t1",
    project: str = "p",
    title: str = "",
    tags: tuple[str, ...] = (),
    at: datetime = T0,
    ttl: timedelta | None = None,
    pinned: bool = False,
    kind: str = "fact",
) -> Memory:
    return Memory(
        id=new_id(),
        tenant=tenant,
        project=project,
        kind=kind,
        title=title,
        tags=tags,
        content=content,
        content_hash=content_hash(content),
        pinned=pinned,
        created_at=at,
        updated_at=at,
        expires_at=None if ttl is None else at + ttl,
        redactions=(),
    )


def index_of(memory: Memory) -> IndexText:
    return IndexText(
        title=ANALYZER.index_text(memory.title),
        tags=ANALYZER.index_text(" ".join(memory.tags)),
        body=ANALYZER.index_text(memory.content),
    )


def put(store: Store, content: str, **kwargs: object) -> Memory:
    memory = make_memory(content, **kwargs)  # type: ignore[arg-type]
    stored, duplicate = store.add(memory, index_of(memory))
    assert duplicate is False
    return stored


def search_ids(
    store: Store, text: str, *, tenant: str = "t1", now: datetime = T0, **kwargs: object
) -> list[str]:
    """Ids a keyword search for ``text`` (analyzed as the service would) returns."""
    from memwarden.models import KeywordQuery

    args: dict[str, object] = dict(project=None, tags=(), include_expired=False, now=now, limit=50)
    args.update(kwargs)
    query = KeywordQuery(tuple(ANALYZER.terms(text)))
    return [c.memory.id for c in store.keyword_search(tenant, query, **args)]  # type: ignore[arg-type]
