"""The database a command is about to open, checked before anything is opened or created.

Opening a SQLite path creates the file and its folders. That is right for ``add``, ``import``
and ``serve``, which may start a database; for ``search``, ``list``, ``stats``, ``export``,
``audit verify``… a missing file is a mistyped path or the wrong MEMWARDEN_DB, and answering
"no memories found" from a fresh empty database would hide it. Those commands stop with one
line naming the path, before anything is created.

The other mistakes a person makes with a path are caught here too, each as one line that names
the path, where it came from (``--db``, MEMWARDEN_DB or the default) and what to do: a file
that is not a SQLite database (SQLite itself would call it "damaged" and send the user to
``health``, which cannot help), a database this user may not write (every command writes an
audit row), and a new database in a folder this user cannot create. A command that creates a
database learns so (``check_database_place`` returns its path) and says it is new, so that a
mistyped path does not pass unnoticed.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from memwarden.errors import ConfigError
from memwarden.settings_paths import is_postgres_url, sqlite_file_name

if TYPE_CHECKING:  # pragma: no cover
    import argparse

    from memwarden.settings_reader import HotSettings

# Top-level commands that never start a database.
NEEDS_DATABASE = frozenset(
    {
        "search",
        "get",
        "list",
        "stats",
        "update",
        "delete",
        "export",
        "review",
        "health",
        "vacuum",
        "backup",
    }
)
# Commands whose sub-commands decide: (command, dest of the sub-command, the ones that read).
NEEDS_DATABASE_SUB = {
    "audit": ("audit_command", frozenset({"verify", "export", "prune"})),
}
# Commands that create the database when it is missing.
CREATES_DATABASE = frozenset({"add", "import", "serve"})
# Commands that only read: with MEMWARDEN_AUDIT_READS_FAIL_OPEN they work on a read-only file.
ONLY_READS = frozenset({"search", "get", "list", "stats", "export", "review", "verify"})
# Commands that read and whose audit row is best effort: they work on a read-only file (a backup
# is how a database that cannot be written is saved; its row's failure is printed as a warning).
READS_AUDIT_BEST_EFFORT = frozenset({"backup"})
# How every SQLite 3 database file begins (an empty file becomes one when opened).
SQLITE_HEADER = b"SQLite format 3\x00"


def needs_database(args: argparse.Namespace) -> bool:
    command = getattr(args, "command", None)
    if command == "health" and getattr(args, "url", None):  # probes a server: no local database
        return False
    if command in NEEDS_DATABASE:
        return True
    if command in NEEDS_DATABASE_SUB:
        dest, subs = NEEDS_DATABASE_SUB[command]
        return getattr(args, dest, None) in subs
    return False


def _command_word(args: argparse.Namespace) -> str | None:
    command = getattr(args, "command", None)
    if command in NEEDS_DATABASE_SUB:
        return getattr(args, NEEDS_DATABASE_SUB[command][0], None)
    return command


def check_database_place(args: argparse.Namespace) -> str | None:
    """Raise a ConfigError naming the path when the command's SQLite database cannot be used;
    the path when this command will create a new database there, else None."""
    needs = needs_database(args)
    # restore --yes writes the database (a preview only reads it, and needs none).
    restores = getattr(args, "command", None) == "restore" and bool(getattr(args, "yes", False))
    creates = getattr(args, "command", None) in CREATES_DATABASE or restores
    if not (needs or creates):
        return None
    from memwarden.settings_reader import load_hot_settings

    db = getattr(args, "db", None)
    settings = load_hot_settings(**({"db": db} if db else {}))
    url = settings.database_url()
    if is_postgres_url(url):
        return None
    path = sqlite_file_name(url)
    source = "--db" if db else ("MEMWARDEN_DB" if settings.db else "the default location")
    if os.path.isfile(path):
        word = _command_word(args)
        if word in READS_AUDIT_BEST_EFFORT:
            _check_existing_file(path, source, settings, reads_only=True, fail_open=True)
        else:
            _check_existing_file(path, source, settings, reads_only=word in ONLY_READS)
        return None
    if os.path.exists(path):
        raise ConfigError(f"{path} (from {source}) is not a database file: give the path of a database file")
    if needs:
        raise ConfigError(
            f"no database at {path} (from {source}): check the path; "
            "`memwarden add` or `memwarden serve` creates a new one"
        )
    _check_can_create(path, source)
    return path


def _check_existing_file(
    path: str, source: str, settings: HotSettings, *, reads_only: bool, fail_open: bool = False
) -> None:
    try:
        with open(path, "rb") as file:
            header = file.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise ConfigError(
            f"cannot read the database {path} (from {source}): {exc.strerror}; "
            "give this user access to it, or set --db / MEMWARDEN_DB to another database"
        ) from None
    if header and header != SQLITE_HEADER:
        raise ConfigError(
            f"{path} (from {source}) is not a memwarden database (not a SQLite file): check the path, "
            "or set --db / MEMWARDEN_DB to your database"
        )
    if os.access(path, os.W_OK) or fail_open or (reads_only and settings.audit_reads_fail_open):
        return
    also = (
        "; to read a read-only copy, set MEMWARDEN_AUDIT_READS_FAIL_OPEN=true (its reads go unaudited)"
        if reads_only
        else ""
    )
    folder = os.path.dirname(os.path.abspath(path))
    if _on_read_only_mount(folder):  # chmod cannot help there: say what can
        raise ConfigError(
            f"the folder {folder} is read-only (its file system is mounted read-only), so the database "
            f"{path} (from {source}) cannot be written: remount it read-write or set --db / MEMWARDEN_DB "
            f"to a copy on a writable disk{also}"
        )
    raise ConfigError(
        f"the database {path} (from {source}) is read-only for this user: make it writable "
        f"(chmod u+w {path}) or set --db / MEMWARDEN_DB to a writable copy{also}"
    )


def _on_read_only_mount(folder: str) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):  # no statvfs (Windows): the generic advice stands
        return False


def _check_can_create(path: str, source: str) -> None:
    """A new database needs its folder: the nearest folder that exists must let this user create
    the rest (SQLite also creates the -wal and -shm files beside the database)."""
    folder = os.path.dirname(os.path.abspath(path))
    existing = folder
    while not os.path.isdir(existing):
        parent = os.path.dirname(existing)
        if os.path.exists(existing) or parent == existing:
            raise ConfigError(
                f"cannot create the database {path} (from {source}): {existing} is not a folder; "
                "set --db / MEMWARDEN_DB to a path in a folder"
            )
        existing = parent
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(
            f"cannot create the database {path} (from {source}): this user may not write in {existing}; "
            "make that folder writable, or set --db / MEMWARDEN_DB to a file in a folder you can write"
        )
