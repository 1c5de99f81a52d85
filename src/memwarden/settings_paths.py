"""Where memwarden keeps its files, derived from the settings (``Settings`` and ``HotSettings``).

Reads ``XDG_DATA_HOME`` for the default data directory and ``XDG_RUNTIME_DIR`` / ``TMPDIR``
for the daemon's folder: with ``settings_reader.py`` (the settings) and ``vendor_env.py``,
one of the three modules allowed to touch the environment.
"""

from __future__ import annotations

import os

from memwarden.errors import ConfigError

# Not typing's: the prompt hook asking the daemon never imports typing, whose import is a
# large share of that hook's CPU (docs/performance.md#cold-start). mypy reads it as True.
TYPE_CHECKING = False

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

# The functions returning a ``Path`` import pathlib when called: pathlib (with urllib.parse and
# ipaddress) is a measurable share of a cold search (docs/performance.md#cold-start), and the
# per-prompt paths use the ``*_name`` ones.


def default_data_dir() -> Path:
    """``$XDG_DATA_HOME/memwarden`` or ``~/.local/share/memwarden``."""
    from pathlib import Path

    return Path(default_data_dir_name())


def default_data_dir_name() -> str:
    """``default_data_dir()`` as a string."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "memwarden")


def default_runtime_dir() -> Path:
    """Where the daemon keeps its socket, token file and lock: a folder private to this user.

    ``$XDG_RUNTIME_DIR/memwarden`` when the session has one (Linux), else
    ``$TMPDIR/memwarden-<uid>`` (macOS sets a per-user TMPDIR), and on Windows the data
    directory's ``run`` folder (under the user's profile, closed to other users by its ACL).
    """
    from pathlib import Path

    return Path(default_runtime_dir_name())


def default_runtime_dir_name() -> str:
    """``default_runtime_dir()`` as a string."""
    if os.name == "nt":
        return os.path.join(default_data_dir_name(), "run")
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return os.path.join(runtime, "memwarden")
    return os.path.join(os.environ.get("TMPDIR") or "/tmp", f"memwarden-{os.getuid()}")


def sqlite_path(url: str) -> Path:
    """The file behind a SQLite database URL (a plain path, ``sqlite:///relative`` or ``sqlite:////absolute``)."""
    from pathlib import Path

    return Path(sqlite_file_name(url))


def sqlite_file_name(url: str) -> str:
    """``sqlite_path(url)`` as a string."""
    if url.startswith("sqlite:///"):
        return url[len("sqlite:///") :]
    if url.startswith("sqlite://"):
        raise ConfigError(f"MEMWARDEN_DB={url!r}: use sqlite:///relative/path or sqlite:////absolute/path")
    return os.path.expanduser(url)


def is_postgres_url(url: str) -> bool:
    return url.startswith(("postgresql://", "postgres://"))


class SettingsPaths:
    """Derived locations, shared by ``Settings`` and ``HotSettings``."""

    db: str
    log_file: str
    vault_dirs: str
    backup_dir: str
    export_dir: str

    def backup_path(self) -> Path:
        from pathlib import Path

        return Path(self.backup_dir_name())

    def backup_dir_name(self) -> str:
        """``backup_path()`` as a string."""
        if self.backup_dir:
            return os.path.expanduser(self.backup_dir)
        return os.path.join(self.data_dir_name(), "backups")

    def export_path(self) -> Path:
        """The only folder MCP tools read imports from and write exports to."""
        from pathlib import Path

        return Path(self.export_dir_name())

    def export_dir_name(self) -> str:
        """``export_path()`` as a string."""
        if self.export_dir:
            return os.path.expanduser(self.export_dir)
        return os.path.join(self.data_dir_name(), "exports")

    def sqlite_file(self) -> Path | None:
        """The SQLite database file, or None when the database is PostgreSQL."""
        url = self.database_url()
        return None if is_postgres_url(url) else sqlite_path(url)

    def database_url(self) -> str:
        """The configured database, or the default SQLite file in the data directory."""
        return self.db or os.path.join(default_data_dir_name(), "memwarden.db")

    def data_dir(self) -> Path:
        from pathlib import Path

        return Path(self.data_dir_name())

    def data_dir_name(self) -> str:
        """``data_dir()`` as a string: the default data folder for PostgreSQL, else the folder
        holding the SQLite file."""
        url = self.database_url()
        if is_postgres_url(url):
            return default_data_dir_name()
        return os.path.dirname(sqlite_file_name(url)) or "."

    def log_path(self) -> Path:
        from pathlib import Path

        return Path(self.log_file) if self.log_file else self.data_dir() / "memwarden.log"

    def vault_folders(self) -> list[Path]:
        """The folders of ``MEMWARDEN_VAULT_DIRS`` (split on the OS path separator), in order."""
        parts = [part.strip() for part in self.vault_dirs.split(os.pathsep) if part.strip()]
        if not parts:
            return []
        from pathlib import Path

        return list(dict.fromkeys(Path(part).expanduser() for part in parts))
