"""Storage backends behind the ``Store`` protocol (see ``store/base.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.store.base import Store


def open_store(
    url: str, *, synchronous: str = "FULL", pg_pool_size: int = 10, vector_exact_max: int = 150_000
) -> Store:
    """Open the backend a database URL names: a path or sqlite:/// → SQLite, postgresql:// → PostgreSQL."""
    from memwarden.settings_paths import is_postgres_url

    if is_postgres_url(url):
        from memwarden.store.postgres.connect import require_driver

        require_driver()  # a clear ConfigError naming the extra, before any psycopg import
        from memwarden.store.postgres import PostgresStore

        return PostgresStore(url, pool_size=pg_pool_size)
    from memwarden.settings_paths import sqlite_file_name
    from memwarden.store.sqlite import SQLiteStore

    return SQLiteStore(sqlite_file_name(url), synchronous=synchronous, vector_exact_max=vector_exact_max)
