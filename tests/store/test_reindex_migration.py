"""The analyzed keyword index: migration 0002 re-indexes existing databases, and a change of
languages re-indexes again; a long re-index draws a progress bar."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.progress import PROGRESS_MIN_MEMORIES, ReindexProgress
from memwarden.store.sqlite.migrations import MIGRATIONS, migrate


def _old_database(path: Path, contents: list[str]) -> None:
    """A database as the core release wrote it: schema 0001, raw lower-cased words indexed."""
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, MIGRATIONS[:1])
    # One transaction for the rows: in autocommit each insert is a commit (a disk sync of its own).
    conn.execute("BEGIN")
    for i, content in enumerate(contents, start=1):
        conn.execute(
            "INSERT INTO memories (id, tenant, project, kind, content, content_hash, created_at, updated_at)"
            " VALUES (?, 'default', 'default', 'fact', ?, ?, '2026-01-01T00:00:00.000000Z',"
            " '2026-01-01T00:00:00.000000Z')",
            (f"01M8MDS99KSRS6F70DEAKKC{i:03d}", content, f"hash{i}"),
        )
        conn.execute(
            "INSERT INTO memories_fts(rowid, title, tags, body) VALUES (?, '', '', ?)", (i, content.lower())
        )
    conn.execute("COMMIT")
    conn.close()


def test_an_existing_database_is_reindexed_with_the_analyzer(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    _old_database(
        db, ["Sunucu yedekleri her gece alınır.", "数据库每天凌晨三点备份", "We deploy on Tuesdays."]
    )
    service = build_service(
        load_settings(db=str(db), log_file=str(tmp_path / "log")), progress=lambda d, t: None
    )
    try:
        assert [h.memory.content for h in service.searcher.search("yedek").hits] == [
            "Sunucu yedekleri her gece alınır."
        ]
        assert [h.memory.content for h in service.searcher.search("备份").hits] == ["数据库每天凌晨三点备份"]
        assert [h.memory.content for h in service.searcher.search("deploying").hits] == [
            "We deploy on Tuesdays."
        ]
        assert service.store.index_agrees()  # type: ignore[attr-defined]
        assert service.operations.ensure_index() == 0  # current now: nothing to do
    finally:
        service.close()
    conn = sqlite3.connect(db)
    names = [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY version")]
    assert names == [name for name, _ in MIGRATIONS]
    conn.close()


def test_changing_languages_reindexes_the_database(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    base = {"db": str(db), "log_file": str(tmp_path / "log")}
    english = build_service(load_settings(**base, languages="english"))
    english.memories.add("Die Häuser stehen am Fluss.")
    assert english.searcher.search("Häusern").hits == []
    english.close()
    calls: list[tuple[int, int]] = []
    german = build_service(
        load_settings(**base, languages="german"), progress=lambda d, t: calls.append((d, t))
    )
    try:
        assert calls == [(1, 1)]
        assert [h.memory.content for h in german.searcher.search("Häusern").hits] == [
            "Die Häuser stehen am Fluss."
        ]
    finally:
        german.close()


def test_a_long_reindex_draws_a_progress_bar_and_a_short_one_does_not() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Terminal()
    bar = ReindexProgress(out)
    bar(10, 100)
    assert out.getvalue() == ""
    total = PROGRESS_MIN_MEMORIES * 2
    for done in range(500, total + 1, 500):
        bar(done, total)
    text = out.getvalue()
    assert "re-indexing memories for search" in text and f"{total}/{total} 100%" in text
    assert "/s, took " in text and text.endswith("\n")
    piped = io.StringIO()  # not a terminal: no bar
    ReindexProgress(piped)(total, total)
    assert piped.getvalue() == ""
