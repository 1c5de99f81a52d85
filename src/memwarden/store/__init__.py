"""Storage backends behind the ``Store`` protocol (see ``store/base.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.store.base import Store


def open_store(url: str, *, synchronous: str = "FULL") -> Store:
    """Open the backend a database URL names: a path or sqlite:/// → SQLite."""
    if url.startswith(("postgresql://", "postgres://")):
        from memwarden.errors import ConfigError

        raise ConfigError(
            "MEMWARDEN_DB names PostgreSQL, but this build has no PostgreSQL backend yet; "
            "use a file path for SQLite"
        )
    from memwarden.config_hot import sqlite_path
    from memwarden.store.sqlite import SQLiteStore

    return SQLiteStore(sqlite_path(url), synchronous=synchronous)
