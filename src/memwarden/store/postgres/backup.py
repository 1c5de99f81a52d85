"""Backups of a PostgreSQL database with ``pg_dump``, verified by restoring them.

``snapshot`` opens a REPEATABLE READ transaction, exports its snapshot, counts the rows of
memwarden's tables in it and runs ``pg_dump --format=custom --snapshot=…`` on the same snapshot:
the counts are those of the instant the dump copies. ``verify`` lists the archive with
``pg_restore --list``, then restores it into a scratch database on the same server, counts the
rows there and verifies the audit chain, and drops the scratch database. Without ``pg_dump`` on
the PATH memwarden refuses to back up PostgreSQL (it never claims a backup it did not take).

Restoring replaces a shared database under every replica, so memwarden does not do it itself:
``pg_restore --clean --if-exists`` is the tool (docs/operations.md). Replicas take no start-up
backups either (``automatic = False``): schedule ``memwarden backup`` once, not per replica.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import uuid
from pathlib import Path
from typing import Any

from memwarden.errors import StorageError
from memwarden.store.postgres.connect import redact_url

TABLES = ("memories", "memory_vectors", "audit_log", "audit_checkpoints")
# pg_dump / pg_restore: "server version: 18.0; pg_dump version: 15.18 (Debian 15.18-0+deb12u1)"
_VERSION_MISMATCH = re.compile(
    r"server version: ([0-9][0-9.]*)[^;\n]*; (pg_dump|pg_restore) version: ([0-9][0-9.]*)"
)


def backup_kind(path: Path) -> str | None:
    """What a backup file is by its first bytes: ``sqlite``, ``pgdump`` (custom format) or None."""
    try:
        with Path(path).open("rb") as handle:
            head = handle.read(16)
    except OSError:
        return None
    if head.startswith(b"SQLite format 3\x00"):
        return "sqlite"
    if head.startswith(b"PGDMP"):
        return "pgdump"
    return None


TIMEOUT_S = 6 * 3600


class PostgresBackupBackend:
    """``BackupBackend`` for a PostgreSQL database URL."""

    suffix = ".pgdump"
    automatic = False

    def __init__(self, url: str, *, pg_dump: str | None = None) -> None:
        self.url = url
        self.database_url = url
        self.pg_dump = pg_dump or shutil.which("pg_dump")
        self.pg_restore = (
            shutil.which("pg_restore", path=str(Path(self.pg_dump).parent)) if self.pg_dump else None
        )

    def _require_tools(self) -> tuple[str, str]:
        if not self.pg_dump or not self.pg_restore:
            raise StorageError(
                "memwarden backs up PostgreSQL with pg_dump and verifies with pg_restore, and neither was "
                "found on the PATH: install the PostgreSQL client tools (the server's major version or newer), "
                "or back up with your database provider's tools; no backup was written"
            )
        return self.pg_dump, self.pg_restore

    def has_data(self) -> bool:
        return bool(self._counts(self.url).get("memories") is not None)

    def needs_migration(self) -> bool:
        """True when memwarden's schema on this database is behind this version's migrations."""
        import psycopg

        from memwarden.store.postgres.migrations import pending

        if not self.has_data():
            return False
        with psycopg.connect(self.url) as conn:
            return bool(pending(conn))

    @staticmethod
    def _counts_on(conn: Any) -> dict[str, int]:
        present = {
            r[0]
            for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
            ).fetchall()
        }
        counts = {}
        for table in TABLES:
            if table in present:
                row = conn.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()
                counts[table] = int(row[0])
        return counts

    def _counts(self, url: str) -> dict[str, int]:
        import psycopg

        try:
            with psycopg.connect(url, autocommit=True) as conn:
                return self._counts_on(conn)
        except psycopg.Error as exc:
            raise StorageError(f"cannot read {redact_url(url)}: {exc}") from None

    def _run(self, argv: list[str]) -> str:
        try:
            done = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise StorageError(f"{Path(argv[0]).name} failed: {exc}") from None
        if done.returncode != 0:
            mismatch = _VERSION_MISMATCH.search(done.stderr)
            if mismatch is not None:
                server, tool, version = mismatch.group(1), mismatch.group(2), mismatch.group(3)
                major = server.split(".")[0]
                raise StorageError(
                    f"{tool} {version} ({argv[0]}) cannot work with this PostgreSQL {server} server: {tool} must be "
                    f"version {major} or newer. Install the PostgreSQL {major} client tools (package "
                    f"postgresql-client-{major}) and put them first on PATH; no backup was written"
                )
            detail = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise StorageError(f"{Path(argv[0]).name} failed: {redact_url(detail)}")
        return done.stdout

    def snapshot(self, dest: Path) -> dict[str, int]:
        import psycopg

        pg_dump, _ = self._require_tools()
        with psycopg.connect(self.url, autocommit=True) as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            row = conn.execute("SELECT pg_export_snapshot()").fetchone()
            assert row is not None
            counts = self._counts_on(conn)
            self._run(
                [
                    pg_dump,
                    "--format=custom",
                    f"--snapshot={row[0]}",
                    "--no-owner",
                    f"--file={dest}",
                    f"--dbname={self.url}",
                ]
            )
        return counts

    def verify(self, path: Path, expected: dict[str, int] | None) -> dict[str, Any]:
        import psycopg

        kind = backup_kind(path)
        if kind == "sqlite":
            return {
                "ok": False,
                "counts": {},
                "audit": "absent",
                "problems": [
                    f"{path} is a SQLite backup (memwarden's SQLite backend), and this database is PostgreSQL: "
                    "restore it with a SQLite MEMWARDEN_DB, then copy it here with `memwarden migrate --to URL`"
                ],
            }
        try:
            _, pg_restore = self._require_tools()
            listing = self._run([pg_restore, "--list", str(path)])
        except StorageError as exc:
            return {"ok": False, "problems": [exc.message], "counts": {}, "audit": "absent"}
        problems = [
            f"the archive holds no data for table {t}"
            for t in ("memories", "audit_log")
            if f"TABLE DATA public {t} " not in listing
        ]
        scratch = f"memwarden_verify_{uuid.uuid4().hex[:12]}"
        scratch_url = _with_database(self.url, scratch)
        counts: dict[str, int] = {}
        audit = "absent"
        try:
            with psycopg.connect(self.url, autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{scratch}"')
        except psycopg.Error as exc:
            problems.append(
                f"could not create a scratch database to restore into and count rows ({exc}); "
                "only the archive's table of contents was checked"
            )
            return {"ok": False, "problems": problems, "counts": counts, "audit": audit}
        try:
            self._run([pg_restore, "--no-owner", "--exit-on-error", f"--dbname={scratch_url}", str(path)])
            counts = self._counts(scratch_url)
            if expected is not None:
                problems.extend(
                    f"{t}: {expected[t]} rows when dumped, {counts.get(t)} in the backup"
                    for t in expected
                    if counts.get(t) != expected[t]
                )
            from memwarden.store.audit_logs import verify_database

            report = verify_database(scratch_url)
            audit = "verified" if report.ok else "broken"
            problems.extend(f"audit chain: {p.message}" for p in report.problems[:5])
            problems.extend(f"guards: {p.message}" for p in report.guards[:5])
        except StorageError as exc:
            problems.append(exc.message)
        finally:
            with psycopg.connect(self.url, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')
        return {"ok": not problems, "problems": problems, "counts": counts, "audit": audit}

    def compare(self, path: Path) -> dict[str, Any]:
        raise StorageError(_RESTORE_BY_HAND.format(path=path))

    def restore(self, path: Path, expected: dict[str, int]) -> dict[str, Any]:
        raise StorageError(_RESTORE_BY_HAND.format(path=path))


_RESTORE_BY_HAND = (
    "memwarden does not restore a shared PostgreSQL database under running replicas: stop them, then run "
    "pg_restore --clean --if-exists --no-owner --dbname=URL {path} (see docs/operations.md)"
)


def _with_database(url: str, database: str) -> str:
    """The same server URL naming another database (libpq's ``dbname`` wins over the path)."""
    joiner = "&" if "?" in url else "?"
    return f"{url}{joiner}dbname={database}"
