"""A PostgreSQL failure of the memory store is one line in words, with what to do (issue 38):
real statements on a real server (tests/postgres_server.py) fail through the store's own
``connection()``, and the StorageError names the problem and the fix, never psycopg's class."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from memwarden.errors import StorageError
from memwarden.store.postgres.store import PostgresStore

# psycopg's classes are named after SQLSTATEs: ReadOnlySqlTransaction, SyntaxError, UndefinedTable...
CLASS_NAME = re.compile(
    r"\b(ReadOnlySqlTransaction|InsufficientPrivilege|SyntaxError|UndefinedTable|[A-Z][a-z]+Error)\b"
)


@pytest.fixture
def store(pg_migrated_url: str) -> Iterator[PostgresStore]:
    opened = PostgresStore(pg_migrated_url, pool_size=1)  # one connection: a SET holds for the next use
    try:
        yield opened
    finally:
        opened.close()


def _failure(store: PostgresStore, *statements: str) -> str:
    with pytest.raises(StorageError) as raised:
        with store.connection() as conn:
            for statement in statements:
                conn.execute(statement)  # type: ignore[arg-type]
    line = raised.value.message
    assert "\n" not in line and not CLASS_NAME.search(line), line
    return line


def test_a_read_only_database_says_to_use_the_primary(store: PostgresStore) -> None:
    line = _failure(store, "SET default_transaction_read_only = on", "CREATE TABLE kept_out (x int)")
    assert line.startswith("the PostgreSQL database is read-only (")
    assert line.endswith("; point MEMWARDEN_DB at the primary, not a standby")
    with store.connection() as conn:
        conn.execute("RESET default_transaction_read_only")
        assert conn.execute("SELECT to_regclass('kept_out')").fetchone() == (None,)  # nothing created


def test_a_user_without_rights_is_told_to_grant_them(store: PostgresStore) -> None:
    line = _failure(
        store,
        "CREATE ROLE reader_without_rights NOLOGIN",
        "SET ROLE reader_without_rights",
        "SELECT count(*) FROM memories",
    )
    assert "lacks rights on memwarden's tables" in line and "grant them" in line
    with store.connection() as conn:
        conn.execute("RESET ROLE")
        conn.execute("DROP ROLE reader_without_rights")


def test_a_schema_mismatch_says_to_migrate(store: PostgresStore) -> None:
    line = _failure(store, "SELECT no_such_column FROM memories")
    assert "does not fit this database's schema" in line and "memwarden migrate" in line
    assert "no_such_column" in line  # the server's own first line stays as the detail


def test_any_other_failure_keeps_the_servers_line_and_points_to_its_log(store: PostgresStore) -> None:
    line = _failure(store, "SELECT 1 / 0")
    assert line.startswith("PostgreSQL at ") and "(division by zero)" in line
    assert line.endswith("check the server's log; `memwarden doctor` checks the connection")


def test_a_refused_operation_whose_audit_row_fails_logs_why(
    pg_migrated_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """An export refused by the CLI's own check is recorded in the audit log; when that row cannot
    be written (this user may not insert into the audit log), the log line says why."""
    import logging

    import psycopg

    from memwarden.app import build_service
    from memwarden.config import load_settings
    from memwarden.errors import InvalidInput

    with psycopg.connect(pg_migrated_url, autocommit=True) as admin:
        admin.execute("CREATE ROLE writer_without_audit LOGIN")
        admin.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO writer_without_audit")
        admin.execute("GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO writer_without_audit")
        admin.execute("REVOKE INSERT, UPDATE ON audit_log, audit_head FROM writer_without_audit")
    user_url = re.sub(r"^postgresql://[^:@/]*", "postgresql://writer_without_audit", pg_migrated_url)
    service = build_service(load_settings(db=user_url))
    try:
        with caplog.at_level(logging.ERROR, logger="memwarden"):
            service.operations.refused("export", InvalidInput("out.json exists; choose a new file name"))
    finally:
        service.close()
        with psycopg.connect(pg_migrated_url, autocommit=True) as admin:
            admin.execute("REASSIGN OWNED BY writer_without_audit TO CURRENT_USER")
            admin.execute("DROP OWNED BY writer_without_audit")
            admin.execute("DROP ROLE writer_without_audit")
    (line,) = [r.getMessage() for r in caplog.records if "could not record" in r.getMessage()]
    assert line.startswith("could not record a failed export in the audit log: ")
    assert "lacks rights on the audit tables" in line and "grant them" in line
