"""The audit log of a database, opened by its URL, and the check of its whole chain.

These pick a backend from the URL (a path or sqlite:/// → SQLite, postgresql:// → PostgreSQL),
so they live in the store layer beside ``open_store``: the ``audit`` package below defines the
log's protocol and chain and knows no backend.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from datetime import datetime

    from memwarden.audit.base import AuditLog
    from memwarden.audit.chain import VerifyReport
    from memwarden.audit.keys import AuditKey


def open_audit_log(url: str, *, readonly: bool = False, key: AuditKey | None = None) -> AuditLog:
    """The audit log stored in the database ``url`` names (the same URL as ``MEMWARDEN_DB``).

    With ``key`` new rows are keyed (HMAC-SHA256)."""
    from memwarden.settings_paths import is_postgres_url

    if is_postgres_url(url):
        try:
            from memwarden.store.postgres.audit import PostgresAuditLog
        except ImportError:
            from memwarden.errors import ConfigError

            raise ConfigError(
                "MEMWARDEN_DB names PostgreSQL, but this build has no PostgreSQL audit log"
            ) from None
        log: AuditLog = PostgresAuditLog(url, readonly=readonly, key=key)
        return log
    from memwarden.settings_paths import sqlite_file_name
    from memwarden.store.sqlite.audit import SQLiteAuditLog

    return SQLiteAuditLog(sqlite_file_name(url), readonly=readonly, key=key)


def verify_database(
    url: str,
    anchor: tuple[int, str] | None = None,
    *,
    key: AuditKey | None = None,
    now: datetime | None = None,
) -> VerifyReport:
    """Verify the audit chain of the database at ``url`` (read-only; a backup file works).

    ``anchor``: a (seq, hash) noted earlier that the chain must still contain; ``key``: the chain
    key, to check keyed rows' content; ``now``: the wall clock stamps are compared with."""
    from memwarden.audit.chain import verify_log

    log = open_audit_log(url, readonly=True)
    try:
        return verify_log(log, anchor, key=key, now=now)
    finally:
        log.close()


__all__ = ["open_audit_log", "verify_database"]
