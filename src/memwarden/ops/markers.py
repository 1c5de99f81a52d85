"""Markers of long operations that did not finish: written first, removed last.

A long operation on a database (``memwarden migrate`` into a new PostgreSQL database, for one)
records ``incomplete:<operation>`` in the database's ``index_state`` table before it writes
anything, and removes it only after its last step (and its verification) succeeded. If the
process is killed, crashes or fails half-way, the marker stays: ``health`` reports the database
as failing with what to do, and the operation itself refuses to run again blindly on it.

Markers live in the database they describe, so every process and replica sees them. A
restore, which replaces the whole database content (markers included), leaves a file beside
the SQLite database instead (``<database>.restore-incomplete.json``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memwarden.store.base import StateStore
from memwarden.store.unfinished import PREFIX, marker_value, still_running

# What to do about each operation's marker (health and the operation's own refusal say it).
ADVICE = {
    "migrate": (
        "an earlier `memwarden migrate` into this database did not finish, so it holds part of a copy: "
        "run the same `memwarden migrate --to URL` again (same SQLite source): it resumes, copying what is "
        "missing, then verifies counts and the audit chain. If the source changed meanwhile it says so; "
        "then drop this database and create it empty again (e.g. `dropdb NAME && createdb NAME`) and "
        "migrate again (the SQLite source is never changed)"
    ),
    "import": (
        "an import stopped part-way: the batches written before it stopped are stored (each with its audit "
        "row). Run the same import again: records already stored are skipped by id"
    ),
    "reindex-keywords": (
        "a keyword re-index (after an upgrade or a change of MEMWARDEN_LANGUAGES) stopped: it runs in one "
        "transaction, so the keyword index holds its state from before; the next start of memwarden with "
        "the new settings (`memwarden stats`, or the server) re-indexes again and clears this"
    ),
    "reindex-embeddings": (
        "`memwarden reindex --embeddings` stopped part-way: the memories embedded before it stopped keep "
        "their vectors, the others are searched by keywords only; run `memwarden reindex --embeddings` "
        "again (it embeds only what is missing)"
    ),
    "vault-sync": (
        "`memwarden vault sync` stopped part-way: each note in the vault folder is whole, but some are "
        "from before the sync and notes of deleted memories may remain; run `memwarden vault sync` again"
    ),
    "restore": (
        "a restore was interrupted: the database holds either its state from before the restore (the copy "
        "is one transaction) or the backup's, copied but not yet recorded (no `restore` audit row); run "
        "`memwarden restore FILE --yes` again to finish and record it (the state it replaced is saved in "
        "the backup directory, its name ending in -pre-restore)"
    ),
}
RESTORE_FILE_SUFFIX = ".restore-incomplete.json"


def restore_marker(database: Path) -> Path:
    """The file that says a restore into the SQLite ``database`` has not finished."""
    return database.with_name(database.name + RESTORE_FILE_SUFFIX)


def mark_file(path: Path, operation: str, **detail: Any) -> None:
    """Write a marker file (fsynced) before an operation that replaces the database content."""
    with path.open("w", encoding="utf-8") as handle:
        handle.write(marker_value(operation, **detail) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def mark_incomplete(store: StateStore, operation: str, **detail: Any) -> None:
    """Record that ``operation`` started on ``store`` and has not finished."""
    store.put_state(PREFIX + operation, marker_value(operation, **detail))


def mark_complete(store: StateStore, operation: str) -> None:
    """``operation`` finished: remove its marker (the last thing it does)."""
    store.delete_state(PREFIX + operation)


def mark_failed(store: StateStore, operation: str, reason: str) -> None:
    """``operation`` stopped (``reason``) in a process that lives on (a server): keep its marker,
    saying so, so health reports it interrupted rather than running."""
    found = store.states(PREFIX + operation).get(PREFIX + operation)
    try:
        detail = json.loads(found) if found else {}
    except ValueError:
        detail = {}
    detail["failed"] = reason[:300]
    store.put_state(PREFIX + operation, json.dumps(detail, sort_keys=True))


class Marked:
    """The block of ``marked``: ``fail(reason)`` keeps the marker (noted as failed) at its end."""

    def __init__(self) -> None:
        self.failed: str | None = None

    def fail(self, reason: str) -> None:
        self.failed = reason


@contextmanager
def marked(store: StateStore | None, operation: str, **detail: Any) -> Iterator[Marked]:
    """Mark ``operation`` on ``store`` before the block and unmark it after; when the block
    raises or calls ``fail`` the marker stays, noted as failed (a kill leaves it as it was).
    No-op when ``store`` is None."""
    block = Marked()
    if store is None:
        yield block
        return
    mark_incomplete(store, operation, **detail)
    try:
        yield block
    except BaseException as exc:
        try:
            mark_failed(store, operation, f"{type(exc).__name__}: {exc}")
        except Exception:  # noqa: BLE001 - the marker stays as it was; the real error matters more
            pass
        raise
    if block.failed is not None:
        mark_failed(store, operation, block.failed)
    else:
        mark_complete(store, operation)


def incomplete_operations(store: StateStore, database_file: Path | None = None) -> list[dict[str, Any]]:
    """The markers left on ``store`` (and beside its ``database_file``, for restores), each with
    ``advice``; empty when every operation finished."""
    rows = list(store.states(PREFIX).items())
    if database_file is not None:
        marker = restore_marker(database_file)
        if marker.exists():
            rows.append(("incomplete:restore", marker.read_text(encoding="utf-8", errors="replace")))
    return _described(rows)


def markers_read_only(url: str) -> list[dict[str, Any]]:
    """The markers of the database at ``url``, read without opening a store (no migration runs,
    a backup file stays as it is); ``audit verify`` names an unfinished migrate with them."""
    from memwarden.settings_paths import is_postgres_url

    if is_postgres_url(url):
        import psycopg

        with psycopg.connect(url, autocommit=True) as conn:
            present = conn.execute("SELECT to_regclass('index_state') IS NOT NULL").fetchone()
            if not present or not present[0]:
                return []
            query = "SELECT key, value FROM index_state WHERE left(key, %s) = %s"
            return _described([(k, v) for k, v in conn.execute(query, (len(PREFIX), PREFIX)).fetchall()])
    import sqlite3

    path = Path(url.removeprefix("sqlite:///")).expanduser()
    if not path.exists():
        return []
    conn3 = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = conn3.execute(
            "SELECT key, value FROM index_state WHERE substr(key, 1, ?) = ?", (len(PREFIX), PREFIX)
        ).fetchall()
    except sqlite3.Error:  # no index_state table (not a memwarden database): nothing marked
        return []
    finally:
        conn3.close()
    return _described([(str(k), str(v)) for k, v in rows])


def _described(rows: list[tuple[str, str]]) -> list[dict[str, Any]]:
    found = []
    for key, value in rows:
        operation = str(key)[len(PREFIX) :]
        try:
            detail = json.loads(value)
        except ValueError:
            detail = {}
        kind = operation.partition(":")[0]
        running = still_running(detail)
        found.append(
            {
                **detail,
                "operation": kind,
                # Its process is alive on this host: at work now, not interrupted (health says so).
                "state": "running" if running else "interrupted",
                "advice": (
                    f"the {kind} is running (process {detail.get('pid')}); wait for it to finish"
                    if running
                    else ADVICE.get(kind, f"the {kind} did not finish: run it again")
                ),
            }
        )
    return found
