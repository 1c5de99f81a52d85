"""An external anchor of the audit head: a small file outside the database.

A database can lose its newest acknowledged rows without any row looking wrong: a truncated or
damaged ``-wal`` file, a restored backup, a rolled-back volume. The chain on its own stays
consistent, so ``audit verify`` alone cannot tell. The anchor file remembers the newest head
memwarden saw (``{"seq", "hash", "at"}``); ``memwarden audit verify --anchor-file FILE`` then
fails when the database no longer holds that row with that hash (``rolled_back`` when the head
is behind it, ``anchor`` when the row differs).

Writers (every server and CLI process with ``MEMWARDEN_AUDIT_ANCHOR_FILE``) update it after an
audit append, at most once per ``interval_s`` seconds and on close, under an exclusive lock so
the file only moves forward. A restore moves it back on purpose (``force=True``), after writing
the ``restore`` row that names the rewind.
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import time
from pathlib import Path
from typing import Any

from memwarden.audit.base import AuditLog, AuditQuery
from memwarden.errors import InvalidInput

DEFAULT_INTERVAL_S = 1.0
# An anchor file holds one small JSON object; anything larger than this is not one.
MAX_BYTES = 64 * 1024


class AnchorFile:
    """Read and advance one anchor file."""

    def __init__(self, path: Path, *, interval_s: float = DEFAULT_INTERVAL_S) -> None:
        self.path = Path(path)
        self.interval_s = interval_s
        self._last_write = 0.0
        self._pending: tuple[int, str, str] | None = None

    def read(self) -> tuple[int, str] | None:
        """The anchored (seq, hash); None when the file does not exist yet. Anything but a
        regular file of at most ``MAX_BYTES`` is refused before it is read: a FIFO would block
        and ``/dev/zero`` would never end."""
        try:
            # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise InvalidInput(
                f"cannot read the anchor file {self.path}: {exc.strerror}", field="anchor_file"
            ) from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise InvalidInput(
                    f"the anchor file {self.path} is not a regular file (a FIFO, device or folder): "
                    "name the JSON file memwarden writes",
                    field="anchor_file",
                )
            if info.st_size > MAX_BYTES:
                raise InvalidInput(
                    f"the anchor file {self.path} is too large ({info.st_size} bytes; an anchor file "
                    f"holds under {MAX_BYTES} bytes): it is not a memwarden anchor file",
                    field="anchor_file",
                )
            data = os.read(fd, MAX_BYTES + 1)  # the file may have grown since fstat
        except OSError as exc:
            raise InvalidInput(
                f"cannot read the anchor file {self.path}: {exc.strerror}", field="anchor_file"
            ) from None
        finally:
            os.close(fd)
        try:
            if len(data) > MAX_BYTES:
                raise ValueError("too large")
            value: Any = json.loads(data.decode("utf-8"))
            seq, digest = int(value["seq"]), str(value["hash"])
        except (ValueError, KeyError, TypeError):  # UnicodeDecodeError is a ValueError
            raise InvalidInput(
                f'{self.path} is not a memwarden anchor file (expected {{"seq", "hash"}})',
                field="anchor_file",
            ) from None
        return seq, digest

    def noted(self, seq: int, digest: str, at: str) -> None:
        """A row was appended: write it out unless the file was written less than
        ``interval_s`` ago (then it is written by the next append past the interval, or by close)."""
        self._pending = (seq, digest, at)
        if time.monotonic() - self._last_write >= self.interval_s:
            self.flush()

    def flush(self) -> None:
        if self._pending is not None:
            self.write(*self._pending)
            self._pending = None

    def write(self, seq: int, digest: str, at: str, *, force: bool = False) -> None:
        """Record (seq, hash) unless the file already holds a newer seq (``force``: always)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = os.open(self.path.with_name(self.path.name + ".lock"), os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            current = None if force else self._read_quietly()
            if current is None or seq > current:
                tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
                tmp.write_text(json.dumps({"seq": seq, "hash": digest, "at": at}) + "\n", encoding="utf-8")
                os.replace(tmp, self.path)
        finally:
            os.close(lock)  # releases the lock
        self._last_write = time.monotonic()

    def _read_quietly(self) -> int | None:
        try:
            anchored = self.read()
        except InvalidInput:
            return None
        return None if anchored is None else anchored[0]


def anchor_problem(log: AuditLog, anchored: tuple[int, str] | None) -> dict[str, Any] | None:
    """What the database's chain says against the anchored (seq, hash): None when it still holds
    that row (or nothing was anchored yet), else ``{"kind", "message", "anchor_seq", "head_seq"}``
    with ``kind`` ``rolled_back`` (the head is behind the anchor) or ``anchor`` (another row there).
    Two small queries: the head, and the row at the anchored seq."""
    if anchored is None:
        return None
    seq, digest = anchored
    head = log.head()
    found = {"anchor_seq": seq, "head_seq": head.seq}
    if head.seq < seq:
        return {
            **found,
            "kind": "rolled_back",
            "message": (
                f"the audit log's head is seq {head.seq}, but the anchor file recorded seq {seq}: the newest "
                f"{seq - head.seq} acknowledged audit rows are gone, and the memory writes of that time may be "
                "gone too (a damaged or lost -wal file, a copied or restored file, a rolled-back volume). "
                "Restore the newest backup if it holds them; to accept the loss, move the anchor file aside "
                "(the next write starts a new one)"
            ),
        }
    if head.seq == seq:
        stored: str | None = head.hash
    else:
        rows = log.page(AuditQuery(), before_seq=seq + 1, limit=1)
        stored = str(rows[0].hash) if rows and rows[0].seq == seq else None  # None: pruned since
    if stored is not None and stored != digest:
        return {
            **found,
            "kind": "anchor",
            "message": (
                f"the audit row at seq {seq} is not the one the anchor file recorded: the log was rolled back "
                "and written again past it, or rewritten. Run `memwarden audit verify --anchor-file FILE`; "
                "restore the newest backup if it holds the lost rows"
            ),
        }
    return None
