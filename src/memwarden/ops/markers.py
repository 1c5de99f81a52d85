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
import socket
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memwarden.models import format_time
from memwarden.store.base import StateStore

PREFIX = "incomplete:"
# What to do about each operation's marker (health and the operation's own refusal say it).
ADVICE = {
    "migrate": (
        "an earlier `memwarden migrate` into this database did not finish, so it holds part of a copy: "
        "drop this database and create it empty again (e.g. `dropdb NAME && createdb NAME`), then run "
        "`memwarden migrate` again (the SQLite source was never changed)"
    ),
    "import": (
        "an import stopped part-way: the batches written before it stopped are stored (each with its audit "
        "row). Run the same import again: records already stored are skipped by id"
    ),
    "restore": (
        "a restore was interrupted: SQLite copies a backup in one transaction, so the database holds its "
        "state from before the restore; run `memwarden restore FILE --yes` again"
    ),
}
RESTORE_FILE_SUFFIX = ".restore-incomplete.json"


def _detail(operation: str, **detail: Any) -> str:
    return json.dumps(
        {
            "operation": operation,
            "started_at": format_time(datetime.now(UTC)),
            "pid": os.getpid(),
            "host": socket.gethostname(),
            **detail,
        },
        sort_keys=True,
    )


def restore_marker(database: Path) -> Path:
    """The file that says a restore into the SQLite ``database`` has not finished."""
    return database.with_name(database.name + RESTORE_FILE_SUFFIX)


def mark_file(path: Path, operation: str, **detail: Any) -> None:
    """Write a marker file (fsynced) before an operation that replaces the database content."""
    with path.open("w", encoding="utf-8") as handle:
        handle.write(_detail(operation, **detail) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def mark_incomplete(store: StateStore, operation: str, **detail: Any) -> None:
    """Record that ``operation`` started on ``store`` and has not finished."""
    store.put_state(PREFIX + operation, _detail(operation, **detail))


def mark_complete(store: StateStore, operation: str) -> None:
    """``operation`` finished: remove its marker (the last thing it does)."""
    store.delete_state(PREFIX + operation)


def incomplete_operations(store: StateStore, database_file: Path | None = None) -> list[dict[str, Any]]:
    """The markers left on ``store`` (and beside its ``database_file``, for restores), each with
    ``advice``; empty when every operation finished."""
    rows = list(store.states(PREFIX).items())
    if database_file is not None:
        marker = restore_marker(database_file)
        if marker.exists():
            rows.append(("incomplete:restore", marker.read_text(encoding="utf-8", errors="replace")))
    found = []
    for key, value in rows:
        operation = str(key)[len(PREFIX) :]
        try:
            detail = json.loads(value)
        except ValueError:
            detail = {}
        kind = operation.partition(":")[0]
        found.append(
            {
                **detail,
                "operation": kind,
                "advice": ADVICE.get(kind, f"the {kind} did not finish: run it again"),
            }
        )
    return found
