"""The five long jobs draw a bar with rate and time left on a real terminal, and none into a pipe.

Each command runs as a subprocess whose stderr is a pseudo-terminal (the ``pty`` module), the
way a person at a shell sees it; then again with stderr piped, as a script or an MCP client
reads it. Jobs: import, the keyword re-index (MEMWARDEN_LANGUAGES changed), the embedding
backfill (``reindex --embeddings``), ``migrate`` (PostgreSQL) and ``vault sync``.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memwarden.cli.ops_commands import PROGRESS_FROM
from memwarden.embed.base import BATCH_SIZE
from memwarden.ops.exchange import CHUNK
from memwarden.progress import PROGRESS_MIN_MEMORIES
from memwarden.store.sqlite.keyword_methods import REINDEX_BATCH

MEMWARDEN = str(Path(sys.executable).parent / "memwarden")
# What a bar line carries: a rate, and either the time left or (at the end) the time it took.
RATE = re.compile(r"[\d,]+/s, (\d+:\d\d left|took \d+:\d\d)")
LEFT = re.compile(r"[\d,]+/s, \d+:\d\d left")

# The fewest memories for which each job draws a line with the time left, whatever the machine's
# speed: a bar draws at its first report and at the end, so a job must report once before its
# total, and reach the total below which its bar stays quiet. An import reports after each chunk
# of records it reads, the keyword re-index after each batch of memories, the embedding backfill
# after each batch it embeds; migrate reports the memories copied before the audit rows.
IMPORTED = max(PROGRESS_FROM, CHUNK + 1, PROGRESS_MIN_MEMORIES, REINDEX_BATCH + 1)
EMBEDDED = BATCH_SIZE + 1
MIGRATED = 100


def on_terminal(argv: list[str], env: dict[str, str], out: Path, timeout: float = 300) -> str:
    """Run ``memwarden argv`` with stderr on a pseudo-terminal; what the terminal showed."""
    master, slave = pty.openpty()
    with out.open("wb") as stdout:
        proc = subprocess.Popen(
            [MEMWARDEN, *argv], stdin=subprocess.DEVNULL, stdout=stdout, stderr=slave, env=env
        )
    os.close(slave)
    shown = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the terminal's last writer has gone
                    break
                if not chunk:
                    break
                shown += chunk
            elif proc.poll() is not None:
                break
        assert proc.wait(timeout=max(1.0, deadline - time.monotonic())) == 0, shown.decode(errors="replace")
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
    return shown.decode("utf-8", errors="replace")


def piped(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([MEMWARDEN, *argv], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


def assert_bar(shown: str, label: str) -> None:
    lines = [line for line in re.split(r"[\r\n]", shown) if line.startswith(label)]
    assert lines, f"no {label!r} bar in: {shown!r}"
    assert all(RATE.search(line) for line in lines), lines
    assert any(LEFT.search(line) for line in lines), f"no time left shown: {lines}"
    assert re.search(r"100% [\d,]+/s, took \d+:\d\d", lines[-1]), lines[-1]


def assert_no_bar(stderr: str) -> None:
    assert "\r" not in stderr and not RATE.search(stderr), stderr


def memories_file(path: Path, count: int) -> Path:
    words = ["harbour", "invoice", "kettle", "lantern", "meadow", "orchard", "pepper", "quarry"]
    rows = [
        {"memory": f"Fact {i}: the {words[i % 8]} note number {i} mentions {words[(i * 3) % 8]}."}
        for i in range(count)
    ]
    path.write_text(json.dumps({"results": rows}), encoding="utf-8")
    return path


@pytest.fixture
def env(cli_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    return {**cli_env, "HOME": str(tmp_path / "home"), "COLUMNS": "120"}


@pytest.mark.slow
def test_import_and_the_keyword_reindex_show_rate_and_time_left_on_a_terminal_only(
    env: dict[str, str], tmp_path: Path
) -> None:
    source = memories_file(tmp_path / "mem0.json", IMPORTED)
    shown = on_terminal(["import", str(source), "--format", "mem0"], env, tmp_path / "out")
    assert_bar(shown, "importing")
    assert f"imported {IMPORTED} of {IMPORTED} records" in (tmp_path / "out").read_text()

    # A change of MEMWARDEN_LANGUAGES re-indexes every memory when the database is next opened.
    german = {**env, "MEMWARDEN_LANGUAGES": "german"}
    shown = on_terminal(["stats", "--json"], german, tmp_path / "out")
    assert_bar(shown, "memwarden: re-indexing memories for search")
    assert json.loads((tmp_path / "out").read_text())["memories"] == IMPORTED

    other = {**env, "MEMWARDEN_DB": str(tmp_path / "piped.db")}
    assert_no_bar(piped(["import", str(source), "--format", "mem0"], other).stderr)
    assert_no_bar(piped(["stats"], {**other, "MEMWARDEN_LANGUAGES": "german"}).stderr)


@pytest.mark.slow
def test_the_embedding_backfill_and_vault_sync_show_rate_and_time_left_on_a_terminal_only(
    env: dict[str, str], tmp_path: Path
) -> None:
    piped(["import", str(memories_file(tmp_path / "mem0.json", EMBEDDED)), "--format", "mem0"], env)
    builtin = {**env, "MEMWARDEN_EMBEDDER": "builtin"}
    shown = on_terminal(["reindex", "--embeddings"], builtin, tmp_path / "out")
    assert_bar(shown, "embedding")

    vault = {**env, "MEMWARDEN_VAULT_DIRS": str(tmp_path / "vault")}
    shown = on_terminal(["vault", "sync"], vault, tmp_path / "out")
    assert_bar(shown, "syncing vault")
    assert f"written {EMBEDDED}" in (tmp_path / "out").read_text()

    assert_no_bar(piped(["vault", "sync"], vault).stderr)
    other = {**env, "MEMWARDEN_DB": str(tmp_path / "piped.db")}
    piped(["import", str(memories_file(tmp_path / "small.json", 40)), "--format", "mem0"], other)
    assert_no_bar(piped(["reindex", "--embeddings"], {**other, "MEMWARDEN_EMBEDDER": "builtin"}).stderr)


@pytest.mark.postgres
@pytest.mark.slow
def test_migrate_shows_rate_and_time_left_on_a_terminal_only(
    env: dict[str, str], tmp_path: Path, pg_server: object
) -> None:
    piped(["import", str(memories_file(tmp_path / "mem0.json", MIGRATED)), "--format", "mem0"], env)
    with pg_server.database() as url:  # type: ignore[attr-defined]
        shown = on_terminal(["migrate", "--to", url], env, tmp_path / "out")
    assert_bar(shown, "migrating")
    assert "verified" in (tmp_path / "out").read_text()
    with pg_server.database() as url:  # type: ignore[attr-defined]
        assert_no_bar(piped(["migrate", "--to", url], env).stderr)
