"""The default backend: one SQLite file (WAL, FTS5)."""

from memwarden.store.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
