"""Governance speed: redaction of a 1 KiB memory with every rule, and the cost of auditing.

    python bench/govern.py [--runs 3000] [--json FILE]

Targets (issue 5): redacting a 1 KiB memory with every built-in rule p50 <= 0.5 ms; audit cost
<= 0.3 ms per operation. Audit cost is measured two ways on a real SQLite file (WAL,
synchronous=FULL for memories): one ``Auditor.record`` append alone, and the difference
between the median search with auditing on and off (same database, same queries).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.govern import Redactor
from memwarden.models import Caller

BUSINESS = (
    "Quarterly review with the Acme procurement team: renewal terms stay at net 45, the pilot in "
    "the Istanbul office moves to production in March, and the data-retention clause needs legal "
    "sign-off before the contract is countersigned. Müşteri toplantısı perşembe günü yapılacak. "
    "部署前必须运行完整的回归测试。 The onboarding checklist lives in the shared drive under ops. "
)
SECRETS = (
    "Contact jane.doe@example.org or +44 20 7946 0958, mobile 13800138000, TCKN 10000000146, "
    "SSN 123-45-6789, card 4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00, host 10.0.0.12, "
    "key AKIAIOSFODNN7EXAMPLE, postgres://app:s3cretPass@db.internal/app, password=hunter2. "
)


def one_kib(text: str) -> str:
    body = (text * (1024 // len(text) + 2)).encode("utf-8")[:1024]
    return body.decode("utf-8", "ignore")


def time_ms(fn: Any, runs: int) -> list[float]:
    samples = []
    for i in range(runs):
        t0 = time.perf_counter()
        fn(i)
        samples.append((time.perf_counter() - t0) * 1000)
    return samples


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {"p50": round(statistics.median(ordered), 4), "p95": round(ordered[int(0.95 * len(ordered))], 4)}


def bench_redaction(runs: int) -> dict[str, Any]:
    redactor = Redactor()
    clean = one_kib(BUSINESS)
    dirty = one_kib(SECRETS + BUSINESS)
    redactor.redact(dirty)  # warm the regex caches
    return {
        "rules": len(redactor.rules),
        "no_matches": summary(time_ms(lambda i: redactor.redact(clean), runs)),
        "with_secrets": summary(time_ms(lambda i: redactor.redact(dirty), runs)),
        "matches_in_dirty": redactor.redact(dirty).count,
    }


def bench_audit(runs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        on = build_service(load_settings(db=str(db), log_file=str(Path(tmp) / "log"), audit=True))
        off = build_service(load_settings(db=str(db), log_file=str(Path(tmp) / "log"), audit=False))
        try:
            for n in range(500):
                on.add(f"memory {n} about project {n % 13} and the renewal of contract {n % 29}")
            assert on.auditor is not None
            who = Caller("bench", "default")
            append = time_ms(lambda i: on.auditor.record("search", who, query=f"renewal {i}",  # type: ignore[union-attr]
                                                         memory_ids=["01JD3Z5X9Q2W8E7R6T5Y4V3K2M"], result_count=1), runs)
            queries = [f"renewal contract {i % 29}" for i in range(runs)]
            # Interleave on/off so machine noise hits both sides alike.
            with_audit, without = [], []
            for i in range(runs):
                t0 = time.perf_counter()
                on.search(queries[i], limit=5)
                t1 = time.perf_counter()
                off.search(queries[i], limit=5)
                t2 = time.perf_counter()
                with_audit.append((t1 - t0) * 1000)
                without.append((t2 - t1) * 1000)
        finally:
            on.close()
            off.close()
    return {
        "append": summary(append),
        "search_with_audit": summary(with_audit),
        "search_without_audit": summary(without),
        "added_per_search_p50": round(statistics.median(with_audit) - statistics.median(without), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3000)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args()
    redaction = bench_redaction(args.runs)
    audit = bench_audit(min(args.runs, 1000))
    rows = [
        ("redact 1 KiB, no matches", redaction["no_matches"]["p50"], redaction["no_matches"]["p95"], "<= 0.5"),
        (f"redact 1 KiB, {redaction['matches_in_dirty']} matches", redaction["with_secrets"]["p50"],
         redaction["with_secrets"]["p95"], "<= 0.5"),
        ("audit append (one row)", audit["append"]["p50"], audit["append"]["p95"], "<= 0.3"),
        ("search with audit", audit["search_with_audit"]["p50"], audit["search_with_audit"]["p95"], ""),
        ("search without audit", audit["search_without_audit"]["p50"], audit["search_without_audit"]["p95"], ""),
        ("audit added per search (p50 diff)", audit["added_per_search_p50"], float("nan"), "<= 0.3"),
    ]
    print(f"{'measure':40} {'p50 ms':>9} {'p95 ms':>9}  target")
    for name, p50, p95, target in rows:
        print(f"{name:40} {p50:9.4f} {p95:9.4f}  {target}")
    result = {"redaction": redaction, "audit": audit, "python": sys.version.split()[0]}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
