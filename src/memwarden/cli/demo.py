"""``memwarden demo``: a guided tour in a temporary database. No network, no model."""

from __future__ import annotations

import tempfile
from pathlib import Path

from memwarden.cli.output import one_line

SAMPLES = [
    ("The client prefers email over phone calls.", "acme", ["crm"]),
    ("Production database backups run nightly at 02:00 UTC to the eu-west bucket.", "acme", ["infra"]),
    ("Use ruff for formatting; the team voted against black in March.", "tooling", ["python"]),
    ("Müşteri faturaları her ayın ilk iş günü kesilir.", "acme", ["billing"]),
    ("部署前必须运行完整的回归测试。", "acme", ["release"]),
]
QUERIES = [("how should I contact the client", None), ("backup", "acme"), ("回归测试", None)]


def run_demo() -> int:
    from memwarden.app import build_service
    from memwarden.config import load_settings

    with tempfile.TemporaryDirectory(prefix="memwarden-demo-") as tmp:
        db = Path(tmp) / "demo.db"
        service = build_service(
            load_settings(
                db=str(db),
                embedder="none",
                vault_dirs="",
                backup_dir=tmp,
                redaction="enforce",
                redaction_rules="",
                audit=True,
                audit_query_plain=False,
            )
        )
        try:
            print(f"memwarden demo: a temporary database at {db}\n")
            for content, project, tags in SAMPLES:
                result = service.memories.add(content, project=project, tags=tags)
                print(f"add    [{project}] {one_line(content, 70)}\n       -> {result.memory.id}")
            again = service.memories.add(SAMPLES[0][0], project="acme", tags=["crm"])
            print(f"add    the first one again -> duplicate={again.duplicate}, same id {again.memory.id}\n")
            for query, scope in QUERIES:
                where = f" in {scope}" if scope else ""
                found = service.searcher.search(query, project=scope, limit=3)
                print(f"search {query!r}{where}: {len(found.hits)} hit(s)")
                for hit in found.hits:
                    print(f"       {hit.score:7.3f}  {one_line(hit.memory.content, 70)}")
            from memwarden.cli.demo_governance import tell_governance_story

            tell_governance_story(service, db)
            stats = service.memories.stats()
            print(
                f"\nstored: {stats['memories']} memories in {len(stats['projects'])} projects; "
                "the temporary database is removed now."
            )
        finally:
            service.close()
    return 0
