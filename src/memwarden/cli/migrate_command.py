"""``memwarden migrate --to postgresql://…``: copy the SQLite database to PostgreSQL and verify it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

Handler = Callable[[argparse.Namespace], int]


def cmd_migrate(args: argparse.Namespace) -> int:
    from memwarden.cli.output import emit_json
    from memwarden.config import load_settings
    from memwarden.postgres_copy import migrate_to_postgres

    settings = load_settings(**({"db": args.db} if getattr(args, "db", None) else {}))

    from memwarden.progress import ProgressBar

    bar = ProgressBar("migrating", show=False if args.json else None)
    try:
        report: dict[str, Any] = migrate_to_postgres(settings, args.to, progress=bar)
    finally:
        bar.finish()
    if args.json:
        emit_json(report)
    else:
        copied = report["copied"]
        state = "verified" if report["ok"] else "FAILED verification"
        resumed = report.get("resumed")
        if resumed:
            print(
                f"resumed an interrupted migrate ({resumed['memories']} memories and {resumed['audit_rows']} "
                "audit rows were already there)"
            )
        cleared = copied.get("cleared_flags", 0)
        kept = f", {cleared} cleared screening flag{'' if cleared == 1 else 's'}" if cleared else ""
        print(
            f"migrated {copied['memories']} memories, {copied['vectors']} vectors, {copied['audit_rows']} "
            f"audit rows{kept} to {report['target']}: {state}"
        )
        for problem in report["problems"]:
            print(f"  {problem}", file=sys.stderr)
    return 0 if report["ok"] else 1


def register(command: Callable[[str, Handler, str], argparse.ArgumentParser]) -> None:
    p = command(
        "migrate",
        cmd_migrate,
        "copy the SQLite database (memories, vectors, audit chain) to a new PostgreSQL database and verify it",
    )
    p.add_argument("--to", required=True, metavar="URL", help="postgresql://… of a new, empty database")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")


__all__ = ["register"]
