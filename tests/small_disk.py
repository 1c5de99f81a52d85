"""A real, small file system for disk-full tests: a tmpfs mounted on a temporary folder.

Mounting needs root (or CAP_SYS_ADMIN); where it is not allowed the test is skipped and says so.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def small_disk(folder: Path, size: str) -> Iterator[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
    )
    if mounted.returncode != 0:
        pytest.skip(
            f"cannot mount a small tmpfs here (needs root or CAP_SYS_ADMIN): {mounted.stderr.strip()}"
        )
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True, capture_output=True)


def fill(folder: Path, leave: int = 0) -> None:
    """Fill the file system holding ``folder`` until at most ``leave`` bytes are free."""
    with open(folder / "filler", "wb") as file:
        while True:
            free = os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize
            if free <= leave:
                break
            try:
                file.write(b"\0" * min(65536, max(free - leave, 1)))
                file.flush()
            except OSError:
                break
