"""``memwarden doctor``: is this installation ready, and what to do about each problem.

Each check reads; none creates or changes anything (the database is opened read-only, the
model is loaded in this process and dropped). One line per check, with what to do when it is
not ``ok``; ``--json`` prints the same as data. Exit 0 when nothing failed, 1 otherwise
(``warn`` does not fail: a database not created yet, a port taken by another program).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from memwarden.cli.doctor_finding import Check
from memwarden.errors import MemwardenError
from memwarden.settings_paths import is_postgres_url, sqlite_path

Handler = Callable[[argparse.Namespace], int]


def check_python() -> Check:
    """This Python (memwarden's package requires 3.11+) and its SQLite, which needs FTS5."""
    version = ".".join(map(str, sys.version_info[:3]))
    where = f"{version} at {sys.executable}, SQLite {sqlite3.sqlite_version}"
    try:
        sqlite3.connect(":memory:").execute("CREATE VIRTUAL TABLE t USING fts5(x)")
    except sqlite3.Error:
        return Check(
            "python", "fail", f"{where} without FTS5", "use a Python whose SQLite has FTS5 (python.org, uv)"
        )
    return Check("python", "ok", where)


def check_database(settings: Any) -> list[Check]:
    """The file, its size, ``PRAGMA quick_check``, the schema version and the keyword index."""
    from memwarden.store.sqlite.migrations import MIGRATIONS

    url = settings.database_url()
    if is_postgres_url(url):
        return [Check("database", "ok", "PostgreSQL (checked by `memwarden health`)")]
    path = sqlite_path(url).expanduser()
    if not path.exists():
        from memwarden.cli.doctor_checks import blocking_folder

        blocked = blocking_folder(str(path))
        if blocked is not None:  # `add` would be refused: do not promise that it creates it
            return [
                Check(
                    "database",
                    "fail",
                    f"{path}: not created yet, and this user cannot create it (no write access to {blocked})",
                    "set MEMWARDEN_DB to a file in a folder you can write, or make that folder writable",
                )
            ]
        return [
            Check(
                "database",
                "warn",
                f"{path}: not created yet",
                '`memwarden add "…"` or `memwarden serve` creates it (or set MEMWARDEN_DB)',
            )
        ]
    size = path.stat().st_size
    if not _is_sqlite_file(path):  # SQLite would call it damaged, and restoring would not help
        return [
            Check(
                "database",
                "fail",
                f"{path}: not a memwarden database (not a SQLite file)",
                "check the path: set MEMWARDEN_DB (or --db) to your database",
            )
        ]
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return [Check("database", "fail", f"{path}: cannot open ({exc})", "check the file's permissions")]
    try:
        try:
            verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            return [
                Check(
                    "database",
                    "fail",
                    f"{path}: {exc}",
                    "restore the newest backup: `memwarden restore FILE --yes`",
                )
            ]
        checks = []
        if verdict != "ok":
            checks.append(
                Check(
                    "database",
                    "fail",
                    f"{path} ({size:,} bytes): integrity: {verdict}",
                    "restore the newest backup: `memwarden restore FILE --yes`",
                )
            )
        else:
            checks.append(Check("database", "ok", f"{path} ({size:,} bytes), integrity ok"))
        latest = len(MIGRATIONS)
        if version < latest:
            checks.append(
                Check(
                    "migrations",
                    "warn",
                    f"schema {version} of {latest}",
                    "the next `memwarden serve` (or any write) migrates it, after a backup",
                )
            )
        elif version > latest:
            checks.append(
                Check(
                    "migrations",
                    "fail",
                    f"schema {version} is newer than this memwarden ({latest})",
                    "upgrade memwarden",
                )
            )
        else:
            checks.append(Check("migrations", "ok", f"schema {version} of {latest}"))
        checks.append(_keyword_index(conn))
        return checks
    finally:
        conn.close()


def _is_sqlite_file(path: Path) -> bool:
    """True for a SQLite database file, or an empty file (SQLite makes one of it); a file that
    cannot be read is left to the check that opens it."""
    from memwarden.cli.existing_db import SQLITE_HEADER

    try:
        with path.open("rb") as file:
            header = file.read(len(SQLITE_HEADER))
    except OSError:
        return True
    return not header or header == SQLITE_HEADER


def _keyword_index(conn: sqlite3.Connection) -> Check:
    try:
        rows = int(conn.execute("SELECT count(*) FROM memories_fts").fetchone()[0])
        conn.execute("SELECT rowid FROM memories_fts WHERE memories_fts MATCH 'memwarden' LIMIT 1").fetchall()
    except sqlite3.Error as exc:
        return Check("keyword index", "fail", f"unreadable ({exc})", "`memwarden health` rebuilds it")
    return Check("keyword index", "ok", f"{rows:,} rows, answers queries (`memwarden health` tests a write)")


def check_model(settings: Any) -> list[Check]:
    """The configured embedder: for ``builtin``, the files (pinned hashes), a timed load and how
    many memories still wait for a vector of it; for an endpoint, one sentence embedded through
    it (``doctor_checks``)."""
    if settings.embedder == "none":
        return [Check("model", "ok", "MEMWARDEN_EMBEDDER=none: keyword search only")]
    from memwarden.cli import doctor_checks

    if settings.embedder != "builtin":
        return [doctor_checks.check_embedder_endpoint(settings)]
    from memwarden.embed.builtin import open_builtin

    started = time.monotonic()
    try:
        embedder = open_builtin(settings.embed_model)
        embedder.load()
        embedder.embed_query("memwarden doctor")
        embedder.close()
    except MemwardenError as exc:
        return [Check("model", "fail", exc.message, "reinstall memwarden, or set MEMWARDEN_EMBEDDER=none")]
    elapsed = (time.monotonic() - started) * 1000
    loaded = Check(
        "model",
        "ok",
        f"{embedder.identity.model_id}: files match their pinned SHA-256, "
        f"loaded and embedded in {elapsed:.0f} ms",
    )
    backlog = doctor_checks.check_vector_backlog(settings, embedder.identity)
    return [loaded] if backlog is None else [loaded, backlog]


def check_vault(settings: Any) -> list[Check]:
    import os

    folders = settings.vault_folders()
    if not folders:
        return [Check("vault", "ok", "no MEMWARDEN_VAULT_DIRS: no Obsidian mirror")]
    checks = []
    for folder in folders:
        if not folder.is_dir():
            checks.append(Check("vault", "fail", f"{folder}: not a folder", f"create it: mkdir -p {folder}"))
        elif not os.access(folder, os.W_OK):
            checks.append(Check("vault", "fail", f"{folder}: not writable", "give this user write access"))
        else:
            checks.append(Check("vault", "ok", f"{folder}: writable"))
    return checks


def check_claude_code(home: Path, project: Path) -> Check:
    """Whether Claude Code knows memwarden (user or project scope) and its command runs."""
    found = []
    for where in (home / ".claude.json", project / ".mcp.json"):
        try:
            data = json.loads(where.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        entry = (data.get("mcpServers") or {}).get("memwarden") if isinstance(data, dict) else None
        if isinstance(entry, dict):
            found.append((where, str(entry.get("command", ""))))
    if not found:
        return Check(
            "claude code",
            "warn",
            "memwarden is not configured for Claude Code",
            "`memwarden install claude-code` (or --project for this repository)",
        )
    missing = [f"{where}: {cmd!r}" for where, cmd in found if not (shutil.which(cmd) or Path(cmd).is_file())]
    if missing:
        return Check(
            "claude code",
            "fail",
            "command not found: " + "; ".join(missing),
            "run `memwarden install claude-code` again from the memwarden you use",
        )
    return Check("claude code", "ok", "; ".join(f"{where} starts {cmd}" for where, cmd in found))


def check_port(settings: Any) -> Check:
    from memwarden.cli.serve_start import check_port_free
    from memwarden.net import parse_bind

    address = settings.http or "127.0.0.1:8765"
    try:
        host, port = parse_bind(address)
        if port == 0:
            return Check("port", "ok", f"{address}: the server takes a free port at start and names it")
        check_port_free(host, port)
    except MemwardenError as exc:
        status = "fail" if settings.http else "warn"
        return Check("port", status, exc.message, "set MEMWARDEN_HTTP to a free HOST:PORT")
    origin = "MEMWARDEN_HTTP" if settings.http else "the usual address; MEMWARDEN_HTTP is unset"
    return Check("port", "ok", f"{address} is free ({origin})")


def check_daemon(settings: Any) -> Check:
    from memwarden.daemon.attach import daemon_place
    from memwarden.daemon.client import DaemonClient, DaemonUnavailable

    if settings.daemon == "off":
        return Check("daemon", "ok", "MEMWARDEN_DAEMON=off: every server works in its own process")
    place = daemon_place()
    try:
        with DaemonClient.attach(place, settings, timeout=1.0) as client:
            info = client.info
        return Check(
            "daemon",
            "ok",
            f"running (pid {info.get('pid')}, version {info.get('version')}) in {place.folder}",
        )
    except DaemonUnavailable:
        return Check(
            "daemon",
            "ok",
            f"not running (MEMWARDEN_DAEMON={settings.daemon}: `memwarden serve` starts it when needed)",
        )
    except MemwardenError as exc:
        return Check(
            "daemon", "warn", f"refused: {exc.message}", "stop it with MEMWARDEN_DAEMON=off or restart it"
        )


def run_checks(args: argparse.Namespace) -> list[Check]:
    from memwarden.cli import doctor_checks
    from memwarden.config import load_settings

    checks = [check_python(), doctor_checks.check_unknown_settings()]
    db = getattr(args, "db", None)
    try:
        settings = load_settings(**({"db": db} if db else {}))
    except MemwardenError as exc:
        # Nothing else can be checked: servers, commands and hooks all refuse to start on it
        # (the prompt hook then recalls nothing, with only a line in its log).
        return [
            *checks,
            Check(
                "settings",
                "fail",
                exc.message,
                "fix or unset the MEMWARDEN_* variable it names: memwarden and its hooks refuse to run until then",
            ),
        ]
    checks.append(
        Check(
            "settings",
            "ok",
            f"tools {settings.tools}, embedder {settings.embedder}, log {settings.log_path()}",
        )
    )
    checks.append(doctor_checks.check_data_folder(settings))
    checks += check_database(settings)
    checks += check_model(settings)
    checks.append(doctor_checks.check_rule_pack(settings))
    checks.append(doctor_checks.check_hook_server(settings))
    checks += check_vault(settings)
    checks.append(check_claude_code(Path.home(), Path.cwd()))
    checks.append(check_port(settings))
    checks.append(check_daemon(settings))
    return checks


def cmd_doctor(args: argparse.Namespace) -> int:
    checks = run_checks(args)
    failed = any(c.status == "fail" for c in checks)
    if args.json:
        print(json.dumps({"ok": not failed, "checks": [asdict(c) for c in checks]}, indent=2))
    else:
        for c in checks:
            print(f"{c.status:<4}  {c.name:<13} {c.detail}")
            if c.fix:
                print(f"      {'':<13} -> {c.fix}")
    return 1 if failed else 0


def register(command: Callable[[str, Handler, str], argparse.ArgumentParser]) -> None:
    p = command(
        "doctor",
        cmd_doctor,
        "check this installation (Python, settings, data folder, database, index, model, rule pack, "
        "hooks, vault, Claude Code, port, daemon) and say what to do about each problem",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
