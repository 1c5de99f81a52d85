"""``memwarden`` command line. Imports stay inside commands: ``--version`` and ``search`` must
start fast (no MCP SDK, numpy or onnxruntime on those paths).

Exit codes: 0 success, 1 a memwarden error (one line on stderr), 2 a usage error.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from memwarden.version import __version__

if TYPE_CHECKING:  # pragma: no cover
    # argparse is imported by build_parser: the hook fast path in main() never needs it.
    import argparse

    from memwarden.models import Memory
    from memwarden.service import MemoryService
    from memwarden.write_results import AddResult

Handler = Callable[["argparse.Namespace"], int]
# How long a command waits for the daemon's answer before doing the work itself.
SEARCH_TIMEOUT_S = 10.0
ADD_TIMEOUT_S = 30.0


def _read_content(value: str) -> str:
    return sys.stdin.read() if value == "-" else value


def _print_added(result: AddResult) -> None:
    _print_added_answer(result.to_dict())


def _hot_settings(args: argparse.Namespace) -> Any:
    from memwarden.settings_reader import load_hot_settings

    return load_hot_settings(**({"db": args.db} if getattr(args, "db", None) else {}))


def _print_added_answer(answer: dict[str, Any]) -> None:
    """One line, as ``--json`` says it: stored or a duplicate, what redaction replaced, and a
    flag that keeps it out of recall (with where to see and clear it)."""
    state = "duplicate of" if answer["duplicate"] else "stored"
    notes = []
    if answer["redacted"]:
        notes.append(f"redacted: {', '.join(answer['redactions'])}")
    if answer.get("redactions_dry_run"):
        notes.append(f"would redact (dry-run): {', '.join(answer['redactions_dry_run'])}")
    flags = answer.get("memory", {}).get("injection_flags") or []
    if flags:
        notes.append(f"flagged: {', '.join(flags)}; left out of recall, see `memwarden review --flagged`")
    if answer.get("embedding_failed"):
        notes.append("not embedded yet: found by keyword until it is")
    print(f"{state} {answer['id']}" + "".join(f" ({note})" for note in notes))
    for s in answer["similar"]:
        print(f"  similar: {s['id']}  {s['preview']}")


def cmd_add(args: argparse.Namespace) -> int:
    from memwarden.cli.runner import run_with_service
    from memwarden.daemon.attach import call_daemon

    content = _read_content(args.content)
    fields = {
        "project": args.project,
        "kind": args.kind,
        "title": args.title or "",
        "tags": args.tag,
        "pinned": args.pinned,
        "ttl_hours": args.ttl_hours,
        "context": args.context,
        "thread": args.thread,
        "occurred_at": args.occurred_at,
    }
    # The warm daemon embeds at once; without it this process loads the model (see docs/daemon.md).
    answer = call_daemon(_hot_settings(args), "add", {"content": content, **fields}, timeout=ADD_TIMEOUT_S)
    if answer is not None:
        from memwarden.cli.output import emit_json

        emit_json(answer) if args.json else _print_added_answer(answer)
        _announce_new_database(args)
        return 0

    def add(service: MemoryService) -> AddResult:
        from memwarden.requests import AddRequest

        return service.memories.add(AddRequest(content=content, **fields))

    code = run_with_service(
        args,
        add,
        as_json=lambda result: result.to_dict(),
        text=_print_added,
        embeddings=True,
    )
    _announce_new_database(args)
    return code


def _announce_new_database(args: argparse.Namespace) -> None:
    """On stderr (stdout may be JSON): a database this command created is new, so that a
    mistyped --db or MEMWARDEN_DB is noticed at the first add rather than at the next search."""
    import os

    path = getattr(args, "new_database", None)
    if path and os.path.exists(path):
        print(f"memwarden: created a new database at {os.path.abspath(path)}", file=sys.stderr)


def cmd_search(args: argparse.Namespace) -> int:
    from memwarden.cli.output import emit_json, print_hits

    query = {
        "query": args.query,
        "project": args.project,
        "tags": args.tag,
        "limit": args.limit,
        "include_expired": args.include_expired,
        "max_tokens": args.max_tokens,
        "include_context": args.include_context,
    }
    # The daemon, when it is up, searches by meaning too with its warm model; else this process
    # searches by keywords (or loads the model for --hybrid).
    # MEMWARDEN_DAEMON=off: the daemon modules are not even imported (a cold search's start).
    settings = _hot_settings(args)
    answer = None
    if settings.daemon != "off":
        from memwarden.daemon.attach import call_daemon

        answer = call_daemon(settings, "search", {**query, "vector": True}, timeout=SEARCH_TIMEOUT_S)
    if answer is not None:
        answer["via"] = "daemon"
        emit_json(answer) if args.json else print_hits(answer)
        return 0
    from memwarden.cli.runner import run_with_service

    def search(service: MemoryService) -> dict[str, Any]:
        # The keyword form, which builds no SearchRequest: the request models import pydantic,
        # which a cold `memwarden search` without the daemon must not load (tests/cli/test_cli.py).
        query.pop("query")
        result = service.searcher.search(args.query, vector=args.hybrid, **query)
        return {**result.to_dict(), "via": "process"}

    return run_with_service(
        args,
        search,
        text=print_hits,
        embeddings=args.hybrid,
    )


def _print_found(found_missing: tuple[list[Memory], list[str]], include_context: bool = False) -> int:
    from memwarden.cli.output import print_memory

    found, missing = found_missing
    for memory in found:
        print_memory(memory.to_dict(include_context=include_context))
    for mid in missing:
        print(f"{mid}: not found", file=sys.stderr)
    return 1 if missing and not found else 0


def cmd_get(args: argparse.Namespace) -> int:
    from memwarden.cli.runner import run_with_service
    from memwarden.requests import GetRequest

    return run_with_service(
        args,
        lambda service: service.memories.get(GetRequest(ids=args.ids)),
        as_json=lambda r: {
            "memories": [m.to_dict(include_context=args.include_context) for m in r[0]],
            "missing": r[1],
        },
        text=lambda r: _print_found(r, args.include_context),
        exit_code=lambda r: 1 if r[1] and not r[0] else 0,
    )


def _print_listed(memories: list[Memory]) -> None:
    from memwarden.cli.output import print_memory

    for memory in memories:
        print_memory(memory.to_dict())
    if not memories:
        print("no memories")


def cmd_list(args: argparse.Namespace) -> int:
    from memwarden.cli.runner import run_with_service
    from memwarden.requests import ListRequest

    return run_with_service(
        args,
        lambda service: service.memories.list(
            ListRequest(
                project=args.project,
                tags=args.tag,
                pinned=args.pinned,
                limit=args.limit,
                include_expired=args.include_expired,
            )
        ),
        as_json=lambda memories: {"memories": [m.to_dict() for m in memories], "count": len(memories)},
        text=_print_listed,
    )


def cmd_update(args: argparse.Namespace) -> int:
    from memwarden.cli.runner import run_with_service
    from memwarden.requests import UpdateRequest

    content = None if args.content is None else _read_content(args.content)
    return run_with_service(
        args,
        lambda service: service.memories.update(
            UpdateRequest(
                id=args.id,
                content=content,
                project=args.project,
                kind=args.kind,
                title=args.title,
                tags=args.tag,
                pinned=args.pinned,
                ttl_hours=args.ttl_hours,
                context=args.context,
                thread=args.thread,
                occurred_at=args.occurred_at,
                if_version=args.if_version,
            )
        ),
        as_json=lambda memory: {"memory": memory.to_dict()},
        text=lambda memory: print(f"updated {memory.id} (version {memory.version})"),
        embeddings=True,
    )


def cmd_delete(args: argparse.Namespace) -> int:
    from memwarden.cli.runner import run_with_service
    from memwarden.requests import DeleteRequest

    return run_with_service(
        args,
        lambda service: service.memories.delete(DeleteRequest(id=args.id)),
        as_json=lambda result: result.to_dict(),
        text=lambda result: print(
            f"{'already deleted' if result.already_deleted else 'deleted'} {result.id}"
        ),
    )


def _print_pairs(values: dict[str, Any]) -> None:
    for key, value in values.items():
        print(f"{key}: {value}")


def cmd_stats(args: argparse.Namespace) -> int:
    from memwarden.cli.runner import run_with_service
    from memwarden.requests import StatsRequest

    return run_with_service(
        args,
        lambda service: service.memories.stats(StatsRequest(project=args.project)),
        text=_print_pairs,
    )


def cmd_serve(args: argparse.Namespace) -> int:
    from memwarden.cli.serve_command import serve_command  # only serve pays for its imports

    return serve_command(args)


def cmd_demo(args: argparse.Namespace) -> int:
    from memwarden.cli.demo import run_demo

    return run_demo()


def _add_read_flags(p: argparse.ArgumentParser, *, limit: int) -> None:
    p.add_argument("--project", "--scope", dest="project", help="only this project")
    p.add_argument("--tag", action="append", help="only memories with this tag (repeatable)")
    p.add_argument("--limit", type=int, default=limit, help=f"at most this many (1-100, default {limit})")
    p.add_argument("--include-expired", action="store_true", help="also show expired memories")
    p.add_argument("--json", action="store_true", help="print JSON instead of text (a stable format)")


def _add_write_flags(p: argparse.ArgumentParser, *, update: bool) -> None:
    p.add_argument("--project", "--scope", dest="project", help="project (default 'default')")
    p.add_argument(
        "--kind",
        choices=["fact", "preference", "episode", "note"],
        default=None if update else "fact",
        help="what sort of memory this is" + ("" if update else " (default fact)"),
    )
    p.add_argument("--title", help="a short title (optional)")
    p.add_argument("--tag", action="append", help="a tag (repeatable)")
    pin = p.add_mutually_exclusive_group()
    pin.add_argument(
        "--pinned",
        action="store_true",
        default=None if update else False,
        help="always rank this memory first" if not update else "pin the memory",
    )
    if update:
        pin.add_argument("--unpinned", dest="pinned", action="store_false", help="unpin the memory")
    p.add_argument("--ttl-hours", type=float, help="forget after this many hours")
    p.add_argument(
        "--context",
        help="text explaining the memory, e.g. the message it replies to"
        + (" ('' clears it)" if update else ""),
    )
    p.add_argument("--thread", help="conversation, session or task the memory belongs to")
    p.add_argument("--occurred-at", help="when it happened, ISO 8601 (default: now)")
    p.add_argument("--json", action="store_true", help="print JSON")


# The commands this module defines itself: for these, the parser skips every other command
# module (ops_commands alone pulls in the export/import machinery), keeping `memwarden search`
# near the bare interpreter's start-up. Any other command, or none (--help), builds them all.
CORE_COMMANDS = frozenset(
    {"serve", "add", "search", "get", "list", "update", "delete", "stats", "demo", "vault"}
)


def _command_of(argv: Sequence[str]) -> str | None:
    """The command word of ``argv``: the first argument after the global ``--db DB``."""
    args = list(argv)
    if args[:1] == ["--db"]:
        args = args[2:]
    elif args[:1] and args[0].startswith("--db="):
        args = args[1:]
    return args[0] if args else None


def build_parser(core_only: bool = False) -> argparse.ArgumentParser:
    import argparse

    from memwarden.cli.parser import Parser
    from memwarden.settings_paths import default_data_dir

    default_db = default_data_dir() / "memwarden.db"
    parser = Parser(
        prog="memwarden",
        description="A governed, local-first memory server for AI agents.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            f"database: {default_db} (SQLite) unless MEMWARDEN_DB or --db names another file\n"
            "          or a postgresql:// URL.\n"
            "settings: environment variables MEMWARDEN_* (MEMWARDEN_DB, MEMWARDEN_EMBEDDER, MEMWARDEN_HTTP…),\n"
            "          listed in docs/configuration.md of the source distribution.\n"
            'start:    memwarden demo, then memwarden add "…" and memwarden search "…".'
        ),
    )
    parser.add_argument("--version", "-V", action="version", version=f"memwarden {__version__}")
    parser.add_argument(
        "--db", metavar="PATH_OR_URL", help=f"database (overrides MEMWARDEN_DB; default {default_db})"
    )
    parser.add_argument("--debug", action="store_true", help="show the full traceback of an unexpected error")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def command(name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(handler=handler)
        return p

    p = command("serve", cmd_serve, "serve MCP over stdio, or Streamable HTTP with --http")
    p.add_argument("--http", metavar="HOST:PORT", help="serve Streamable HTTP here (e.g. 127.0.0.1:8765)")
    p.add_argument("--tools", choices=["core", "all"], help="tool profile (default: MEMWARDEN_TOOLS or core)")

    p = command("add", cmd_add, "store a memory")
    p.add_argument("content", help="the memory text, or - to read standard input")
    _add_write_flags(p, update=False)

    p = command("search", cmd_search, "search memories")
    p.add_argument("query", nargs="?", default="", help="what to look for (empty: recent memories)")
    p.add_argument(
        "--hybrid",
        action="store_true",
        help="also search by meaning with the configured embedder (loads the model: about a second)",
    )
    _add_read_flags(p, limit=10)
    p.add_argument(
        "--max-tokens",
        type=int,
        help="only the best hits whose content fits this many tokens "
        "(estimated: 4 ASCII characters or 1 other character per token)",
    )
    p.add_argument("--include-context", action="store_true", help="also show each hit's context")

    p = command("get", cmd_get, "show memories by id")
    p.add_argument("ids", nargs="+", metavar="ID", help="a memory id (as printed by add, search or list)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--include-context", action="store_true", help="also show each memory's context")

    p = command("list", cmd_list, "list recent (or pinned) memories")
    _add_read_flags(p, limit=20)
    p.add_argument("--pinned", action="store_true", help="only pinned memories")

    p = command("update", cmd_update, "change a memory in place")
    p.add_argument("id", help="the memory's id (as printed by add, search or list)")
    p.add_argument("--content", help="new text, or - to read standard input")
    p.add_argument("--if-version", type=int, help="fail unless the memory is at this version")
    _add_write_flags(p, update=True)

    p = command("delete", cmd_delete, "delete a memory (soft delete)")
    p.add_argument("id", help="the memory's id (as printed by add, search or list)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")

    p = command("stats", cmd_stats, "counts and sizes")
    p.add_argument("--project", "--scope", dest="project", help="only this project")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")

    if not core_only:
        from memwarden.cli.ops_commands import register as register_ops

        register_ops(command)
        from memwarden.cli.hook_commands import register as register_hooks

        register_hooks(command)
        from memwarden.cli.embed_commands import register as register_embed

        register_embed(command)
        from memwarden.cli.governance_commands import register as register_governance

        register_governance(command)
        from memwarden.cli.migrate_command import register as register_migrate

        register_migrate(command)
        from memwarden.cli.ui_command import register as register_ui

        register_ui(command)
        from memwarden.cli.bundle_command import register as register_bundle

        register_bundle(command)
        # Not for the core commands either: a cold `memwarden search` need not import them.
        from memwarden.cli.doctor import register as register_doctor

        register_doctor(command)
        from memwarden.cli.eval_command import register as register_eval

        register_eval(command)
        from memwarden.cli.daemon_commands import register as register_daemon

        register_daemon(command)
    command("demo", cmd_demo, "try memwarden in a temporary database (no network, no model)")

    from memwarden.cli.vault_command import register as register_vault

    register_vault(command)
    return parser


def _unknown_command(parser: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """The one-line answer to a mistyped command, with the closest commands; None when it is known."""
    import argparse

    commands: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            commands = list(action.choices)
    args = iter(argv)
    for arg in args:
        if arg == "--db":
            next(args, None)
        elif not arg.startswith("-"):
            if arg in commands:
                return None
            import difflib

            close = difflib.get_close_matches(arg, commands, n=3, cutoff=0.6)
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            return f"memwarden: unknown command {arg!r}{hint} (memwarden --help lists them)"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if given in (["--version"], ["-V"]):
        # Answered before building the parser, which imports every command's module.
        print(f"memwarden {__version__}")
        return 0
    from memwarden.cli.argv_shapes import hook_argv, search_args

    hook = hook_argv(given)
    if hook is not None:
        from memwarden.hooks.commands import run_hook

        return run_hook(hook[0], project=hook[1], db=hook[2])
    search = search_args(given, cmd_search)
    if search is not None:
        return run_handler(cmd_search, search)
    # Every other command may run long (servers, daemons, imports, re-indexing): the collector
    # that cli/entry.py turned off for the start goes back on.
    gc.enable()
    parser = build_parser(core_only=_command_of(given) in CORE_COMMANDS)
    unknown = _unknown_command(parser, given)
    if unknown is not None:
        parser.exit(2, unknown + "\n")  # a usage error, like argparse's own: SystemExit(2)
    args = parser.parse_args(given)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    return run_handler(handler, args)


def run_handler(handler: Handler, args: argparse.Namespace) -> int:
    """Run one command; every failure ends as one line on stderr and an exit code.

    memwarden's own errors print their message (exit 1). A closed output pipe
    (``memwarden search … | head``) exits quietly with 141, as a shell's SIGPIPE would. An
    operating-system error names the file and what to do, any other exception is reported as a
    bug (``cli/failure_lines.py``; exit 1); ``--debug`` shows the traceback.
    """
    from memwarden.errors import MemwardenError

    try:
        from memwarden.cli.existing_db import check_database_place

        # Before a read command could create an empty database; the path of one this command
        # creates, which add and serve announce as new.
        args.new_database = check_database_place(args)
        from memwarden.cli.output import TerminalSafeStdout

        with TerminalSafeStdout():  # stored text cannot drive the terminal (cli/output.py)
            return handler(args)
    except MemwardenError as exc:
        from memwarden.errors import about_an_id

        hint = "; find ids with `memwarden search` or `memwarden list`" if about_an_id(exc) else ""
        print(f"memwarden: {exc.message}{hint}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        _silence_stdout()
        return 141
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if getattr(args, "debug", False):
            raise
        from memwarden.cli.failure_lines import os_error_line, unexpected_line

        print(os_error_line(exc) if isinstance(exc, OSError) else unexpected_line(exc), file=sys.stderr)
        return 1


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot raise again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
