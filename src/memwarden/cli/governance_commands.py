"""Governance commands: ``audit verify|export|prune|keygen`` and ``token new|hash``.

Exit codes: 0 success (for ``audit verify``: the chain is intact), 1 a memwarden error or a
broken chain, 2 a usage error.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

Handler = Callable[[argparse.Namespace], int]


def _settings(args: argparse.Namespace) -> Any:
    from memwarden.config import load_settings

    return load_settings(**({"db": args.db} if getattr(args, "db", None) else {}))


def parse_when(value: str, flag: str, *, end_of_day: bool = False) -> datetime:
    """An ISO date or date-time (UTC unless it says otherwise); a bare date as --to covers that day."""
    from memwarden.errors import InvalidInput

    text = value.strip()
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(
            f"{flag} {value!r} is not a date; use 2026-01-31 or 2026-01-31T12:00:00Z", field="date"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    if end_of_day and len(text) == 10:
        when += timedelta(days=1)
    return when


def _audit_key(settings: Any) -> Any:
    """The chain key of MEMWARDEN_AUDIT_KEY_FILE, or None when no key file is set."""
    from memwarden.audit.keys import load_key

    return load_key(Path(settings.audit_key_file).expanduser()) if settings.audit_key_file else None


def cmd_audit_verify(args: argparse.Namespace) -> int:
    from memwarden.audit.anchor import AnchorFile
    from memwarden.cli.output import emit_json
    from memwarden.errors import InvalidInput
    from memwarden.store.audit_logs import verify_database

    settings = _settings(args)
    anchor = None
    if args.anchor:
        seq, _, digest = args.anchor.partition(":")
        if not seq.isdigit() or not digest:
            raise InvalidInput(
                "--anchor must be SEQ:HASH, e.g. 1200:<hash> from an earlier verify", field="anchor"
            )
        anchor = (int(seq), digest.lower())
    # The configured anchor belongs to the live database: --db naming that same database checks
    # it too; --db naming another one (a backup) does not.
    anchor_file = args.anchor_file or (settings.audit_anchor_file if _is_live(args, settings) else "")
    if anchor is None and anchor_file:
        anchor = AnchorFile(Path(anchor_file).expanduser()).read()
        if anchor is None and args.anchor_file:
            raise InvalidInput(
                f"the anchor file {args.anchor_file} does not exist: check the path, or give the head "
                "an earlier `memwarden audit verify` printed as --anchor SEQ:HASH",
                field="anchor_file",
            )
    report = verify_database(settings.database_url(), anchor, key=_audit_key(settings))
    # The configured anchor file is missing although rows were written: the rollback check
    # cannot run, so the chain is not reported as verified. Before the first row (a new
    # database) there is nothing to anchor yet, and that is no failure.
    anchor_missing = (
        str(Path(anchor_file).expanduser())
        if anchor is None and anchor_file and not args.anchor and report.head.seq > 0
        else None
    )
    from memwarden.ops.markers import markers_read_only

    # A database an unfinished migrate is copying into holds only the rows copied so far.
    unfinished = [m for m in markers_read_only(settings.database_url()) if m["operation"] == "migrate"]
    if args.json:
        # The JSON says what the exit code says: a missing anchor file or an unfinished migrate
        # leaves the chain not verified, even when the rows present link up.
        incomplete = bool(anchor_missing or unfinished)
        emit_json(
            {
                **report.to_dict(),
                **(
                    {"verified": False, "state": "not_verified"} if incomplete and not report.problems else {}
                ),
                "anchor": None if anchor is None else {"seq": anchor[0], "hash": anchor[1]},
                "anchor_missing": anchor_missing,
                "unfinished_migrate": unfinished[0] if unfinished else None,
            }
        )
    else:
        if anchor_missing:
            print(
                f"audit chain NOT VERIFIED against its anchor: the anchor file {anchor_missing} "
                f"(MEMWARDEN_AUDIT_ANCHOR_FILE) does not exist, but the chain has rows up to seq "
                f"{report.head.seq}: lost rows (a rolled-back or replaced database) cannot be detected. "
                "It was deleted or moved aside, or set after the last write (the next write creates it)"
            )
            print(f"  the chain alone: {report.summary()}")
        else:
            print(report.summary())
        if anchor is None and not anchor_missing and report.rows and not report.problems:
            print(
                "  no anchor given: newest rows cut with the head moved back would not show; "
                "set MEMWARDEN_AUDIT_ANCHOR_FILE (docs/governance.md#anchor-file)"
            )
        for marker in unfinished:
            print(
                f"  NOT COMPLETE: this database holds an unfinished migrate (started {marker.get('started_at')}): "
                f"its chain has only the rows copied so far. {marker['advice']}"
            )
        if not report.ok:
            print(f"  {report.mode_line()}")
        for problem in report.problems:
            where = f"position {problem.position}" + (
                f" (seq {problem.seq})" if problem.seq is not None else ""
            )
            print(f"  {where}: {problem.kind}: {problem.message}")
        for guard in report.guards:
            print(f"  GUARD {guard.seq}: {guard.kind}: {guard.message}")
        for jump in report.clock_jumps:
            print(f"  WARNING position {jump.position} (seq {jump.seq}): {jump.kind}: {jump.message}")
    # Verified means checked: guards that are not memwarden's, or keyed rows left unchecked for
    # want of the key, are not a pass (``VerifyReport.state``).
    return 0 if report.verified and not unfinished and not anchor_missing else 1


def _is_live(args: argparse.Namespace, settings: Any) -> bool:
    """Whether this command's database is the one memwarden uses without --db (the database
    whose anchor MEMWARDEN_AUDIT_ANCHOR_FILE keeps): no --db, or --db naming the same file or URL."""
    if not getattr(args, "db", None):
        return True
    from memwarden.config import load_settings
    from memwarden.settings_paths import is_postgres_url, sqlite_file_name

    chosen, live = settings.database_url(), load_settings().database_url()
    if is_postgres_url(chosen) or is_postgres_url(live):
        return bool(chosen == live)
    chosen_file, live_file = Path(sqlite_file_name(chosen)), Path(sqlite_file_name(live))
    try:
        # samefile, not equal paths: a hard link (or another mount) of the live file is the live
        # database, and must not make verify skip its anchor.
        return chosen_file.resolve() == live_file.resolve() or chosen_file.samefile(live_file)
    except OSError:
        return False


def cmd_audit_keygen(args: argparse.Namespace) -> int:
    from memwarden.audit.keys import write_new_key
    from memwarden.cli.output import emit_json
    from memwarden.errors import InvalidInput

    target = args.out or _settings(args).audit_key_file
    if not target:
        raise InvalidInput(
            "say where to write the key: --out FILE (outside the database's folder, readable only "
            "by memwarden's user), then set MEMWARDEN_AUDIT_KEY_FILE to it",
            field="out",
        )
    key = write_new_key(Path(target).expanduser())
    if args.json:
        emit_json({"file": key.path, "key_id": key.key_id})
    else:
        print(
            f"wrote a new audit chain key to {key.path} (mode 0600, key id {key.key_id}); "
            f"set MEMWARDEN_AUDIT_KEY_FILE={key.path} and keep a copy somewhere safe: rows signed with it "
            "cannot be checked without it"
        )
    return 0


def cmd_audit_export(args: argparse.Namespace) -> int:
    from memwarden.audit.export import write_audit_export
    from memwarden.cli.out_files import check_new_file
    from memwarden.errors import InvalidInput
    from memwarden.models import Caller
    from memwarden.store.audit_logs import open_audit_log

    settings = _settings(args)
    since = parse_when(args.since, "--from") if args.since else None
    until = parse_when(args.until, "--to", end_of_day=True) if args.until else None
    if since and until and since >= until:
        raise InvalidInput("--from must be before --to", field="from")
    out = None if args.out == "-" else Path(args.out)
    if out is not None:
        check_new_file(out, what="audit exports")
    from memwarden.app import build_redactor

    redactor = build_redactor(settings)
    log = open_audit_log(settings.database_url())
    try:
        # The filters are echoed in the file and in the export's own audit row: redacted there like
        # any stored text (an actor filter may be an e-mail); the query itself uses them as given.
        filters = {
            name: None if value is None else redactor.redact(value).text
            for name, value in {
                "from": args.since,
                "to": args.until,
                "tenant": args.tenant,
                "actor": args.actor,
            }.items()
        }
        count = write_audit_export(
            log,
            out,
            fmt=args.format,
            since=since,
            until=until,
            tenant=args.tenant,
            actor=args.actor,
            filters=filters,
            redact=lambda text: str(redactor.redact(text).text),
        )
        from memwarden.audit.auditor import Auditor

        # Reading the audit log is itself recorded.
        Auditor(log).record(
            "export",
            Caller(settings.actor, settings.tenant),
            result_count=count,
            detail={"what": "audit", "format": args.format, **{k: v for k, v in filters.items() if v}},
        )
    finally:
        log.close()
    if out is not None:
        print(f"wrote {count} audit rows to {out}", file=sys.stderr)
    return 0


def cmd_audit_prune(args: argparse.Namespace) -> int:
    from memwarden.app import build_service
    from memwarden.cli.output import emit_json
    from memwarden.errors import Conflict, InvalidInput

    before = parse_when(args.before, "--before")
    now = datetime.now(UTC)
    if before > now:
        raise InvalidInput(
            f"--before {args.before} is in the future; prune only removes past rows", field="before"
        )
    service = build_service(_settings(args))  # migrates an older database first
    try:
        if service.auditor is None:
            raise InvalidInput("auditing is off (MEMWARDEN_AUDIT=false); nothing to prune", field="before")
        who = service.default_caller
        # The checkpoint and its `prune` row are written in one transaction by the log itself.
        try:
            checkpoint = service.auditor.log.prune(before, now, actor=who.actor, tenant=who.tenant)
        except Conflict as exc:  # refused (the clock went back): the refusal is recorded too
            service.operations.audit(
                "prune", outcome=exc.code, detail={"before": args.before, "error": exc.message[:200]}
            )
            raise
        if checkpoint is None:
            service.operations.audit("prune", detail={"before": args.before, "upto_seq": None})
    finally:
        service.close()
    result = {
        "pruned": checkpoint.pruned_rows if checkpoint else 0,
        "checkpoint": None
        if checkpoint is None
        else {"upto_seq": checkpoint.upto_seq, "upto_hash": checkpoint.upto_hash},
    }
    if args.json:
        emit_json(result)
    elif checkpoint is None:
        print(f"no audit rows older than {args.before}")
    else:
        print(
            f"pruned {checkpoint.pruned_rows} audit rows up to seq {checkpoint.upto_seq}; "
            f"checkpoint {checkpoint.upto_hash[:16]}… keeps the rest verifiable"
        )
    return 0


def cmd_token_new(args: argparse.Namespace) -> int:
    from memwarden.cli.output import emit_json
    from memwarden.govern.identity import add_token_entry, new_token, parse_tokens, token_digest

    if args.file:
        token, entry = add_token_entry(Path(args.file), args.actor, args.tenant)
    else:
        token = new_token()
        entry = {"sha256": token_digest(token), "actor": args.actor, "tenants": args.tenant}
        parse_tokens({"tokens": [entry]}, Path("<command line>"))
    if args.json:
        emit_json({"token": token, "entry": entry, "file": args.file})
    else:
        print(f"token (shown once; give it to {args.actor}): {token}")
        print(
            f"added to {args.file}" if args.file else f"tokens-file entry: {__import__('json').dumps(entry)}"
        )
    return 0


def cmd_token_hash(args: argparse.Namespace) -> int:
    from memwarden.errors import InvalidInput
    from memwarden.govern.identity import token_digest

    token = sys.stdin.readline().strip()
    if not token:
        raise InvalidInput(
            'send the token on standard input, e.g. printf %s "$TOKEN" | memwarden token hash', field="token"
        )
    print(token_digest(token))
    return 0


def _usage(parser: argparse.ArgumentParser) -> Handler:
    def show(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    return show


def register(command: Callable[[str, Handler, str], argparse.ArgumentParser]) -> None:
    audit = command("audit", lambda a: 2, "verify, export, prune or key the tamper-evident audit log")
    audit.set_defaults(handler=_usage(audit))
    sub = audit.add_subparsers(dest="audit_command", metavar="SUBCOMMAND")
    p = sub.add_parser(
        "verify",
        help="check the hash chain; exit 1 and say where it breaks",
        description="Check every row of the audit chain, its checkpoints and its head.",
    )
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--anchor", metavar="SEQ:HASH", help="a head noted earlier that the chain must still contain"
    )
    p.add_argument(
        "--anchor-file",
        metavar="FILE",
        help="the anchor file memwarden keeps (MEMWARDEN_AUDIT_ANCHOR_FILE, checked by default when set)",
    )
    p.set_defaults(handler=cmd_audit_verify)
    p = sub.add_parser(
        "keygen",
        help="write a new key for a keyed (HMAC-SHA256) audit chain",
        description="Write a new random chain key to a new file (mode 0600); never overwrites.",
    )
    p.add_argument("--out", metavar="FILE", help="the key file to create (default: MEMWARDEN_AUDIT_KEY_FILE)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(handler=cmd_audit_keygen)
    p = sub.add_parser(
        "export",
        help="write audit rows to a CSV or JSON file",
        description="Write audit rows (optionally filtered) to a new file.",
    )
    p.add_argument("--from", dest="since", metavar="DATE", help="rows at or after this date/time (UTC)")
    p.add_argument(
        "--to", dest="until", metavar="DATE", help="rows before this time; a bare date includes that day"
    )
    p.add_argument("--tenant", help="only this tenant")
    p.add_argument("--actor", help="only this actor")
    p.add_argument("--format", choices=["csv", "json"], default="json", help="file format (default json)")
    p.add_argument("--out", required=True, metavar="FILE", help="a new file to write (- for standard output)")
    p.set_defaults(handler=cmd_audit_export)
    p = sub.add_parser(
        "prune",
        help="remove rows older than a date, leaving a checkpoint",
        description="Remove audit rows older than DATE; a checkpoint keeps the rest verifiable.",
    )
    p.add_argument(
        "--before", required=True, metavar="DATE", help="remove rows older than this date/time (UTC)"
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(handler=cmd_audit_prune)

    token = command("token", lambda a: 2, "make bearer tokens for MEMWARDEN_TOKENS_FILE")
    token.set_defaults(handler=_usage(token))
    sub = token.add_subparsers(dest="token_command", metavar="SUBCOMMAND")
    p = sub.add_parser(
        "new",
        help="make a token for an actor and its tenants",
        description="Make a bearer token; print it once; store only its SHA-256.",
    )
    p.add_argument("--actor", required=True, help="who the token belongs to (recorded in the audit log)")
    p.add_argument(
        "--tenant",
        required=True,
        action="append",
        help="a tenant it may act in (repeatable; first is default)",
    )
    p.add_argument("--file", help="append the entry to this tokens file (created if absent)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(handler=cmd_token_new)
    p = sub.add_parser(
        "hash",
        help="print the SHA-256 of a token read from standard input",
        description="Print the SHA-256 digest of the token on standard input.",
    )
    p.set_defaults(handler=cmd_token_hash)
