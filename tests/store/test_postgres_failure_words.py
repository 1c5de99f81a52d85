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
