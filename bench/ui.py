"""Server time of every dashboard page at scale: 100k memories and 1M audit rows (default).

Builds the database once (``--db PATH`` is reused when it exists): memories spread over a
year in 20 projects and 4 kinds, some tagged, pinned, flagged, redacted and recalled (bulk
import, text from bench/corpus.py), then audit rows appended through the audit log itself (the
real chain and the real per-day trigger). Then logs in to the dashboard in-process (the real
ASGI app, no network) and requests each page ``--rounds`` times: median and p95 wall time,
CPU time beside it, and the machine's load.

    nice python bench/ui.py [--memories 100000] [--audit 1000000] [--db /tmp/ui-bench.db] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from corpus import memory_text

from memwarden.app import build_service
from memwarden.audit.base import AuditEvent
from memwarden.browsing import MemoryQuery
from memwarden.config import load_settings
from memwarden.http.app import build_http_app
from memwarden.intake import content_hash
from memwarden.models import KINDS, Memory, utcnow

TOKEN = "mwt_bench-operator-token-0123456789"


def settings(db: Path):  # type: ignore[no-untyped-def]
    return load_settings(
        db=str(db),
        log_file=str(db.parent / "ui-bench.log"),
        backup_dir=str(db.parent / "ui-bench-backups"),
        embedder="none",
        http_token=TOKEN,
    )


def build(db: Path, memories: int, audit_rows: int, rng: random.Random) -> None:
    from ulid import ULID

    service = build_service(settings(db), ops=True)
    now = utcnow()
    batch = []
    for i in range(memories):
        content = memory_text(rng, i)
        at = now - timedelta(minutes=rng.randrange(365 * 24 * 60))
        memory = Memory(
            id=str(ULID()),
            tenant="default",
            project=f"project-{i % 20}",
            kind=KINDS[i % 4],
            title="",
            tags=("ops",) if i % 10 == 0 else (),
            content=content,
            content_hash=content_hash(content),
            pinned=i % 97 == 0,
            created_at=at,
            updated_at=at,
            hit_count=rng.randrange(50) if i % 7 == 0 else 0,
            redactions=("email",) if i % 50 == 0 else (),
            injection_flags=("instruction_override",) if i % 1000 == 0 else (),
        )
        batch.append((memory, service.intake.index_text(memory)))
        if len(batch) == 5000 or i == memories - 1:
            service.store.import_memories(batch)  # type: ignore[attr-defined]
            batch = []
            print(f"  {i + 1} memories", file=sys.stderr)
    log = service.auditor.log  # type: ignore[union-attr]
    actions = ["search"] * 6 + ["add", "get", "list", "update", "delete", "stats"]
    start = now - timedelta(days=365)
    step = timedelta(days=365) / max(1, audit_rows)
    for i in range(audit_rows):
        action = rng.choice(actions)
        degraded = action == "search" and rng.random() < 0.1
        log.append(
            AuditEvent(
                actor=f"agent-{i % 5}",
                tenant="default",
                action=action,
                project=f"project-{i % 20}",
                result_count=rng.randrange(10),
                degraded=degraded,
                detail={"degrade_reason": "warming_up"} if degraded else {},
            ),
            start + step * i,
        )
        if (i + 1) % 100_000 == 0:
            print(f"  {i + 1} audit rows", file=sys.stderr)
    assert service.operations.backups is not None
    service.operations.backups.backup()
    service.close()


def deep_cursor(db: Path, rows: int) -> str:
    """The ``after`` link value of the page that starts ``rows`` rows into the table (what
    pressing Next page 999 times reaches), read once with OFFSET outside the timing."""
    import sqlite3

    conn = sqlite3.connect(db)
    at, ident = conn.execute(
        "SELECT updated_at, id FROM memories WHERE tenant = 'default' AND deleted_at IS NULL"
        " ORDER BY updated_at DESC, id DESC LIMIT 1 OFFSET ?",
        (rows - 1,),
    ).fetchone()
    conn.close()
    return f"{at}_{ident}"


def measure(db: Path, rounds: int) -> list[dict[str, object]]:
    from starlette.testclient import TestClient

    service = build_service(settings(db), ops=True)
    app = build_http_app(service, settings(db))
    client = TestClient(app, base_url="http://127.0.0.1:8765", follow_redirects=False)
    client.get(f"/ui/login?ticket={app.dashboard.state.ui.sessions.issue_ticket()}")
    some = service.store.browse("default", MemoryQuery(), now=utcnow(), limit=1, count_limit=1).memories[0]
    deep = deep_cursor(db, 999 * 50)
    day = (utcnow() - timedelta(days=40)).date().isoformat()
    pages = [
        ("overview", "/ui/"),
        ("memories", "/ui/memories"),
        ("memories, one project", "/ui/memories?project=project-3"),
        ("memories, kind + tag", "/ui/memories?kind=note&tag=ops"),
        ("memories, flagged", "/ui/memories?flagged=yes"),
        ("memories, pinned", "/ui/memories?pinned=yes"),
        (
            "memories, date range",
            f"/ui/memories?from={day}&to={(utcnow() - timedelta(days=30)).date().isoformat()}",
        ),
        ("memories, page 1000 (keyset)", f"/ui/memories?after={deep}"),
        ("search", "/ui/memories?q=client+email"),
        ("memory", f"/ui/memories/{some.id}"),
        ("delete confirmation", f"/ui/memories/{some.id}/delete"),
        ("audit", "/ui/audit"),
        ("audit, action", "/ui/audit?action=delete"),
        ("audit, actor + window", f"/ui/audit?actor=agent-2&from={day}&to={day}"),
        ("audit, older page", "/ui/audit?before=500000"),
        ("audit, route filter", "/ui/audit?route=dashboard"),
        ("audit, one memory", f"/ui/audit?memory={some.id}"),
        ("add form", "/ui/memories/new"),
        ("live marker", "/ui/live"),
        ("map (300 newest)", "/ui/map"),
        ("map (500 newest)", "/ui/map?cap=500"),
        ("health", "/ui/health"),
        ("backups", "/ui/backups"),
        ("review, one project", "/ui/review?project=project-3"),
        ("review, all projects", "/ui/review"),
    ]
    rows = []
    for name, path in pages:
        walls, cpus = [], []
        for _ in range(rounds):
            wall, cpu = time.perf_counter(), time.process_time()
            response = client.get(path)
            walls.append((time.perf_counter() - wall) * 1000)
            cpus.append((time.process_time() - cpu) * 1000)
            assert response.status_code == 200, (path, response.status_code, response.text[-400:])
        walls.sort()
        rows.append(
            {
                "page": name,
                "path": path,
                "p50_ms": round(statistics.median(walls), 1),
                "p95_ms": round(walls[max(0, int(len(walls) * 0.95) - 1)], 1),
                "cpu_p50_ms": round(statistics.median(cpus), 1),
            }
        )
        print(
            f"{name:28} p50 {rows[-1]['p50_ms']:8.1f} ms  p95 {rows[-1]['p95_ms']:8.1f} ms  "
            f"cpu {rows[-1]['cpu_p50_ms']:8.1f} ms",
            flush=True,
        )
    service.close()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=100_000)
    parser.add_argument("--audit", type=int, default=1_000_000)
    parser.add_argument("--db", type=Path, default=Path("/tmp/memwarden-ui-bench/ui.db"))
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    args.db.parent.mkdir(parents=True, exist_ok=True)
    if not args.db.exists():
        started = time.perf_counter()
        build(args.db, args.memories, args.audit, random.Random(7))
        print(f"built in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    print(f"load before: {os.getloadavg()}")
    rows = measure(args.db, args.rounds)
    print(f"load after: {os.getloadavg()}")
    if args.json:
        args.json.write_text(
            json.dumps(
                {"memories": args.memories, "audit_rows": args.audit, "pages": rows, "load": os.getloadavg()},
                indent=2,
            ),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
