"""Files the CLI writes for the user (``export --out``, ``audit export --out``).

A new file is checked before any work starts, so a typo in the folder is a one-line error that
names the path instead of a traceback after the export ran; the file is written beside its
final name and renamed only when complete, so a failed export never leaves an empty or partial
file under the name the user asked for.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TextIO, TypeVar

from memwarden.errors import InvalidInput, StorageError
from memwarden.os_error_words import nearest_existing

T = TypeVar("T")


def check_new_file(path: Path, *, what: str) -> None:
    """Refuse an ``--out`` that cannot become a new file, saying why and what to do."""
    if path.is_dir():
        raise InvalidInput(f"{path} is a folder; give a new file name inside it", field="out")
    if path.exists() or path.is_symlink():
        raise InvalidInput(f"{path} exists; choose a new file name ({what} never overwrite)", field="out")
    parent = path.parent
    if not parent.is_dir():
        # A file on the way ("out/x.jsonl" where "out" is a file) is not a missing folder:
        # mkdir -p would fail on it too.
        existing = Path(nearest_existing(parent))
        if not existing.is_dir():
            raise InvalidInput(
                f"{existing} is a file, not a folder, so {path} cannot be written; "
                "choose another --out (or move that file away)",
                field="out",
            )
        raise InvalidInput(
            f"folder {parent} does not exist; create it first (mkdir -p {parent}) or choose another --out",
            field="out",
        )
    if not os.access(parent, os.W_OK | os.X_OK):
        raise InvalidInput(
            f"cannot write in {parent}: permission denied; choose an --out in a folder you can "
            f"write, or make it writable (chmod u+w {parent})",
            field="out",
        )


def write_new_file(path: Path, write: Callable[[TextIO], T], *, what: str) -> T:
    """Write ``path`` through ``write(handle)`` as a new file; nothing under ``path`` on failure."""
    check_new_file(path, what=what)
    partial = path.with_name(f"{path.name}.partial-{os.getpid()}")
    try:
        with partial.open("x", encoding="utf-8", newline="") as handle:
            result = write(handle)
        os.link(partial, path)  # fails if ``path`` appeared meanwhile: never overwrite
    except FileExistsError:
        raise InvalidInput(
            f"{path} exists; choose a new file name ({what} never overwrite)", field="out"
        ) from None
    except OSError as exc:
        # a read-only or full file system, a quota, a folder removed meanwhile: say which, and
        # that nothing was left behind
        reason = exc.strerror or type(exc).__name__
        raise StorageError(f"cannot write {path}: {reason}; nothing was written") from exc
    finally:
        partial.unlink(missing_ok=True)
    return result
