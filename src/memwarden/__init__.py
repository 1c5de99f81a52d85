"""memwarden: a local-first, governed memory server for AI agents.

As a library: ``memwarden.open(path_or_url) -> Memory`` (docs/python.md). The package root
stays import-light (``memwarden --version`` and the prompt hook start in milliseconds): the
public names below are loaded on first use, each from the module that defines it.

``Memory`` is the open store's handle; a stored memory is a ``MemoryRecord``
(``memwarden.models.Memory`` inside the package).
"""

from __future__ import annotations

from memwarden.version import __version__

TYPE_CHECKING = False  # not typing's: its import is a large share of the prompt hook's budget (docs/performance.md#cold-start; mypy reads it as True)

# Public name -> (module, name in that module).
_PUBLIC = {
    "open": ("memwarden.library", "open"),
    "Memory": ("memwarden.library", "Memory"),
    "GetResult": ("memwarden.library", "GetResult"),
    "MemoryRecord": ("memwarden.models", "Memory"),
    "Hit": ("memwarden.models", "Hit"),
    "SearchResult": ("memwarden.models", "SearchResult"),
    "AddResult": ("memwarden.write_results", "AddResult"),
    "Similar": ("memwarden.write_results", "Similar"),
    "DeleteResult": ("memwarden.write_results", "DeleteResult"),
    "AddRequest": ("memwarden.requests", "AddRequest"),
    "UpdateRequest": ("memwarden.requests", "UpdateRequest"),
    "SearchRequest": ("memwarden.requests", "SearchRequest"),
    "ListRequest": ("memwarden.requests", "ListRequest"),
    "GetRequest": ("memwarden.requests", "GetRequest"),
    "DeleteRequest": ("memwarden.requests", "DeleteRequest"),
    "StatsRequest": ("memwarden.requests", "StatsRequest"),
    "ExportRequest": ("memwarden.requests", "ExportRequest"),
    "ImportRequest": ("memwarden.requests", "ImportRequest"),
    "MemwardenError": ("memwarden.errors", "MemwardenError"),
    "NotFound": ("memwarden.errors", "NotFound"),
    "Conflict": ("memwarden.errors", "Conflict"),
    "InvalidInput": ("memwarden.errors", "InvalidInput"),
    "PolicyBlocked": ("memwarden.errors", "PolicyBlocked"),
    "StorageError": ("memwarden.errors", "StorageError"),
    "EmbeddingUnavailable": ("memwarden.errors", "EmbeddingUnavailable"),
    "ConfigError": ("memwarden.errors", "ConfigError"),
    "MemoryService": ("memwarden.service", "MemoryService"),
    "Settings": ("memwarden.config", "Settings"),
    "build_service": ("memwarden.app", "build_service"),
}

# Spelled out (not built from _PUBLIC) so linters and type checkers read it; a test pins both.
__all__ = [
    "AddRequest",
    "AddResult",
    "ConfigError",
    "Conflict",
    "DeleteRequest",
    "DeleteResult",
    "EmbeddingUnavailable",
    "ExportRequest",
    "GetRequest",
    "GetResult",
    "Hit",
    "ImportRequest",
    "InvalidInput",
    "ListRequest",
    "Memory",
    "MemoryRecord",
    "MemoryService",
    "MemwardenError",
    "NotFound",
    "PolicyBlocked",
    "SearchRequest",
    "SearchResult",
    "Settings",
    "Similar",
    "StatsRequest",
    "StorageError",
    "UpdateRequest",
    "__version__",
    "build_service",
    "open",
]

if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from memwarden.app import build_service
    from memwarden.config import Settings
    from memwarden.errors import (
        ConfigError,
        Conflict,
        EmbeddingUnavailable,
        InvalidInput,
        MemwardenError,
        NotFound,
        PolicyBlocked,
        StorageError,
    )
    from memwarden.library import GetResult, Memory, open
    from memwarden.models import Hit, SearchResult
    from memwarden.models import Memory as MemoryRecord
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
    from memwarden.service import MemoryService
    from memwarden.write_results import AddResult, DeleteResult, Similar


def __getattr__(name: str) -> Any:
    where = _PUBLIC.get(name)
    if where is None:
        raise AttributeError(f"module 'memwarden' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(where[0]), where[1])
