"""What only the PostgreSQL backend has to prove: literals, migrations, errors, the extra."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memwarden.config import load_settings
from memwarden.errors import StorageError
from memwarden.models import IndexText, KeywordQuery, Memory
from memwarden.store import open_store
from memwarden.store.postgres.connect import redact_url
from memwarden.store.postgres.textsearch import tsquery_literal, tsvector_literal

pytestmark = pytest.mark.postgres
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _memory(content: str) -> Memory:
    return Memory(
        id="01JD3Z5X9Q2W8E7R6T5Y4V3K2M",
        tenant="t",
        project="p",
        kind="fact",
        title="",
        tags=(),
        content=content,
        content_hash=content,
        pinned=False,
        created_at=NOW,
        updated_at=NOW,
    )


@pytest.fixture(scope="module")
def pg_conn(pg_server: object):  # type: ignore[no-untyped-def]
    import psycopg

    with psycopg.connect(pg_server.admin_url, autocommit=True) as conn:  # type: ignore[attr-defined]
        yield conn


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(terms=st.lists(st.text(min_size=1, max_size=15), min_size=1, max_size=10))
def test_any_terms_make_a_tsvector_holding_exactly_those_lexemes(pg_conn, terms: list[str]) -> None:  # type: ignore[no-untyped-def]
    body = " ".join(terms)
    literal = tsvector_literal(IndexText(title="", tags="", body=body))
    lexemes = pg_conn.execute("SELECT tsvector_to_array(%s::tsvector)", (literal,)).fetchone()[0]
    expected = {t for t in body.split() if "\x00" not in t}
    assert set(lexemes) == expected


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(terms=st.lists(st.text(max_size=15), max_size=10), prefix=st.booleans())
def test_any_terms_make_a_valid_tsquery_that_matches_them(pg_conn, terms: list[str], prefix: bool) -> None:  # type: ignore[no-untyped-def]
    query = KeywordQuery(tuple(terms), prefix=frozenset(terms) if prefix else frozenset())
    literal = tsquery_literal(query)
    if not literal:
        return
    vector = tsvector_literal(IndexText(title="", tags="", body=" ".join(t for t in terms if " " not in t)))
    pg_conn.execute("SELECT %s::tsquery, %s::tsvector @@ %s::tsquery", (literal, vector, literal))


def test_the_database_indexes_exactly_the_terms_it_was_given(pg_url: str) -> None:
    """No re-stemming or re-splitting by PostgreSQL: 'running' indexed is not 'run'."""
    store = open_store(pg_url)
    try:
        store.add(_memory("x"), IndexText(title="", tags="", body="running quick-ly o'brien c:\\path the"))
        for term, found in (
            ("running", True),
            ("run", False),
            ("quick-ly", True),
            ("quick", False),
            ("o'brien", True),
            ("c:\\path", True),
            ("the", True),
        ):
            hits = store.keyword_search(
                "t", KeywordQuery((term,)), project=None, tags=(), include_expired=False, now=NOW, limit=5
            )
            assert bool(hits) is found, term
    finally:
        store.close()


def test_replicas_starting_together_apply_each_migration_once(pg_url: str) -> None:
    with ThreadPoolExecutor(4) as pool:
        stores = list(pool.map(lambda _: open_store(pg_url), range(4)))
    try:
        applied = [s.applied_migrations for s in stores]  # type: ignore[attr-defined]
        assert sorted(map(len, applied))[-1] >= 1 and sum(1 for a in applied if a) == 1
        import psycopg

        with psycopg.connect(pg_url) as conn:
            versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations ORDER BY version")]
        assert versions == list(range(1, len(versions) + 1))
    finally:
        for s in stores:
            s.close()


def test_memwarden_db_with_a_postgres_url_opens_the_postgres_backend(pg_url: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from memwarden.app import build_service

    service = build_service(load_settings(db=pg_url, log_file=str(tmp_path / "log")))
    try:
        assert service.store.backend == "postgresql"
        assert service.memories.stats()["backend"] == "postgresql"
    finally:
        service.close()


def test_an_unreachable_server_is_a_storage_error_without_the_password() -> None:
    url = "postgresql://memwarden:s3cret-pw@127.0.0.1:1/nowhere"
    with pytest.raises(StorageError) as caught:
        open_store(url)
    assert "s3cret-pw" not in caught.value.message and "cannot connect to PostgreSQL" in caught.value.message


def test_urls_are_printed_without_passwords() -> None:
    assert redact_url("postgresql://u:pw@h:5432/db") == "postgresql://u:***@h:5432/db"
    assert (
        redact_url("postgresql://h/db?password=pw&sslmode=require")
        == "postgresql://h/db?password=***&sslmode=require"
    )
    assert redact_url("postgresql://u@h/db") == "postgresql://u@h/db"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    fields=st.lists(
        st.lists(
            st.text(min_size=1, max_size=10).filter(lambda t: not any(c.isspace() for c in t)), max_size=8
        ),
        min_size=3,
        max_size=3,
    )
)
def test_the_analyzed_fields_read_back_from_the_tsvector(pg_conn, fields: list[list[str]]) -> None:  # type: ignore[no-untyped-def]
    from memwarden.store.postgres.textsearch import parse_tsvector, usable

    index = IndexText(*(" ".join(t for t in terms if usable(t)) for terms in fields))
    text = pg_conn.execute("SELECT %s::tsvector::text", (tsvector_literal(index),)).fetchone()[0]
    assert parse_tsvector(text) == index


def test_bulk_loaded_vectors_are_searchable_through_the_built_index(pg_url: str) -> None:
    import numpy as np

    from memwarden.models import VectorSpace
    from memwarden.store.postgres.vectors import space_index_name

    space = VectorSpace("bulk-model", 4)
    store = open_store(pg_url)
    try:
        ids = []
        for i in range(20):
            memory = _memory(f"bulk {i}")
            memory = memory._replace(id=f"01JD3Z5X9Q2W8E7R6T5Y4V3K{i:02d}")
            store.add(memory, IndexText("", "", f"bulk {i}"))
            ids.append(memory.id)
        vectors = [np.array([1.0, i / 10, 0, 0], dtype=np.float32) for i in range(20)]
        rows = [(mid, (v / np.linalg.norm(v)).tobytes()) for mid, v in zip(ids, vectors, strict=True)]
        assert store.load_vectors(space, rows) == 20  # type: ignore[attr-defined]
        query = np.array([1.0, 0, 0, 0], dtype=np.float32)
        found = store.vector_search(
            "t", space, query, project=None, tags=(), include_expired=False, now=NOW, limit=3
        )  # type: ignore[attr-defined]
        assert [c.memory.id for c in found] == ids[:3]
        import psycopg

        with psycopg.connect(pg_url) as conn:
            conn.execute(
                "SET enable_seqscan = off"
            )  # 20 rows: prove the index matches, not that it is chosen
            plan = "\n".join(
                r[0]
                for r in conn.execute(
                    "EXPLAIN SELECT memory_id FROM memory_vectors WHERE model = 'bulk-model' AND dim = 4"
                    " ORDER BY embedding::vector(4) <=> '[1,0,0,0]'::vector(4) LIMIT 3"
                )
            )
        assert space_index_name(space) in plan
    finally:
        store.close()


def test_replicas_probing_the_keyword_index_together_all_succeed(pg_url: str) -> None:
    stores = [open_store(pg_url) for _ in range(4)]
    try:
        with ThreadPoolExecutor(4) as pool:
            answers = list(pool.map(lambda s: [s.probe_keyword_index() for _ in range(5)], stores))  # type: ignore[attr-defined]
        assert answers == [[None] * 5] * 4
        assert stores[0].keyword_index_mismatch() is None  # type: ignore[attr-defined]
    finally:
        for s in stores:
            s.close()
