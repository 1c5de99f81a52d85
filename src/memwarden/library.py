"""The Python API: ``memwarden.open(path_or_url) -> Memory``, a handle with typed verbs.

A library does what its caller's code says: the settings are the arguments of ``open`` and
nothing else (no ``MEMWARDEN_*`` variable is read, see ``config.ExplicitSettings``), nothing is
printed (a re-index reports to no bar, memwarden's loggers get a ``NullHandler``), and the
handle closes its store as a context manager. Every verb builds the operation's request model
(``memwarden.requests``) and hands it to the same service the MCP tools, the daemon and the CLI
call, so the checks, redaction, screening and the audit row are theirs exactly.

Docs: docs/python.md (its examples run as doctests).
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Self

from memwarden.errors import ConfigError, StorageError
from memwarden.models import Memory as MemoryRecord
from memwarden.models import SearchResult
from memwarden.requests import (
    AddRequest,
    DeleteRequest,
    ExportRequest,
    GetRequest,
    ImportRequest,
    ListRequest,
    SearchRequest,
    StatsRequest,
    UpdateRequest,
)
from memwarden.write_results import AddResult, DeleteResult

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.embed.base import Embedder
    from memwarden.service import MemoryService

__all__ = ["GetResult", "Memory", "open"]

EmbedderName = Literal["builtin", "ollama", "openai", "none"]
# Aliases: inside ``Memory`` the name ``list`` is the verb, not the type.
Records = list[MemoryRecord]
Ids = list[str]

# A library never decides where its caller's log lines go (the logging HOWTO's rule for
# libraries): without this, Python's last-resort handler would print warnings on stderr.
logging.getLogger("memwarden").addHandler(logging.NullHandler())


class GetResult(NamedTuple):
    """What ``Memory.get`` found: the live memories, and the ids unknown, deleted or not yours."""

    memories: Records
    missing: Ids


def _quiet(done: int, total: int) -> None:
    """The re-index progress of a library: reported to no one."""


def open(
    path_or_url: str | os.PathLike[str],
    *,
    tenant: str | None = None,
    actor: str | None = None,
    embedder: Embedder | EmbedderName | None = None,
    **settings: object,
) -> Memory:
    """Open (and create or migrate) the memory store at ``path_or_url``.

    ``path_or_url``: a SQLite file (``notes.db``, ``sqlite:///notes.db``) or a
    ``postgresql://`` URL. ``tenant`` and ``actor``: who this handle is (defaults ``default``
    and ``local``). ``embedder``: ``None`` or ``"none"`` searches by keywords alone; a provider
    name (``"builtin"``, ``"ollama"``, ``"openai"``) or an ``Embedder`` object adds meaning
    search. Any other setting by its ``Settings`` name (``redaction="dry-run"``,
    ``languages="english,german"``, ``audit=False`` …); an unknown name or a bad value raises
    ``ConfigError``. The environment is never read.
    """
    from memwarden.app import build_service
    from memwarden.config import explicit_settings

    if "db" in settings:
        raise ConfigError("db is the first argument of memwarden.open, not a setting")
    values: dict[str, object] = {**settings, "db": os.fspath(path_or_url)}
    if tenant is not None:
        values["tenant"] = tenant
    if actor is not None:
        values["actor"] = actor
    given: Embedder | None = None
    if embedder is None or isinstance(embedder, str):
        values["embedder"] = embedder or "none"
    else:
        given = embedder
    service = build_service(
        explicit_settings(**values), progress=_quiet, background=False, embedder=given, source="library"
    )
    return Memory(service)


class Memory:
    """An open memory store, as one tenant: add, search, get, list, update, delete, stats,
    export, import_. Use it as a context manager, or call ``close``.

    Results are memwarden's own values (``AddResult``, ``SearchResult`` with ``Hit``s,
    ``MemoryRecord``, ``DeleteResult``, ``GetResult``); failures are ``MemwardenError``
    subclasses (``InvalidInput`` naming the field, ``NotFound``, ``Conflict`` …)."""

    def __init__(self, service: MemoryService) -> None:
        self._service: MemoryService | None = service

    @property
    def service(self) -> MemoryService:
        """The service underneath (its parts: ``memories``, ``searcher``, ``operations``)."""
        if self._service is None:
            raise StorageError("this memory store is closed; open it again with memwarden.open")
        return self._service

    # -- writes ------------------------------------------------------------------------------

    def add(
        self,
        content: str,
        *,
        project: str | None = None,
        kind: str = "fact",
        title: str = "",
        tags: Sequence[str] | None = None,
        pinned: bool = False,
        ttl_hours: float | None = None,
        context: str | None = None,
        thread: str | None = None,
        occurred_at: str | datetime | None = None,
    ) -> AddResult:
        """Store one memory (redacted, screened, deduplicated); fields as ``AddRequest``'s."""
        request = AddRequest(
            content=content,
            project=project,
            kind=kind,
            title=title,
            tags=_listed(tags),
            pinned=pinned,
            ttl_hours=ttl_hours,
            context=context,
            thread=thread,
            occurred_at=occurred_at,
        )
        return self.service.memories.add(request)

    def update(
        self,
        id: str,
        *,
        content: str | None = None,
        project: str | None = None,
        kind: str | None = None,
        title: str | None = None,
        tags: Sequence[str] | None = None,
        pinned: bool | None = None,
        ttl_hours: float | None = None,
        context: str | None = None,
        thread: str | None = None,
        occurred_at: str | datetime | None = None,
        if_version: int | None = None,
    ) -> MemoryRecord:
        """Change fields of one memory in place (None keeps a field); the memory as stored now."""
        request = UpdateRequest(
            id=id,
            content=content,
            project=project,
            kind=kind,
            title=title,
            tags=_listed(tags),
            pinned=pinned,
            ttl_hours=ttl_hours,
            context=context,
            thread=thread,
            occurred_at=occurred_at,
            if_version=if_version,
        )
        return self.service.memories.update(request)

    def delete(self, id: str) -> DeleteResult:
        """Soft-delete one memory (again: nothing changes; an unknown id raises NotFound)."""
        return self.service.memories.delete(DeleteRequest(id=id))

    def import_(
        self, data: str | Mapping[str, Any], *, format: str = "auto", project: str | None = None
    ) -> dict[str, Any]:
        """Import an export (text, or the document ``export`` returned); the counts of the import."""
        text = data if isinstance(data, str) else json.dumps(data)
        return self.service.import_(ImportRequest(data=text, format=format, project=project))

    # -- reads -------------------------------------------------------------------------------

    def search(
        self,
        query: str = "",
        *,
        project: str | None = None,
        tags: Sequence[str] | None = None,
        limit: int = 10,
        include_expired: bool = False,
        max_tokens: int | None = None,
        vector: bool = True,
    ) -> SearchResult:
        """Memories best first, each ``Hit`` with its ``score`` and ``why``; empty query: recent ones."""
        request = SearchRequest(
            query=query,
            project=project,
            tags=_listed(tags),
            limit=limit,
            include_expired=include_expired,
            max_tokens=max_tokens,
            include_context=True,  # a record always carries its context; the flag shapes JSON only
            vector=vector,
        )
        return self.service.search(request)

    def get(self, ids: str | Sequence[str]) -> GetResult:
        """Memories by id: the live ones found, and the ids that are not."""
        wanted = [ids] if isinstance(ids, str) else list(ids)
        found, missing = self.service.memories.get(GetRequest(ids=wanted))
        return GetResult(found, missing)

    def list(
        self,
        *,
        project: str | None = None,
        tags: Sequence[str] | None = None,
        pinned: bool = False,
        limit: int = 20,
        include_expired: bool = False,
    ) -> Records:
        """Memories, most recently updated first (only pinned ones with ``pinned=True``)."""
        request = ListRequest(
            project=project, tags=_listed(tags), pinned=pinned, limit=limit, include_expired=include_expired
        )
        return self.service.memories.list(request)

    def stats(self, *, project: str | None = None) -> dict[str, Any]:
        """Counts and sizes of this tenant's memories."""
        return self.service.memories.stats(StatsRequest(project=project))

    def export(self, *, project: str | None = None, include_deleted: bool = False) -> dict[str, Any]:
        """A memwarden export document (format version 1), ready for ``import_`` or ``json.dump``."""
        return self.service.export(ExportRequest(project=project, include_deleted=include_deleted))

    # -- lifetime ----------------------------------------------------------------------------

    def close(self) -> None:
        """Close the store (waits for background work); closing again does nothing."""
        service, self._service = self._service, None
        if service is not None:
            service.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._service is None else self._service.store.__class__.__name__
        return f"<memwarden.Memory {state}>"


def _listed(values: Sequence[str] | None) -> Ids | None:
    # A lone string is refused by the request (``tags must be a list``), not split into letters.
    if values is None or isinstance(values, str):
        return values  # type: ignore[return-value]
    return list(values)
