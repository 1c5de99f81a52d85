"""The store skips importing the migrations only when the file is at the version they write."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from memwarden.store.sqlite.migrations import MIGRATIONS
from memwarden.store.sqlite.schema_version import SCHEMA_VERSION


def test_the_schema_version_is_the_number_of_migrations() -> None:
    assert len(MIGRATIONS) == SCHEMA_VERSION


def test_opening_an_up_to_date_file_imports_no_migrations(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    code = (
        "import sys\n"
        "from memwarden.store.sqlite import SQLiteStore\n"
        "store = SQLiteStore(sys.argv[1]); first = store.applied_migrations; store.close()\n"
        "loaded = 'memwarden.store.sqlite.migrations' in sys.modules\n"
        "del sys.modules['memwarden.store.sqlite.migrations']\n"
        "store = SQLiteStore(sys.argv[1]); again = store.applied_migrations; store.close()\n"
        "print(len(first), loaded, again, 'memwarden.store.sqlite.migrations' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(db)], capture_output=True, text=True, check=True, timeout=60
    )
    assert out.stdout.split() == [str(SCHEMA_VERSION), "True", "[]", "False"]
