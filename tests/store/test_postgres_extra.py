"""memwarden without the ``postgres`` extra: imports fine, and a PostgreSQL URL names the extra."""

from __future__ import annotations

import subprocess
import sys

BLOCK_PSYCOPG = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('psycopg', 'psycopg_pool'):
            raise ImportError(f'No module named {name!r}', name=name)
sys.meta_path.insert(0, Block())
"""


def test_without_the_extra_memwarden_imports_and_a_postgres_url_names_the_extra(tmp_path) -> None:  # type: ignore[no-untyped-def]
    script = (
        BLOCK_PSYCOPG
        + """
import memwarden, memwarden.service, memwarden.app, memwarden.store
from memwarden.errors import ConfigError
print(memwarden.__version__)
try:
    memwarden.store.open_store('postgresql://u@127.0.0.1:1/db')
except ConfigError as exc:
    print(exc.message)
"""
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert "memwarden[postgres]" in out.stdout and "psycopg" in out.stdout


def test_the_cli_reports_a_missing_extra_in_one_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    script = (
        BLOCK_PSYCOPG
        + "from memwarden.cli.main import main; raise SystemExit(main(['--db', 'postgresql://u@h/db', 'stats']))"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 1
    assert out.stderr.strip().startswith("memwarden:") and "pip install 'memwarden[postgres]'" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
