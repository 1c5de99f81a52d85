"""A brand-new database opened by several processes at once: the WAL switch waits its turn.

Without the retry in store/sqlite/wal_mode.py about one round in thirty failed one opener with
"database is locked" on this machine, so thirty rounds catch a regression most of the time.
"""

from __future__ import annotations

import multiprocessing
from pathlib import Path


def _open_store(path: str, results: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    from memwarden.store.audit_logs import open_audit_log
    from memwarden.store.sqlite.store import SQLiteStore

    try:
        store = SQLiteStore(path)  # creates or migrates the schema
        log = open_audit_log(path)
        log.head()
        log.close()
        store.close()
        results.put("ok")
    except Exception as exc:  # noqa: BLE001 - any failure of an opener is the finding
        results.put(repr(exc))


def test_six_processes_open_one_new_database(tmp_path: Path) -> None:
    context = multiprocessing.get_context("fork")
    for round_ in range(30):
        path = str(tmp_path / f"round{round_}.db")
        results = context.Queue()
        workers = [context.Process(target=_open_store, args=(path, results)) for _ in range(6)]
        for worker in workers:
            worker.start()
        outcomes = [results.get(timeout=60) for _ in workers]
        for worker in workers:
            worker.join(30)
        assert outcomes == ["ok"] * 6
