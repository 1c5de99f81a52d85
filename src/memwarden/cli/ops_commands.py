"""Operations commands: backup, restore, health, review, export, import, vacuum.

They use the full settings (``config.Settings``): none of them is on the per-prompt path.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memwarden.cli.runner import opened, run_with_service

Handler = Callable[[argparse.Namespace], int]
PROGRESS_FROM = 1000  # records; smaller imports finish before a bar would help


def _settings(args: argparse.Namespace) -> Any:
    from memwarden.config import load_settings

    return load_settings(**({"db": args.db} if getattr(args, "db", None) else {}))


def _backups(args: argparse.Namespace, settings: Any = None) -> Any:
    from memwarden.app import build_backups
    from memwarden.errors import ConfigError

    backups = build_backups(settings or _settings(args))
    if backups is None:
        raise ConfigError("this database backend provides no backups here; use the database's own tools")
    return backups


def _emit(value: Any) -> None:
    from memwarden.cli.output import emit_json

    emit_json(value)


def _backup_auditor(settings: Any) -> Any:
    """The audit log a backup is recorded in; None with auditing off or when it cannot be
    opened (no database yet, one from before the audit log, a bad key file): the backup is
    taken anyway (a backup is how a damaged database is saved) and the reason is printed."""
    from memwarden.app import build_auditor
    from memwarden.errors import MemwardenError

    try:
        return build_auditor(settings)
    except MemwardenError as exc:
        print(f"warning: this backup is not recorded in the audit log: {exc.message}", file=sys.stderr)
        return None


def cmd_backup(args: argparse.Namespace) -> int:
    settings = _settings(args)
    backups = _backups(args, settings)
    if args.list:
        kept = [str(p) for p in backups.kept()]
        _emit(
            {"directory": str(backups.directory), "backups": kept, "last": backups.last()}
        ) if args.json else print("\n".join(kept) or "no backups yet")
        return 0
    from memwarden.models import Caller

    backups.auditor = _backup_auditor(settings) if backups.backend.has_data() else None
    backups.caller = Caller(settings.actor, settings.tenant)
    try:
        record = backups.backup(reason=args.reason, out=Path(args.out) if args.out else None)
    finally:
        if backups.auditor is not None:
            backups.auditor.close()
    if args.json:
        _emit(record.to_dict())
    elif record.verified:
        print(
            f"backup {record.path}: verified ({record.counts.get('memories', 0)} memories, "
            f"audit chain {record.audit}, {record.seconds:.2f} s)"
        )
    else:
        print(f"backup {record.path}: FAILED verification: {'; '.join(record.problems[:5])}", file=sys.stderr)
    return 0 if record.verified else 1


def _restore(args: argparse.Namespace, backups: Any) -> dict[str, Any]:
    """Restore as the local operator: the restore row names them, and is signed and anchored
    when a chain key and an anchor file are configured."""
    from memwarden.audit.anchor import AnchorFile
    from memwarden.audit.keys import load_key
    from memwarden.models import Caller

    settings = _settings(args)
    key = load_key(Path(settings.audit_key_file).expanduser()) if settings.audit_key_file else None
    anchor = AnchorFile(Path(settings.audit_anchor_file).expanduser()) if settings.audit_anchor_file else None
    result: dict[str, Any] = backups.restore(
        Path(args.file), by=Caller(settings.actor, settings.tenant), key=key, anchor=anchor
    )
    return result


def cmd_restore(args: argparse.Namespace) -> int:
    backups = _backups(args)
    result = _restore(args, backups) if args.yes else backups.plan_restore(Path(args.file))
    if args.json:
        if args.yes and result["matches_backup"]:
            result["health_after"] = _after_restore(args)
        _emit(result)
        return 0 if not args.yes or result["matches_backup"] else 1
    print(f"backup {result['file']}: verified, audit chain {result['verification']['audit']}")
    print(f"memories now: {result['memories_now']}, after restore: {result['memories_after']}")
    for label, key in (
        ("would be removed", "removed"),
        ("would come back", "added"),
        ("would change", "changed"),
    ):
        ids = result[key]
        if ids:
            print(f"{len(ids)} {label}: {', '.join(ids[:10])}{' …' if len(ids) > 10 else ''}")
    if not args.yes:
        print("nothing was changed; run again with --yes to restore")
        return 0
    print(f"restored; the replaced database was saved as {result['previous_saved_as']}")
    row, previous = result["audit_row"], result["audit_row"]["previous_head"]
    print(
        f"recorded as audit row seq {row['seq']}"
        + (f" (the log was at seq {previous['seq']} before the restore)" if previous else "")
    )
    if not result["matches_backup"]:
        print(
            f"WARNING: the restored database does not match the backup: {result['after']['problems']}",
            file=sys.stderr,
        )
        return 1
    print(f"health after restore: {_after_restore(args)}")
    return 0


def _after_restore(args: argparse.Namespace) -> str:
    """Open the restored database the way a server does (an older backup is migrated, the
    keyword index is brought up to date) and check its health."""
    with opened(args, kind="ops") as service:
        return str(service.operations.health()["status"])


def probe_url(url: str, token: str | None, timeout: float) -> tuple[int, dict[str, Any]]:
    """GET ``<url>/healthz?deep=1`` of a running server: (HTTP status, body)."""
    import httpx

    from memwarden.errors import InvalidInput, StorageError

    base = url.rstrip("/")
    if not base.startswith(("http://", "https://")):
        raise InvalidInput(
            f"--url {url} is not a server address: give its base URL, such as http://127.0.0.1:8765",
            field="url",
        )
    target = base if base.endswith("/healthz") else f"{base}/healthz"
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    try:
        response = httpx.get(target, params={"deep": "1"}, headers=headers, timeout=timeout)
    except httpx.HTTPError as exc:
        import re

        # httpx passes the socket error's text on, errno and all: only the words are for a person.
        detail = re.sub(r"\[Errno -?\d+\]\s*", "", " ".join(str(exc).split())) or "no answer"
        raise StorageError(
            f"cannot reach {target} ({detail}): check that the server is running at that address"
        ) from None
    try:
        body = response.json()
    except ValueError:
        body = {"status": "failing", "message": response.text[:200]}
    return response.status_code, body


def _healthy(report: dict[str, Any], *, strict: bool = False) -> int:
    """0 for ``ok``, and for ``degraded`` (still serving) unless ``strict``; else 1."""
    return 0 if report.get("status") in (("ok",) if strict else ("ok", "degraded")) else 1


def _print_health(report: dict[str, Any], *, strict: bool = False) -> int:
    print(f"status: {report.get('status')}")
    for name, check in report.get("checks", {}).items():
        state = check.get("state") or ("ok" if check.get("ok") else "PROBLEM")
        detail = check.get("problem") or "; ".join(check.get("problems", [])[:3])
        print(
            f"  {name}: {state}{' - ' + detail if detail else ''}{' (repaired)' if check.get('repaired') else ''}"
        )
    if "message" in report:
        print(f"  {report['message']}")
    return _healthy(report, strict=strict)


def cmd_health(args: argparse.Namespace) -> int:
    strict = bool(args.strict)
    if not args.url:
        return run_with_service(
            args,
            lambda service: service.operations.health(repair=not args.no_repair),
            text=lambda report: _print_health(report, strict=strict),
            exit_code=lambda report: _healthy(report, strict=strict),
            kind="ops",
        )
    settings = _settings(args)
    token = settings.http_token.get_secret_value() if settings.http_token else None
    code, report = probe_url(args.url, token, args.timeout)
    if args.json:
        _emit(report)
    else:
        _print_health(report, strict=strict)
    return 0 if code == 200 and _healthy(report, strict=strict) == 0 else 1


def cmd_review(args: argparse.Namespace) -> int:
    if args.clear_flag is not None:
        return run_with_service(
            args,
            lambda service: service.memories.clear_flags(args.clear_flag),
            text=_print_cleared,
            as_json=lambda result: result.to_dict(),
        )

    def review(service: Any) -> dict[str, Any]:
        report: dict[str, Any] = service.operations.review(
            project=args.project, stale_days=args.stale_days, limit=args.limit
        )
        return _flagged_only(report) if args.flagged else report

    return run_with_service(args, review, text=_print_flagged if args.flagged else _print_review, kind="ops")


def _flagged_only(report: dict[str, Any]) -> dict[str, Any]:
    """The review's flagged part (``review --flagged``): what the hooks leave out, and why."""
    keys = ("tenant", "project", "flagged", "flagged_by_source", "reviewed", "note")
    return {**{key: report[key] for key in keys if key in report}, "count": report["counts"]["flagged"]}


def _print_flagged(report: dict[str, Any]) -> None:
    from memwarden.cli.output import one_line

    count = report["count"]
    print(
        f"{count} memor{'y' if count == 1 else 'ies'} flagged as instructions to a model "
        f"(of {report['reviewed']} reviewed): the hooks leave them out; they stay stored"
    )
    # Where they came from (Memory.source): an import or an agent writing hostile text shows here.
    if report.get("flagged_by_source"):
        by_source = ", ".join(f"{source} {n}" for source, n in report["flagged_by_source"].items())
        print(f"written through: {by_source}")
    for item in report["flagged"]:
        actor = f" by {item['actor']}" if item.get("actor") else ""
        print(f"{item['id']}  {item['project']}  written through {item.get('source', 'unknown')}{actor}")
        for flag, reason in zip(
            item["injection_flags"], item.get("reasons", item["injection_flags"]), strict=False
        ):
            print(f"    {flag}: {reason}" if reason != flag else f"    {flag}")
        if item.get("title"):
            print(f"    title: {one_line(item['title'], 200)}")
        print(f"    {one_line(item.get('content', item['preview']), 400)}")
    if len(report["flagged"]) < count:
        print(f"({count - len(report['flagged'])} more: raise --limit)")
    print(
        "Delete a memory that is not yours, rewrite one that is a plain fact, or clear the flag of a "
        "standing instruction you gave (memwarden review --clear-flag ID); " + report["note"]
    )


def _print_cleared(result: Any) -> None:
    if not result.cleared:
        print(f"{result.memory.id} has no flags: nothing to clear")
        return
    print(
        f"cleared {', '.join(result.cleared)} from {result.memory.id} (version {result.memory.version}); "
        "the hooks recall it again, and an update of its text screens it again"
    )


def _print_review(report: dict[str, Any]) -> None:
    from memwarden.cli.output import one_line

    counts = report["counts"]
    print(
        f"reviewed {report['reviewed']} memories: {counts['duplicates']} likely duplicate pairs, "
        f"{counts['never_retrieved']} never retrieved, {counts['stale']} stale, {counts['expired']} expired, "
        f"{counts['flagged']} flagged as instructions"
    )
    for pair in report["duplicates"]:
        print(
            f"duplicate {pair['similarity']:.2f}: {pair['proposal']}\n    {one_line(pair['candidate']['preview'])}"
        )
    for key in ("never_retrieved", "stale", "expired"):
        for item in report[key]:
            print(f"{key.replace('_', ' ')}: {item['id']}  {one_line(item['preview'], 80)}")
    for item in report["flagged"]:
        print(
            f"flagged ({', '.join(item['injection_flags'])}): {item['id']}  {one_line(item['preview'], 80)}"
        )
    print(report["note"])


def _export_to_stdout(operations: Any, **options: Any) -> None:
    """Spool the export to an unnamed temporary file, then copy it to stdout: nothing is printed
    unless its audit row was written (``export_to`` raises otherwise), and memory stays bounded
    whatever the size of the export."""
    import shutil
    import tempfile

    from memwarden.errors import MemwardenError, StorageError

    spooled = False
    try:
        with tempfile.TemporaryFile("w+", encoding="utf-8", newline="") as spool:
            try:
                operations.export_to(spool, **options)
            except MemwardenError:
                spooled = True  # export_to recorded its own error (or could not record anything)
                raise
            spooled = True
            spool.seek(0)
            shutil.copyfileobj(spool, sys.stdout)
    except OSError as exc:
        if spooled:  # stdout itself failed (a closed pipe): main reports it
            raise
        # The temporary folder is full or not writable: refused with a row, nothing printed.
        error = StorageError(
            f"cannot spool the export to a temporary file: {exc.strerror or exc}; nothing was printed"
        )
        operations.refused("export", error)
        raise error from exc


def cmd_export(args: argparse.Namespace) -> int:
    from memwarden.errors import MemwardenError

    options = {"project": args.project, "include_deleted": args.include_deleted}

    def export(service: Any) -> None:
        operations = service.operations
        if not args.out or args.out == "-":
            _export_to_stdout(operations, **options)
            return
        from memwarden.cli.out_files import write_new_file

        target = Path(args.out)
        recorded = False

        def write(handle: Any) -> int:
            nonlocal recorded
            try:
                count: int = operations.export_to(handle, **options)
            except MemwardenError:
                recorded = True  # export_to recorded its own error
                raise
            recorded = True
            return count

        try:
            count = write_new_file(target, write, what="exports")
        except MemwardenError as exc:
            if not recorded:  # refused before the export ran (a file that exists, no such folder…)
                operations.refused("export", exc, name=args.out)
            raise
        print(f"exported {count} memories to {target}", file=sys.stderr)

    # The export itself is the output (the JSON document, on stdout or in the file).
    run_with_service(args, export, text=lambda _: None, kind="ops")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from memwarden.errors import InvalidInput, MemwardenError
    from memwarden.ops.transfer import read_limited
    from memwarden.progress import ProgressBar

    progress = (
        None
        if args.no_progress
        else ProgressBar("importing", show=True if args.progress else None, min_total=PROGRESS_FROM)
    )

    def run(service: Any) -> Any:
        operations = service.operations
        try:
            text = read_limited(Path(args.file), operations.options.import_max_bytes)
        except MemwardenError as exc:  # refused before the import ran: still one audit row
            operations.refused("import", exc, name=args.file)
            raise
        try:
            return operations.import_text(text, fmt=args.format, project=args.project, progress=progress)
        except InvalidInput as exc:  # the core reads text: this line names the file it came from
            if exc.fields.get("field") not in ("data", "format"):
                raise
            raise InvalidInput(f"{args.file}: {exc.message}", **exc.fields) from None

    return run_with_service(
        args,
        run,
        text=lambda report: print(
            f"imported {report['inserted']} of {report['records']} records ({report['format']} format); "
            f"skipped {report['skipped_same_id']} already present by id and {report['skipped_duplicate']} "
            f"duplicates; {report['redacted']} redacted"
        ),
        kind="ops",
    )


def cmd_vacuum(args: argparse.Namespace) -> int:
    return run_with_service(
        args,
        lambda service: service.operations.vacuum(force=args.force),
        text=lambda result: print(
            f"purged {result['purged']} expired memories; database "
            f"{result['bytes_before']} -> {result['bytes_after']} bytes"
        ),
        kind="ops",
    )


def register(command: Callable[[str, Handler, str], argparse.ArgumentParser]) -> None:
    """Add the operations commands to the CLI."""
    from memwarden.ops.transfer import FORMATS

    p = command("backup", cmd_backup, "write a verified backup (into MEMWARDEN_BACKUP_DIR, or --out FILE)")
    p.add_argument("--out", metavar="FILE", help="write here instead (never overwrites a file)")
    p.add_argument("--reason", choices=["manual", "timer"], default="manual", help=argparse.SUPPRESS)
    p.add_argument("--list", action="store_true", help="list the kept backups instead")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")

    p = command("restore", cmd_restore, "show what restoring a backup would change; --yes restores it")
    p.add_argument("file", help="a backup file")
    p.add_argument(
        "--yes", action="store_true", help="restore (the current database is kept as a backup first)"
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")

    p = command("health", cmd_health, "integrity, a real index write, vectors, backups, vault mirror")
    p.add_argument("--url", help="probe a running server's /healthz?deep=1 instead (container health checks)")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for --url (default 10)")
    p.add_argument(
        "--no-repair", action="store_true", help="report a broken keyword index without rebuilding it"
    )
    p.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 when degraded too (a failed backup verification, vectors or vault down), for monitors",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")

    p = command("review", cmd_review, "propose clean-ups: likely duplicates, never retrieved, stale, expired")
    p.add_argument("--project", "--scope", dest="project", help="only this project")
    p.add_argument(
        "--stale-days", type=int, default=90, help="unused for this many days is stale (default 90)"
    )
    p.add_argument(
        "--limit", type=int, default=50, help="at most this many proposals of each kind (default 50)"
    )
    p.add_argument(
        "--flagged",
        action="store_true",
        help="only the memories flagged as instructions to a model (the hooks leave them out), in full",
    )
    p.add_argument(
        "--clear-flag",
        metavar="ID",
        help="clear the injection flags of memory ID instead (you vouch for it; audited)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")

    p = command("export", cmd_export, "write memories as memwarden export JSON (stdout, or --out FILE)")
    p.add_argument("--project", "--scope", dest="project", help="only this project")
    p.add_argument("--include-deleted", action="store_true", help="also export deleted memories")
    p.add_argument("--out", metavar="FILE", help="write here (never overwrites a file)")

    p = command("import", cmd_import, "import a memwarden export or another tool's memories")
    p.add_argument("file", help="the file to import")
    p.add_argument("--format", choices=FORMATS, default="auto", help="file format (default: detect)")
    p.add_argument("--project", "--scope", dest="project", help="put every imported memory in this project")
    bar = p.add_mutually_exclusive_group()
    bar.add_argument(
        "--progress", action="store_true", help="show the progress bar even when not on a terminal"
    )
    bar.add_argument("--no-progress", action="store_true", help="never show the progress bar")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")

    p = command("vacuum", cmd_vacuum, "purge memories expired past the grace period and compact the database")
    p.add_argument(
        "--force",
        action="store_true",
        help="purge even when the clock reads far from the newest audit row (a clock jump, or idle time)",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")


__all__ = ["probe_url", "register"]
