"""``memwarden vault sync``: rebuild the Obsidian vault mirror (MEMWARDEN_VAULT_DIRS)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any

Handler = Callable[[argparse.Namespace], int]


def _print_vault_sync(report: dict[str, Any]) -> int:
    """The folders written on stdout; each failed folder as one line on stderr (the error
    names the folder and what to do), so a sync that wrote nothing prints only its errors."""
    written = [folder for folder in report["folders"] if not folder["error"]]
    if written:
        print(f"vault sync: {report['memories']} memories")
    for folder in written:
        print(
            f"  {folder['path']}: written {folder['written']}, unchanged {folder['unchanged']}, "
            f"renamed {folder['renamed']}, removed {folder['removed']}"
        )
    for folder in report["folders"]:
        if folder["error"]:
            print(f"memwarden: vault sync: cannot write to {folder['error']}", file=sys.stderr)
    return 0 if report["ok"] else 1


def cmd_vault_sync(args: argparse.Namespace) -> int:
    from memwarden.cli.runner import run_with_service
    from memwarden.progress import ProgressBar

    # On stderr, only on a terminal (or with --progress); never with --json.
    show = False if args.json or args.no_progress else (True if args.progress else None)
    return run_with_service(
        args,
        lambda service: service.operations.vault_sync(ProgressBar("syncing vault", show=show)),
        text=_print_vault_sync,
        exit_code=lambda report: 0 if report["ok"] else 1,
    )


def cmd_vault_help(args: argparse.Namespace) -> int:
    args.vault_parser.print_help(sys.stderr)
    return 2


def register(command: Callable[[str, Handler, str], argparse.ArgumentParser]) -> None:
    p = command("vault", cmd_vault_help, "the Obsidian vault mirror (MEMWARDEN_VAULT_DIRS)")
    p.set_defaults(vault_parser=p)
    vault = p.add_subparsers(dest="vault_command", metavar="ACTION")
    p = vault.add_parser(
        "sync",
        help="rebuild every note; remove notes of deleted memories",
        description="Rebuild every memwarden note in each MEMWARDEN_VAULT_DIRS folder "
        "(idempotent); remove notes of deleted memories; leave every other file alone.",
    )
    p.set_defaults(handler=cmd_vault_sync)
    p.add_argument("--json", action="store_true", help="print JSON")
    bar = p.add_mutually_exclusive_group()
    bar.add_argument(
        "--progress", action="store_true", help="show the progress bar even when not on a terminal"
    )
    bar.add_argument("--no-progress", action="store_true", help="never show the progress bar")


__all__ = ["register"]
