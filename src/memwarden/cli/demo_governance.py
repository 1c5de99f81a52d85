"""The governance part of ``memwarden demo``: what is stored, what is found, what is audited."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from memwarden.cli.output import one_line

SECRET_MEMORY = (
    "Shenzhen supplier contact Li Wei: mobile 13800138000, e-mail li.wei@example.cn; "
    "resident ID 11010519491231002X is on file for the customs forms."
)
PHONE = "13800138000"


def tell_governance_story(service: Any, db: Path) -> None:
    from memwarden.store.audit_logs import open_audit_log, verify_database

    print("\n-- governance: redaction before write, and an audit row for every read and write --\n")
    print(f"add    {one_line(SECRET_MEMORY, 100)}")
    result = service.memories.add(SECRET_MEMORY, project="supply", tags=["customs"])
    print(f"       -> redacted={result.redacted}, rules {', '.join(result.redactions)}")
    with sqlite3.connect(db) as conn:
        (stored,) = conn.execute("SELECT content FROM memories WHERE id = ?", (result.memory.id,)).fetchone()
    print(f"stored in the database file:\n       {stored}")
    by_number = service.searcher.search(PHONE, project="supply")
    print(f"search {PHONE!r} (the original number): {len(by_number.hits)} hit(s)")
    by_word = service.searcher.search("customs supplier", project="supply")
    print(
        f"search 'customs supplier' (business words): {len(by_word.hits)} hit(s)"
        + (" -> the same memory" if by_word.hits and by_word.hits[0].memory.id == result.memory.id else "")
    )
    log = open_audit_log(str(db), readonly=True)
    try:
        rows = [r for r in log.records() if r.project == "supply"]
    finally:
        log.close()
    print("\naudit rows for it (queries are kept as SHA-256 and length, never as text):")
    for row in rows:
        query = (
            f"  query sha256 {str(row.query_sha256)[:12]}… ({row.query_len} chars)"
            if row.query_sha256
            else ""
        )
        print(
            f"  #{row.seq:<3} {row.at}  {row.actor}@{row.tenant}  {row.action:<6} {row.outcome}  "
            f"results={row.result_count}  redactions={row.redaction_count}{query}"
        )
    print(f"\nmemwarden audit verify: {verify_database(str(db)).summary()}")
