"""Backups of a SQLite database: snapshot, verify, compare, restore.

Snapshots use SQLite's online backup API from inside one read transaction, so the copy holds
everything committed (WAL content included) at one instant, while other processes keep writing;
row counts are read in that same transaction, which is what makes "row counts equal" a real
check. Backup files are single files (journal_mode DELETE): copy them anywhere.

Restores copy the backup back through the backup API into the live database's own connection,
so other processes that hold the file open see the restored content through SQLite's locks
instead of a file swapped under them.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

from memwarden.errors import InvalidInput, StorageError
from memwarden.store.sqlite.faults import SQLiteFault, describe_fault, fault_condition

BUSY_TIMEOUT_S = 60.0
_DIFF_COLUMNS = "id, version, updated_at, deleted_at, content_hash"


def table_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Rows per ordinary table (virtual tables are counted through their shadow tables)."""
    names = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " AND sql NOT LIKE 'CREATE VIRTUAL TABLE%' ORDER BY name"
        )
    ]
    return {name: int(conn.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0]) for name in names}


def _connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    try:
        if readonly:
            conn = sqlite3.connect(
                f"{path.resolve().as_uri()}?mode=ro", uri=True, isolation_level=None, timeout=BUSY_TIMEOUT_S
            )
        else:
            conn = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_S)
    except sqlite3.Error as exc:
        raise SQLiteFault(f"cannot open: {describe_fault(path, exc)}") from exc
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    return conn


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def snapshot(source: Path, dest: Path) -> dict[str, int]:
    """Copy ``source`` into the new file ``dest`` at one instant; the row counts of that instant."""
    src = _connect(source)
    try:
        src.execute("BEGIN")  # one read snapshot for the counts and the copy
        try:
            counts = table_counts(src)
            out = sqlite3.connect(dest, isolation_level=None)
            try:
                src.backup(out)
                out.execute("PRAGMA journal_mode = DELETE")
            finally:
                out.close()
        finally:
            src.execute("COMMIT")
    except sqlite3.Error as exc:
        # Space, permissions and opening concern the file being written; damage, the source.
        where = dest if fault_condition(exc) in ("full", "readonly", "cantopen") else source
        raise SQLiteFault(f"backup of {source} to {dest} failed: {describe_fault(where, exc)}") from exc
    finally:
        src.close()
    _fsync(dest)
    return counts


def audit_chain_problems(conn: sqlite3.Connection, path: Path) -> tuple[str, list[str]]:
    """Verify the audit log's hash chain in the database at ``path``: (state, problems).

    ``state`` is ``verified``, ``broken`` or ``absent`` (a database from before the audit log).
    """
    has_audit = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit_log'"
    ).fetchone()
    if has_audit is None:
        return "absent", []
    from memwarden.store.audit_logs import verify_database

    try:
        report = verify_database(str(path))
    except StorageError as exc:
        return "broken", [exc.message]
    problems = [f"position {p.position}: {p.message}" for p in report.problems]
    problems.extend(f"guards: {p.message}" for p in report.guards)
    return ("verified" if report.ok else "broken"), problems


def check(conn: sqlite3.Connection, path: Path, expected: dict[str, int] | None) -> dict[str, Any]:
    """Integrity, row counts against ``expected``, audit chain, on an open database."""
    problems: list[str] = []
    counts: dict[str, int] = {}
    audit = "absent"
    try:
        integrity = [r[0] for r in conn.execute("PRAGMA integrity_check").fetchall()]
        if integrity != ["ok"]:
            problems.extend(f"integrity_check: {line}" for line in integrity[:20])
        counts = table_counts(conn)
        if "memories" not in counts:
            problems.append("no memories table: this is not a memwarden database")
        if expected is not None and counts != expected:
            differ = sorted(set(counts) | set(expected))
            problems.extend(
                f"row count of {name}: {counts.get(name)} != {expected.get(name)} expected"
                for name in differ
                if counts.get(name) != expected.get(name)
            )
        audit, audit_problems = audit_chain_problems(conn, path)
        problems.extend(f"audit chain: {p}" for p in audit_problems)
    except sqlite3.DatabaseError as exc:
        problems.append(f"cannot read the database: {exc}")
    return {"ok": not problems, "problems": problems, "counts": counts, "audit": audit}


def verify(path: Path, expected: dict[str, int] | None) -> dict[str, Any]:
    """Open a backup read-only and check it: integrity, row counts, audit chain."""
    try:
        with Path(path).open("rb") as handle:
            head = handle.read(5)
    except OSError:
        head = b""
    if head == b"PGDMP":
        return {
            "ok": False,
            "counts": {},
            "audit": "absent",
            "problems": [
                f"{path} is a PostgreSQL backup (pg_dump custom format), and this database is SQLite: restore it "
                "into PostgreSQL with pg_restore (docs/operations.md)"
            ],
        }
    try:
        conn = _connect(path, readonly=True)
    except StorageError as exc:
        return {"ok": False, "problems": [exc.message], "counts": {}, "audit": "absent"}
    try:
        return check(conn, path, expected)
    finally:
        conn.close()


def _memory_states(path: Path) -> dict[str, tuple[Any, ...]]:
    conn = _connect(path, readonly=True)
    try:
        return {row[0]: row[1:] for row in conn.execute(f"SELECT {_DIFF_COLUMNS} FROM memories")}
    except sqlite3.DatabaseError as exc:
        raise InvalidInput(f"{path} cannot be read as a memwarden database: {exc}", field="file") from None
    finally:
        conn.close()


def compare(backup: Path, live: Path) -> dict[str, Any]:
    """What restoring ``backup`` over ``live`` would change, memory by memory."""
    theirs = _memory_states(backup)
    ours = _memory_states(live) if live.exists() else {}
    lost = sorted(set(ours) - set(theirs))
    back = sorted(set(theirs) - set(ours))
    changed = sorted(i for i in set(ours) & set(theirs) if ours[i] != theirs[i])

    def live_count(states: dict[str, tuple[Any, ...]]) -> int:
        return sum(1 for s in states.values() if s[2] is None)

    return {
        "memories_now": live_count(ours),
        "memories_after": live_count(theirs),
        "removed": lost,
        "added": back,
        "changed": changed,
        "unchanged": len(set(ours) & set(theirs)) - len(changed),
    }


def restore(backup: Path, live: Path, expected: dict[str, int]) -> dict[str, Any]:
    """Copy ``backup`` into ``live`` through the live file's own locks, then check ``live``."""
    src = _connect(backup, readonly=True)
    dst = _connect(live)
    try:
        mode = str(dst.execute("PRAGMA journal_mode").fetchone()[0])
        src.backup(dst)
        if mode.lower() == "wal":
            dst.execute("PRAGMA journal_mode = WAL")
        dst.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return check(dst, live, expected)
    except sqlite3.Error as exc:
        raise StorageError(f"restore of {backup} into {live} failed: {exc}") from exc
    finally:
        src.close()
        dst.close()


class SQLiteBackupBackend:
    """The ``BackupBackend`` of a SQLite database file (see ``memwarden.ops.backup``)."""

    suffix = ".db"
    automatic = True  # one file, one server: a verified backup at every start

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.database_url = str(self.path)

    def has_data(self) -> bool:
        return self.path.exists() and self.path.stat().st_size > 0

    def needs_migration(self) -> bool:
        from memwarden.store.sqlite.migrations import pending

        if not self.has_data():
            return False
        try:
            conn = _connect(self.path, readonly=True)
        except sqlite3.OperationalError as exc:
            # Not knowing is not a pending migration: say what stops the read (a read-only
            # folder where SQLite cannot create the -shm file, a missing permission).
            raise SQLiteFault(describe_fault(self.path, exc)) from exc
        try:
            return bool(pending(conn))
        except sqlite3.OperationalError as exc:
            raise SQLiteFault(describe_fault(self.path, exc)) from exc
        except sqlite3.DatabaseError:
            return True  # damaged: assume the worst, a migration would run on it
        finally:
            conn.close()

    def snapshot(self, dest: Path) -> dict[str, int]:
        return snapshot(self.path, dest)

    def verify(self, path: Path, expected: dict[str, int] | None) -> dict[str, Any]:
        return verify(path, expected)

    def compare(self, path: Path) -> dict[str, Any]:
        return compare(path, self.path)

    def restore(self, path: Path, expected: dict[str, int]) -> dict[str, Any]:
        return restore(path, self.path, expected)
