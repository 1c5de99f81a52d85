"""PostgreSQL keyword search: the store, not the planner, picks how a step's pool is read
(store/postgres/keyword_plan.py), and the way it picks changes no result."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from memwarden.app import build_service
from memwarden.config import Settings
from memwarden.intake import content_hash
from memwarden.models import KeywordQuery, Memory
from memwarden.store.postgres.keyword_plan import (
    KeywordPlanner,
    LexemeStats,
    choose,
    selectivity,
    window_start,
)

pytestmark = pytest.mark.postgres

NOW = datetime(2030, 1, 1, tzinfo=UTC)
MEMORIES = 3_000


def test_a_words_alternatives_count_once_and_different_words_multiply() -> None:
    stats = LexemeStats({"backup": 0.09, "backu": 0.10, "client": 0.08, "clien": 0.085}, 0.01, 1e6)
    query = KeywordQuery(
        ("backup", "backu", "client", "clien"), groups=(("backup", "backu"), ("client", "clien"))
    )
    assert selectivity(query, stats, every_word=True) == pytest.approx(0.10 * 0.085)
    assert selectivity(query, stats, every_word=False) == pytest.approx(1 - 0.90 * 0.915)
    # A lexeme missing from the statistics is rarer than the rarest listed one.
    assert selectivity(KeywordQuery(("zebra",)), stats, every_word=False) == pytest.approx(0.005)
    prefixed = KeywordQuery(("back",), prefix=frozenset({"back"}))
    assert selectivity(prefixed, stats, every_word=False) == pytest.approx(0.19)


def test_narrow_steps_read_the_gin_matches_and_broad_ones_walk_newest_first() -> None:
    assert choose(0.0085, 1e6, 1000) == "bitmap"  # 8,500 matches against 118,000 rows walked
    assert choose(0.17, 1e6, 1000) == "walk"  # 5,900 rows walked against 170,000 matches
    assert choose(0.0, 1e6, 1000) == "bitmap"
    # A table smaller than the pool: walking it is reading it, compared with its matches.
    assert choose(0.5, 1_000, 1000) == "walk"
    assert choose(0.001, 1_000, 1000) == "bitmap"


def _memories(count: int) -> Iterator[Memory]:
    for i in range(count):
        words = ["deploy" if i % 3 == 0 else "release", "backup" if i % 4 == 0 else "restore", f"w{i % 101}"]
        if i % 50 == 0:
            words.append("invoice")
        content = " ".join(words) + f" note {i}"
        at = NOW - timedelta(minutes=count - i)
        yield Memory(
            id=f"m{i:025d}",
            tenant="default",
            project="p",
            kind="fact",
            title="",
            tags=(),
            content=content,
            content_hash=content_hash(content),
            pinned=False,
            created_at=at,
            updated_at=at,
        )


@pytest.fixture(scope="module")
def filled(pg_server: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    folder: Path = tmp_path_factory.mktemp("pgplan")
    with pg_server.database() as url:
        service = build_service(
            Settings(db=url, log_file=str(folder / "log"), backup_dir=str(folder / "b")), embeddings=False
        )
        store: Any = service.store
        store.import_memories([(m, service.intake.index_text(m)) for m in _memories(MEMORIES)])
        with store.connection() as conn:
            conn.execute("VACUUM ANALYZE memories")
        try:
            yield service
        finally:
            service.close()


def test_the_planner_uses_the_columns_statistics(filled: Any) -> None:
    store, analyzer = filled.store, filled.intake.analyzer
    planner = KeywordPlanner()
    with store.connection() as conn:
        # "invoice" is in one memory in 50 and "deploy" in one in 3: every word, 0.7%: the matches.
        narrow = analyzer.query("deploy invoice")
        assert planner.plan(conn, narrow, every_word=True, pool=1000) == "bitmap"
        # Either word of "deploy backup" is in half of them: walk newest first.
        assert planner.plan(conn, analyzer.query("deploy backup"), every_word=False, pool=1000) == "walk"


def test_a_database_never_analyzed_leaves_the_choice_to_postgresql(pg_url: str, tmp_path: Path) -> None:
    service = build_service(Settings(db=pg_url, log_file=str(tmp_path / "log")), embeddings=False)
    try:
        with service.store.connection() as conn:  # type: ignore[attr-defined]
            assert KeywordPlanner().plan(conn, KeywordQuery(("deploy",)), every_word=False, pool=10) is None
    finally:
        service.close()


@pytest.mark.parametrize(
    "text",
    ["deploy invoice", "deploy backup", "release restore w7", "invoice", "restore w3 w5", "nothing here"],
)
def test_results_are_the_same_whichever_way_the_pool_is_read(filled: Any, text: str) -> None:
    store, analyzer = filled.store, filled.intake.analyzer
    query = analyzer.query(text)

    def search() -> list[tuple[str, float]]:
        found = store.keyword_search(
            "default", query, project=None, tags=(), include_expired=False, now=NOW, limit=50
        )
        return [(c.memory.id, round(c.score, 6)) for c in found]

    class Forced(KeywordPlanner):
        def __init__(self, way: str | None) -> None:
            super().__init__()
            self.way = way

        def plan(self, conn: Any, query: KeywordQuery, *, every_word: bool, pool: int) -> Any:
            return self.way

    chosen = search()
    results = {}
    for way in ("walk", "bitmap", None):
        store._keyword_planner = Forced(way)
        try:
            results[way] = search()
        finally:
            store._keyword_planner = KeywordPlanner()
    assert results["walk"] == results["bitmap"] == results[None] == chosen


def test_memories_stored_at_the_same_time_fill_the_pool_newest_id_first(pg_url: str, tmp_path: Path) -> None:
    """More matches than the pool, all with one ``updated_at``: the pool is the newest ids, so
    both ways of reading it rank the same memories (the GIN way used to keep any 1,000)."""
    from memwarden.store.postgres.store import RANK_POOL

    service = build_service(Settings(db=pg_url, log_file=str(tmp_path / "log")), embeddings=False)
    store: Any = service.store
    try:
        tied = [
            Memory(
                id=f"t{i:025d}",
                tenant="default",
                project="p",
                kind="fact",
                title="",
                tags=(),
                content=f"deploy {'deploy ' * (i % 7)}note {i}",
                content_hash=content_hash(f"tied {i}"),
                pinned=False,
                created_at=NOW,
                updated_at=NOW,
            )
            for i in range(RANK_POOL + 300)
        ]
        store.import_memories([(m, service.intake.index_text(m)) for m in tied])
        query = service.intake.analyzer.query("deploy")
        results = {}
        for way in ("walk", "bitmap"):
            store._keyword_planner.plan = lambda *a, way=way, **k: way
            found = store.keyword_search(
                "default", query, project=None, tags=(), include_expired=False, now=NOW, limit=50
            )
            results[way] = [c.memory.id for c in found]
        assert results["walk"] == results["bitmap"]
        assert min(results["walk"]) >= tied[300].id  # only the newest RANK_POOL ids were ranked
    finally:
        service.close()


class _Windowed(KeywordPlanner):
    """The GIN way, with the window starting at a given ``updated_at``."""

    def __init__(self, start: datetime | None) -> None:
        super().__init__()
        self.start = start

    def read(self, conn: Any, query: KeywordQuery, *, every_word: bool, pool: int) -> Any:
        return "bitmap", self.start


def test_a_window_gives_the_pool_it_replaces_and_a_short_one_is_read_again(
    filled: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, analyzer = filled.store, filled.intake.analyzer
    query = analyzer.query("release")  # in two memories of three: 2,000 matches, two pools
    statements: list[str] = []
    connection = store.connection

    @contextmanager
    def counted() -> Iterator[Any]:
        with connection() as conn:
            execute = conn.execute
            conn.execute = lambda sql, *a, **k: (statements.append(str(sql)), execute(sql, *a, **k))[1]
            try:
                yield conn
            finally:
                del conn.execute

    monkeypatch.setattr(store, "connection", counted)

    def search(start: datetime | None) -> list[str]:
        store._keyword_planner = _Windowed(start)
        statements.clear()
        found = store.keyword_search(
            "default", query, project=None, tags=(), include_expired=False, now=NOW, limit=50
        )
        return [c.memory.id for c in found]

    whole = search(None)
    # The newest 1,600 memories hold about 1,067 matches: a full pool, read once.
    assert search(NOW - timedelta(minutes=1_600)) == whole
    assert sum("updated_at >= " in s for s in statements) == 1 and sum("pooled" in s for s in statements) == 1
    # The newest 100 hold 67: the window is read, then the whole step.
    assert search(NOW - timedelta(minutes=100)) == whole
    assert sum("pooled" in s for s in statements) == 2


def test_the_window_starts_where_the_histogram_leaves_two_pools_of_expected_matches() -> None:
    bounds = tuple(NOW - timedelta(days=100 - i) for i in range(101))  # one percent of memories a day
    stats = LexemeStats({}, 0.01, 1_000_000, bounds)
    # 10,000 expected matches: two pools of them are in the newest 20% (the last 20 days).
    assert window_start(0.01, stats, 1000) == NOW - timedelta(days=20)
    assert window_start(0.002, stats, 1000) is None  # 2,000 matches: read them all
    assert window_start(0.003, stats, 1000) is None  # 3,000: a window of 67% would gain little
    assert window_start(0.01, LexemeStats({}, 0.01, 1_000_000), 1000) is None  # no histogram


def test_an_existing_database_gains_the_recency_index_and_loses_nothing(pg_url: str, tmp_path: Path) -> None:
    import psycopg

    from memwarden.store.postgres import migrations
    from memwarden.store.postgres.rows import COLUMNS, NCOLUMNS, memory_params
    from memwarden.store.postgres.textsearch import tsvector_literal

    service = build_service(
        Settings(db=str(tmp_path / "analyzer.db"), log_file=str(tmp_path / "log")), embeddings=False
    )
    analyze = service.intake.index_text
    service.close()
    before_brin = migrations.MIGRATIONS.index(("0011_recency_brin", migrations.RECENCY_BRIN))
    # The columns of that release: provenance (source, actor) came with a later migration.
    names = [c.strip() for c in COLUMNS.split(",")]
    kept = [i for i, c in enumerate(names) if c not in ("source", "actor")]
    old_columns = ", ".join(names[i] for i in kept)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        migrations.migrate(conn, migrations.MIGRATIONS[:before_brin])  # a database of the release before
        for memory in _memories(500):
            params = memory_params(memory)
            conn.execute(
                f"INSERT INTO memories ({old_columns}, search) VALUES ({', '.join(['%s'] * len(kept))}, %s::tsvector)",
                (*(params[i] for i in kept), tsvector_literal(analyze(memory))),
            )
        rows_before = conn.execute(f"SELECT {old_columns}, search FROM memories ORDER BY id").fetchall()
    assert len(names) == NCOLUMNS
    service = build_service(Settings(db=pg_url, log_file=str(tmp_path / "log")), embeddings=False)
    try:
        with service.store.connection() as conn:  # type: ignore[attr-defined]
            after = conn.execute(f"SELECT {old_columns}, search FROM memories ORDER BY id").fetchall()
            assert after == rows_before
            assert conn.execute("SELECT to_regclass('memories_updated_brin') IS NOT NULL").fetchone()[0]
            applied = conn.execute("SELECT name FROM schema_migrations ORDER BY version").fetchall()
        assert [name for (name,) in applied] == [name for name, _ in migrations.MIGRATIONS]
        hits = service.searcher.search("invoice", limit=50).hits
        assert len(hits) == 10 and all("invoice" in h.memory.content for h in hits)
    finally:
        service.close()
