"""Commands that only read (or change what is stored) need a database that exists.

Opening a SQLite path creates the file and its folders. That is right for ``add``, ``import``,
``serve`` and ``restore``, which may start a database; for ``search``, ``list``, ``stats``,
``export``, ``audit verify``… a missing file is a mistyped path or the wrong MEMWARDEN_DB, and
answering "no memories found" from a fresh empty database would hide it. Those commands stop
with one line naming the path, before anything is created.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from memwarden.errors import ConfigError
from memwarden.settings_paths import is_postgres_url, sqlite_file_name

if TYPE_CHECKING:  # pragma: no cover
    import argparse

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


def needs_database(args: argparse.Namespace) -> bool:
    command = getattr(args, "command", None)
    if command in NEEDS_DATABASE:
        return True
    if command in NEEDS_DATABASE_SUB:
        dest, subs = NEEDS_DATABASE_SUB[command]
        return getattr(args, dest, None) in subs
    return False


def require_existing_database(args: argparse.Namespace) -> None:
    """Raise a ConfigError naming the path when this command needs a SQLite file that is missing."""
    if not needs_database(args):
        return
    from memwarden.config_hot import load_hot_settings

    db = getattr(args, "db", None)
    settings = load_hot_settings(**({"db": db} if db else {}))
    url = settings.database_url()
    if is_postgres_url(url):
        return
    path = sqlite_file_name(url)
    if os.path.isfile(path):
        return
    source = "--db" if db else ("MEMWARDEN_DB" if settings.db else "the default location")
    if os.path.exists(path):
        raise ConfigError(f"{path} (from {source}) is not a database file")
    raise ConfigError(
        f"no database at {path} (from {source}): check the path; "
        "`memwarden add` or `memwarden serve` creates a new one"
    )
