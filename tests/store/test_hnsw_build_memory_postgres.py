"""An HNSW build memwarden starts raises ``maintenance_work_mem``, never lowers it.

pgvector builds the graph far faster while it fits ``maintenance_work_mem``; memwarden raises the
setting to ``BUILD_MEMORY`` for the build's transaction when the session's value is lower, and
keeps a larger value a DBA gave the server, database or role (1M 384-d vectors need about 2.3 GB).
Each test records the setting the ``CREATE INDEX … USING hnsw`` statement ran under, on a real
PostgreSQL with pgvector (tests/postgres_server.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.models import VectorSpace
from memwarden.store.postgres.vectors import BUILD_MEMORY, build_memory_too_low

SPACE = VectorSpace("build-memory-under-test", 4)


def _service(url: str, folder: Path) -> Any:
    return build_service(
        load_settings(db=url, log_file=str(folder / "log"), embedder="none", audit=False),
        background=False,
    )


def _build_memory(service: Any, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """``maintenance_work_mem`` as each HNSW ``CREATE INDEX`` of one load of vectors saw it."""
    import psycopg

    seen: list[str] = []
    execute = psycopg.Cursor.execute

    def recording(self: Any, query: Any, params: Any = None, **kwargs: Any) -> Any:
        text = query if isinstance(query, str) else query.as_string(self.connection)
        if "USING hnsw" in text:
            row = self.connection.execute("SHOW maintenance_work_mem").fetchone()
            seen.append(row[0])
        return execute(self, query, params, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", recording)
    memory = service.memories.add("a note whose vector is loaded", project="p").memory
    service.store.load_vectors(SPACE, [(memory.id, bytes(4 * SPACE.dimension))])
    monkeypatch.undo()
    return seen


def _setting(service: Any) -> str:
    with service.store.connection() as conn:
        return str(conn.execute("SHOW maintenance_work_mem").fetchone()[0])


def test_a_build_under_the_server_default_gets_the_build_memory(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = _service(pg_url, tmp_path)
    try:
        assert _setting(service) == "64MB"  # PostgreSQL's default, below BUILD_MEMORY
        assert _build_memory(service, monkeypatch) == [BUILD_MEMORY]
        assert _setting(service) == "64MB"  # SET LOCAL: the pooled session keeps its own value
    finally:
        service.close()


def test_a_build_keeps_a_larger_maintenance_work_mem_the_dba_configured(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        name = conn.execute("SELECT current_database()").fetchone()[0]  # type: ignore[index]
        conn.execute(f"ALTER DATABASE {name} SET maintenance_work_mem = '3GB'")  # type: ignore[arg-type]
    service = _service(pg_url, tmp_path)
    try:
        assert _build_memory(service, monkeypatch) == ["3GB"]
    finally:
        service.close()


def test_the_comparison_is_in_bytes_whatever_the_units(pg_url: str) -> None:
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        for setting, too_low in (
            ("511MB", True),
            ("523776kB", True),  # 511.5 MB
            ("524288kB", False),  # 512 MB: equal is enough
            ("1000MB", False),
            ("1GB", False),
        ):
            conn.execute(f"SET maintenance_work_mem = '{setting}'")  # type: ignore[arg-type]
            assert build_memory_too_low(conn) is too_low, setting
