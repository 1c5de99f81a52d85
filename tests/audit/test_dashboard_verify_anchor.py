"""Second attack round (issue 33 item 6): the dashboard's verify button ran ``verify_log(log)``
without the anchor file, so a chain with its newest acknowledged rows cut (head moved back)
showed "Chain intact" while `memwarden audit verify` said rolled_back."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.ui.dashboard import Dashboard


def _cut_newest(path: Path, rows: int) -> None:
    """Cut the newest rows and move the head back, with the audit triggers dropped and then
    recreated exactly as they were (the guards look untouched)."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        (head,) = conn.execute("SELECT seq FROM audit_head").fetchone()
        (kept,) = conn.execute("SELECT hash FROM audit_log WHERE seq = ?", (head - rows,)).fetchone()
        saved = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'audit%'"
        ).fetchall()
        for name, _ in saved:
            conn.execute(f"DROP TRIGGER {name}")
        conn.execute("DELETE FROM audit_log WHERE seq > ?", (head - rows,))
        conn.execute("UPDATE audit_head SET seq = ?, hash = ?", (head - rows, kept))
        for _, sql in saved:
            conn.execute(sql)
    finally:
        conn.close()


def test_the_dashboards_verify_checks_the_anchor_file_like_the_cli(tmp_path: Path) -> None:
    db = tmp_path / "memwarden.db"
    settings = load_settings(
        db=str(db),
        log_file=str(tmp_path / "memwarden.log"),
        backup_dir=str(tmp_path / "b"),
        audit_anchor_file=str(tmp_path / "anchor" / "audit.json"),
    )
    service = build_service(settings, embeddings=False)
    try:
        for i in range(4):
            service.memories.add(f"anchored fact number {i}")
        dashboard = Dashboard(service)
        before = dashboard.verify()
        assert before is not None and before.state == "intact"
        service.close()
        _cut_newest(db, 2)
        service = build_service(settings, embeddings=False)
        report = Dashboard(service).verify()
        assert report is not None and not report.ok and report.state == "broken"
        assert [p.kind for p in report.problems] == ["rolled_back"]
    finally:
        service.close()
