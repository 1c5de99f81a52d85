"""A truncated or bit-flipped -wal loses the newest acknowledged writes without any row looking
wrong; the anchor file outside the database is what tells (issue 20, point 5).

A writer keeps the database open (so its commits sit in the -wal), acknowledges writes, and the
files are copied while it is idle, as a crash or a cut power leaves them (no -shm: it is rebuilt
from the -wal on open). The copy's -wal is then damaged as a disk would: cut inside its last
frames, or one bit flipped in them. SQLite opens it at the last intact commit: the chain is
consistent on its own (``audit verify`` says intact), but ``audit verify --anchor-file`` and
health name the rolled-back tail, and later writes do not move the anchor over the loss.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest

from memwarden.app import build_service
from memwarden.config import load_settings

FRAME_HEADER = 24


def run(env: dict[str, str], *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memwarden", *argv], env=env, capture_output=True, text=True, timeout=120
    )


def crashed_copy(tmp_path: Path, anchor: Path) -> tuple[Path, list[str]]:
    """A copy of a database whose newest commits are only in its -wal; the acknowledged ids."""
    db = tmp_path / "live.db"
    settings = load_settings(db=str(db), embedder="none", audit_anchor_file=str(anchor))
    service = build_service(settings, embeddings=False)
    try:
        acknowledged = [service.memories.add(f"acknowledged write {i}").memory.id for i in range(40)]
        time.sleep(1.1)  # the anchor is written at most once a second: the next write writes it
        acknowledged.append(service.memories.add("the last acknowledged write").memory.id)
        wal = Path(f"{db}-wal")
        assert wal.stat().st_size > 20 * 4096, "the writes are expected in the -wal"
        crash = tmp_path / "crash"
        crash.mkdir()
        for suffix in ("", "-wal"):  # the writer is idle: the files as a crash leaves them
            shutil.copy(f"{db}{suffix}", f"{crash / 'memwarden.db'}{suffix}")
    finally:
        service.close()
    return crash / "memwarden.db", acknowledged


def page_size(db: Path) -> int:
    with open(db, "rb") as handle:
        handle.seek(16)
        raw = int.from_bytes(handle.read(2), "big")
    return 65536 if raw == 1 else raw


def cut_last_frames(db: Path, frames: int) -> None:
    """Truncate the -wal in the middle of its last ``frames`` frames (a torn write)."""
    wal = Path(f"{db}-wal")
    frame = FRAME_HEADER + page_size(db)
    size = wal.stat().st_size
    with open(wal, "r+b") as handle:
        handle.truncate(size - frames * frame + frame // 2)


def flip_a_bit_in_last_frames(db: Path, frames: int) -> None:
    """Flip one bit in the page data of the frame ``frames`` from the end (bad sectors)."""
    wal = Path(f"{db}-wal")
    frame = FRAME_HEADER + page_size(db)
    offset = wal.stat().st_size - frames * frame + FRAME_HEADER + 100
    with open(wal, "r+b") as handle:
        handle.seek(offset)
        byte = handle.read(1)[0]
        handle.seek(offset)
        handle.write(bytes([byte ^ 0x10]))


def live_ids(db: Path) -> set[str]:
    with closing(sqlite3.connect(db)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return {r[0] for r in conn.execute("SELECT id FROM memories")}


@pytest.mark.parametrize(
    "damage", [cut_last_frames, flip_a_bit_in_last_frames], ids=["truncated", "bit_flip"]
)
def test_a_damaged_wal_loses_the_newest_writes_and_the_anchor_file_tells(
    damage: object, tmp_path: Path, cli_env: dict[str, str]
) -> None:
    anchor = tmp_path / "anchor.json"
    db, acknowledged = crashed_copy(tmp_path, anchor)
    anchored = json.loads(anchor.read_text())
    damage(db, 12)  # type: ignore[operator]
    kept = live_ids(db)
    lost = [i for i in acknowledged if i not in kept]
    assert lost and lost == acknowledged[len(acknowledged) - len(lost) :], (
        "the newest writes are the lost ones"
    )
    env = {**cli_env, "MEMWARDEN_DB": str(db)}

    alone = json.loads(run(env, "audit", "verify", "--json").stdout)
    assert alone["ok"] is True and alone["head"]["seq"] < anchored["seq"]  # nothing in the file tells

    checked = run(env, "audit", "verify", "--anchor-file", str(anchor), "--json")
    report = json.loads(checked.stdout)
    assert checked.returncode == 1 and [p["kind"] for p in report["problems"]] == ["rolled_back"]
    gone = anchored["seq"] - report["head"]["seq"]
    assert f"the newest {gone} acknowledged rows are gone" in report["problems"][0]["message"]

    anchored_env = {**env, "MEMWARDEN_AUDIT_ANCHOR_FILE": str(anchor)}
    health = json.loads(run(anchored_env, "health", "--json", "--no-repair").stdout)
    check = health["checks"]["audit_anchor"]
    assert health["status"] == "degraded" and check["state"] == "rolled_back", health
    assert check["anchor_seq"] == anchored["seq"] and "Restore the newest backup" in check["message"]

    # Writes after the loss do not move the anchor over it, even past the anchored seq.
    for i in range(gone + 3):
        assert run(anchored_env, "add", f"written after the crash {i}").returncode == 0
    assert json.loads(anchor.read_text()) == anchored
    later = json.loads(run(env, "audit", "verify", "--anchor-file", str(anchor), "--json").stdout)
    assert later["ok"] is False and [p["kind"] for p in later["problems"]] == ["anchor"]
    again = json.loads(run(anchored_env, "health", "--json", "--no-repair").stdout)
    assert again["checks"]["audit_anchor"]["state"] == "anchor" and again["status"] == "degraded"


def test_an_intact_copy_agrees_with_the_anchor(tmp_path: Path, cli_env: dict[str, str]) -> None:
    anchor = tmp_path / "anchor.json"
    db, acknowledged = crashed_copy(tmp_path, anchor)
    assert set(acknowledged) <= live_ids(db)
    env = {**cli_env, "MEMWARDEN_DB": str(db), "MEMWARDEN_AUDIT_ANCHOR_FILE": str(anchor)}
    assert run(env, "audit", "verify", "--anchor-file", str(anchor)).returncode == 0
    health = json.loads(run(env, "health", "--json", "--no-repair").stdout)
    assert health["checks"]["audit_anchor"] == {"ok": True, "state": "ok"} and health["status"] == "ok"
