"""Where the daemon's files live and who may open them.

One folder per user (``settings_paths.default_runtime_dir``) holds the Unix socket, the lock that
keeps the daemon single, and, on the TCP transport, ``daemon.json`` with the loopback port and
the token. The folder must belong to this user and be closed to everyone else (mode 0700): a
folder someone else made or opened (``/tmp/memwarden-1000`` planted by another user, say) is
refused, so no client ever talks to a socket another user controls. Standard library only: the
prompt hook imports this (without json, typing or pathlib).
"""

from __future__ import annotations

import os
import stat

# Not typing's: the prompt hook asking the daemon never imports typing, whose import is a
# large share of that hook's CPU (docs/performance.md#cold-start). mypy reads it as True.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - callers hand in the folder: pathlib stays unimported
    from pathlib import Path


class PlaceError(OSError):
    """The daemon's folder or token file is not private to this user; the daemon is not used."""


def default_transport() -> str:
    """``unix`` (a socket file) where the OS has Unix sockets, else ``tcp`` (loopback + token)."""
    import socket

    return "unix" if os.name != "nt" and hasattr(socket, "AF_UNIX") else "tcp"


SOCKET_FILE = "daemon.sock"
TOKEN_FILE = "daemon.json"
LOCK_FILE = "daemon.lock"


class DaemonPlace:
    """The daemon's folder and the names of its files."""

    __slots__ = ("folder",)

    def __init__(self, folder: str | Path) -> None:
        # A string from daemon_place() (the prompt hook asking the daemon imports no pathlib), or
        # a Path; the *_path properties give Paths, socket_file and token_file strings.
        self.folder = folder

    def __repr__(self) -> str:
        return f"DaemonPlace({str(self.folder)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DaemonPlace) and os.fspath(self.folder) == os.fspath(other.folder)

    def __hash__(self) -> int:
        return hash(os.fspath(self.folder))

    @property
    def socket_path(self) -> Path:
        from pathlib import Path

        return Path(self.folder) / SOCKET_FILE

    @property
    def socket_file(self) -> str:
        """``socket_path`` as a string."""
        return os.path.join(self.folder, SOCKET_FILE)

    @property
    def token_file(self) -> str:
        """``token_path`` as a string."""
        return os.path.join(self.folder, TOKEN_FILE)

    @property
    def token_path(self) -> Path:
        from pathlib import Path

        return Path(self.folder) / TOKEN_FILE

    @property
    def lock_path(self) -> Path:
        from pathlib import Path

        return Path(self.folder) / LOCK_FILE

    def may_be_up(self) -> bool:
        """Whether a daemon may be listening here: its socket or token file exists (two stats,
        before any socket machinery is imported; a stale file still answers True)."""
        return os.path.exists(self.socket_file) or os.path.exists(self.token_file)

    def prepare(self) -> None:
        """Create the folder (0700) if needed, then check it is private."""
        os.makedirs(self.folder, mode=0o700, exist_ok=True)
        self.check()

    def check(self) -> None:
        """PlaceError unless the folder is a real folder of this user that others cannot open."""
        if os.name == "nt":
            return  # under the user's profile; its ACL keeps other users out
        try:
            info = os.lstat(self.folder)
        except FileNotFoundError:
            raise PlaceError(f"{self.folder} does not exist (no daemon has started)") from None
        if not stat.S_ISDIR(info.st_mode):
            raise PlaceError(f"{self.folder} is not a folder; memwarden will not use it for its daemon")
        if info.st_uid != os.getuid():
            raise PlaceError(
                f"{self.folder} belongs to user id {info.st_uid}, not {os.getuid()} (another user "
                "created it first); memwarden will not use it for its daemon: set XDG_RUNTIME_DIR "
                "(or TMPDIR) to a folder of your own (mode 700)"
            )
        if info.st_mode & 0o077:
            raise PlaceError(
                f"{self.folder} is open to other users (mode {stat.S_IMODE(info.st_mode):o}); "
                f"run chmod 700 {self.folder}"
            )

    def write_token(self, port: int, token: str) -> None:
        """``daemon.json`` for the TCP transport, created 0600 and moved into place whole."""
        partial = self.token_path.with_name(f".daemon.json.{os.getpid()}")
        import json

        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({"port": port, "token": token, "pid": os.getpid()}, out)
        os.replace(partial, self.token_path)

    def read_token(self) -> tuple[int, str]:
        """(port, token) from ``daemon.json``; PlaceError when it is missing, open to others or odd."""
        import json

        try:
            with open(self.token_path, encoding="utf-8") as file:
                if os.name != "nt":
                    info = os.fstat(file.fileno())
                    if info.st_uid != os.getuid() or info.st_mode & 0o077:
                        raise PlaceError(
                            f"{self.token_path} is not private to this user "
                            f"(mode {stat.S_IMODE(info.st_mode):o}); not using it"
                        )
                body = json.load(file)
        except FileNotFoundError:
            raise PlaceError("no daemon is running (no daemon.json)") from None
        except ValueError:
            raise PlaceError(f"{self.token_path} is not valid JSON") from None
        port, token = (body.get("port"), body.get("token")) if isinstance(body, dict) else (None, None)
        if not isinstance(port, int) or not 0 < port < 65536 or not isinstance(token, str) or not token:
            raise PlaceError(f"{self.token_path} has no port and token")
        return port, token

    def remove_files(self) -> None:
        """Remove the socket and token file (the daemon does this on exit, holding the lock)."""
        for path in (self.socket_path, self.token_path):
            try:
                path.unlink()
            except FileNotFoundError:
                pass
