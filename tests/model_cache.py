"""The builtin model prepared once per test session, lent to commands with a data folder of
their own.

The first load of the builtin model makes its int8 file (a child process, seconds of CPU) in
``<data folder>/memwarden/models``. Tests run with one data folder per session (tests/conftest.py
sets ``XDG_DATA_HOME``), so the ``prepared_model`` fixture makes the file once and every command
started with that folder reuses it. A test that gives a command another data folder (a
newcomer's fresh home) and is not about preparing the model links the prepared file into it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def share_prepared_model(models: Path, data_home: Path) -> None:
    """Put the files of ``models`` (the prepared int8 model and its digest) into the models
    folder of the data folder ``data_home`` (``XDG_DATA_HOME``), as a first load would leave it."""
    target = data_home / "memwarden" / "models"
    target.mkdir(parents=True, exist_ok=True, mode=0o700)
    for source in models.iterdir():
        if not source.is_file():
            continue
        try:
            os.link(source, target / source.name)  # same file system: no copy of the bytes
        except OSError:
            shutil.copy2(source, target / source.name)
