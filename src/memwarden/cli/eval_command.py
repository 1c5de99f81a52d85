"""``memwarden eval FILE [--fit]``: recall of the user's own labelled queries on their database."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

Handler = Callable[[argparse.Namespace], int]


def cmd_eval(args: argparse.Namespace) -> int:
    from memwarden.app import build_service
    from memwarden.cli.output import emit_json
    from memwarden.config import load_settings
    from memwarden.search.eval_runner import run_eval
    from memwarden.search.evaluation import load_cases

    cases = load_cases(Path(args.file))  # a bad file fails before the database is opened
    overrides: dict[str, Any] = {"db": args.db} if getattr(args, "db", None) else {}
    if args.keyword_only:
        overrides["embedder"] = "none"
    service = build_service(load_settings(**overrides), background=False)
    try:
        report = run_eval(
            service.searcher,
            service.operations.maintainable("eval"),
            cases,
            caller=service.default_caller,
            fit=args.fit,
        )
    finally:
        service.close()
    if args.json:
        emit_json(report)
    else:
        _print(report)
    return 0


def _print(report: dict[str, Any]) -> None:
    print(f"{report['scored']} of {report['queries']} labelled queries scored (top {10})")
    if report["unresolved_lines"]:
        lines = ", ".join(str(n) for n in report["unresolved_lines"][:20])
        print(f"  no memory matches the expected ids or fragment on line(s) {lines}: left out")
    print(
        f"  {'configuration':<20} {'recall@1':>8} {'recall@5':>8} {'recall@10':>9} {'MRR':>6} {'p50 ms':>7}  weights"
    )
    for name, s in report["configurations"].items():
        weights = f"vector {s['vector_weight']}, thread {s['thread_weight']}"
        p50 = f"{s['p50_ms']:>7.1f}" if "p50_ms" in s else f"{'':>7}"
        print(
            f"  {name:<20} {s['recall@1']:>8.3f} {s['recall@5']:>8.3f} {s['recall@10']:>9.3f} {s['mrr']:>6.3f} "
            f"{p50}  {weights}"
        )
    proposal = report.get("proposal")
    if proposal is not None:
        if proposal["changed"]:
            print("proposed settings (add them to the server's environment):")
            for key, value in proposal["settings"].items():
                print(f"  {key}={value}")
        else:
            print("the current settings are already the best of those tried")
    print(f"(machine load {os.getloadavg()[0]:.2f})")


def register(command: Callable[[str, Handler, str], argparse.ArgumentParser]) -> None:
    p = command("eval", cmd_eval, "recall of your own labelled queries (JSONL) on your database")
    p.add_argument("file", help='JSONL: one {"query", "project"?, "ids" or "expect"} per line')
    p.add_argument("--fit", action="store_true", help="also propose vector and thread weights for this data")
    p.add_argument("--keyword-only", action="store_true", help="do not load the embedding model")
    p.add_argument("--json", action="store_true", help="print the report as JSON")


__all__ = ["register"]
