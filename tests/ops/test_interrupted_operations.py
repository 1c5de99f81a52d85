"""Long operations killed with SIGKILL part-way: the database is marked until they finish,
health says what happened and what to do, running them again clears it, and partial files
left behind are cleaned at the next start."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from cli_runner import CliResult, run_in_process

from memwarden.models import IndexText, Memory
from memwarden.ops.exchange import CHUNK
from memwarden.store.sqlite import SQLiteStore


def run(env: dict[str, str], *argv: str) -> CliResult:
    """The command run in this process (tests/cli_runner.py): this file tests what it does."""
    return run_in_process(env, *argv)


def fill(db: Path, count: int) -> None:
    store = SQLiteStore(db)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    store.import_memories(
        [
            (
                Memory(
                    id=f"01JD3Z5X9Q2W8E7R6T5{i:07d}",
                    tenant="default",
                    project="p",
                    kind="fact",
                    title="",
                    tags=(),
                    content=f"fact number {i} " + "padding " * 40,
                    content_hash=f"h{i}",
                    pinned=False,
                    created_at=now,
                    updated_at=now,
                ),
                IndexText(title="", tags="", body="fact"),
            )
            for i in range(count)
        ]
    )
    store.close()


def kill_when(argv: list[str], env: dict[str, str], ready: Callable[[], bool], timeout: float = 120) -> bool:
    """Start memwarden, SIGKILL it as soon as ``ready()``; False when it finished first."""
    process = subprocess.Popen(
        [sys.executable, "-m", "memwarden", *argv],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and process.poll() is None:
            if ready():
                os.kill(process.pid, signal.SIGKILL)
                process.wait(timeout=30)
                return True
            time.sleep(0.005)
        return False
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)


def health(env: dict[str, str]) -> dict[str, object]:
    return dict(json.loads(run(env, "health", "--json", "--no-repair").stdout))


def test_a_killed_import_is_reported_and_running_it_again_clears_it(
    cli_env: dict[str, str], tmp_path: Path, db_path: Path
) -> None:
    # Four batches of CHUNK records, each committed on its own: the kill lands after the first.
    records = [{"content": f"imported fact {i}"} for i in range(4 * CHUNK)]
    source = tmp_path / "big.json"
    source.write_text(json.dumps(records))
    assert run(cli_env, "add", "first").returncode == 0

    def some_batches_in() -> bool:
        import sqlite3

        conn = sqlite3.connect(db_path, timeout=0.1)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]) > 1
        except sqlite3.Error:
            return False
        finally:
            conn.close()

    assert kill_when(
        ["import", str(source), "--format", "memorry", "--no-progress"], cli_env, some_batches_in
    )
    report = health(cli_env)
    interrupted = report["checks"]["operations"]["interrupted"]  # type: ignore[index]
    assert report["status"] == "failing" and [i["operation"] for i in interrupted] == ["import"]
    assert "Run the same import again" in interrupted[0]["advice"]
    again = run(cli_env, "import", str(source), "--format", "memorry", "--no-progress", "--json")
    assert again.returncode == 0, again.stderr
    assert health(cli_env)["checks"]["operations"]["ok"] is True  # type: ignore[index]
    assert json.loads(run(cli_env, "stats", "--json").stdout)["memories"] == len(records) + 1


def test_a_killed_restore_is_reported_and_a_killed_backup_leaves_nothing_behind(
    cli_env: dict[str, str], db_path: Path
) -> None:
    fill(db_path, 20_000)
    backup = json.loads(run(cli_env, "backup", "--json").stdout)
    assert backup["verified"], backup
    backups = Path(cli_env["MEMWARDEN_BACKUP_DIR"])
    marker = db_path.with_name(db_path.name + ".restore-incomplete.json")
    killed = False
    for _ in range(3):  # the window is short: try again if the restore finished first
        if kill_when(["restore", backup["path"], "--yes"], cli_env, marker.exists):
            killed = True
            break
    assert killed, "the restore finished before it could be killed"
    report = health(cli_env)
    interrupted = report["checks"]["operations"]["interrupted"]  # type: ignore[index]
    assert report["status"] == "failing" and interrupted[0]["operation"] == "restore"
    assert "run `memwarden restore FILE --yes` again" in interrupted[0]["advice"]
    assert report["checks"]["integrity"]["ok"] is True  # type: ignore[index]
    assert run(cli_env, "restore", backup["path"], "--yes").returncode == 0
    assert not marker.exists() and health(cli_env)["status"] == "ok"

    def partial_written() -> bool:
        return any(p.name.startswith(".") and ".partial-" in p.name for p in backups.iterdir())

    assert kill_when(["backup"], cli_env, partial_written)
    left = [p for p in backups.iterdir() if ".partial-" in p.name]
    assert left, "the killed backup left no partial file to clean"
    assert run(cli_env, "backup").returncode == 0  # the next backup (or server start) cleans them
    assert [p for p in backups.iterdir() if ".partial-" in p.name] == []


def markers_in(db: Path) -> list[str]:
    """The unfinished-operation rows of ``db`` as another process sees them (empty while locked)."""
    import sqlite3

    conn = sqlite3.connect(db, timeout=0.1)
    try:
        return [r[0] for r in conn.execute("SELECT key FROM index_state WHERE key LIKE 'incomplete:%'")]
    except sqlite3.Error:
        return []
    finally:
        conn.close()


def interrupted(env: dict[str, str], operation: str) -> dict[str, object]:
    report = health(env)
    found = report["checks"]["operations"]["interrupted"]  # type: ignore[index]
    assert report["status"] == "failing" and [i["operation"] for i in found] == [operation], report
    return dict(found[0])


def test_a_killed_vault_sync_is_reported_and_running_it_again_clears_it(
    cli_env: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    fill(db_path, 1500)
    vault = tmp_path / "vault"
    env = {**cli_env, "MEMWARDEN_VAULT_DIRS": str(vault)}

    def notes_being_written() -> bool:
        return vault.is_dir() and any(vault.glob("*.md")) and bool(markers_in(db_path))

    assert kill_when(["vault", "sync"], env, notes_being_written)
    written = len(list(vault.glob("*.md")))
    assert 0 < written < 1500, written
    found = interrupted(env, "vault-sync")
    assert found["state"] == "interrupted" and "run `memwarden vault sync` again" in str(found["advice"])
    assert found["folders"] == [str(vault)]
    again = run(env, "vault", "sync")
    assert again.returncode == 0, again.stderr
    assert len(list(vault.glob("*.md"))) == 1500 and markers_in(db_path) == []
    assert health(env)["status"] == "ok"


def test_a_killed_embedding_reindex_is_reported_and_running_it_again_clears_it(
    cli_env: dict[str, str], db_path: Path
) -> None:
    from tests.fake_ollama import fake_ollama

    fill(db_path, 4000)
    with fake_ollama() as url:
        env = {
            **cli_env,
            "MEMWARDEN_EMBEDDER": "ollama",
            "MEMWARDEN_EMBED_URL": url,
            "MEMWARDEN_EMBED_MODEL": "fake-embed",
        }

        def some_vectors_in() -> bool:
            import sqlite3

            conn = sqlite3.connect(db_path, timeout=0.1)
            try:
                stored = int(conn.execute("SELECT COUNT(*) FROM memory_vectors").fetchone()[0])
            except sqlite3.Error:
                return False
            finally:
                conn.close()
            return stored > 0 and "incomplete:reindex-embeddings" in markers_in(db_path)

        assert kill_when(["reindex", "--embeddings", "--no-progress"], env, some_vectors_in)
        found = interrupted(env, "reindex-embeddings")
        assert "run `memwarden reindex --embeddings` again" in str(found["advice"])
        again = run(env, "reindex", "--embeddings", "--json", "--no-progress")
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["missing"] == 0 and markers_in(db_path) == []
        assert health(env)["checks"]["operations"]["ok"] is True  # type: ignore[index]


def test_a_killed_keyword_reindex_is_reported_and_the_next_start_finishes_it(
    cli_env: dict[str, str], db_path: Path
) -> None:
    fill(db_path, 6000)
    assert run(cli_env, "stats").returncode == 0  # indexed with the default languages
    german = {**cli_env, "MEMWARDEN_LANGUAGES": "german"}

    def reindexing() -> bool:
        return "incomplete:reindex-keywords" in markers_in(db_path)

    assert kill_when(["stats"], german, reindexing)
    # With the settings the index was built for, nothing re-indexes: health names what stopped.
    found = interrupted(cli_env, "reindex-keywords")
    assert "holds its state from before" in str(found["advice"]) and found["analyzer"]
    assert run(german, "stats").returncode == 0  # the next start with the new settings re-indexes
    assert markers_in(db_path) == [] and health(german)["status"] == "ok"


def test_an_operation_whose_process_is_alive_is_reported_running_not_interrupted(
    cli_env: dict[str, str], db_path: Path
) -> None:
    from memwarden.ops.markers import mark_incomplete

    assert run(cli_env, "add", "first").returncode == 0
    store = SQLiteStore(db_path)
    try:
        mark_incomplete(store, "vault-sync:abc")  # this (test) process, alive while health runs
    finally:
        store.close()
    report = health(cli_env)
    operations = report["checks"]["operations"]  # type: ignore[index]
    assert report["status"] == "ok" and operations["state"] == "running"
    assert operations["interrupted"] == [] and operations["running"][0]["pid"] == os.getpid()
