"""``memwarden reindex --embeddings``: embed every memory that lacks a vector of the current model."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

Handler = Callable[[argparse.Namespace], int]


def cmd_reindex(args: argparse.Namespace) -> int:
    from memwarden.cli.runner import run_with_service
    from memwarden.progress import ProgressBar

    if not args.embeddings:
        print("memwarden: say what to rebuild: --embeddings", file=sys.stderr)
        return 2
    show = not args.no_progress and (args.progress or sys.stderr.isatty())
    return run_with_service(
        args,
        lambda service: service.operations.reindex_embeddings(progress=ProgressBar("embedding", show=show)),
        text=lambda report: print(
            f"embedded {report['embedded']} memories with {report['model']} ({report['dimension']} dimensions); "
            f"{report['missing']} still without a vector, {report['embedding_failed']} failed"
        ),
        kind="ops",
    )


def register(command: Callable[[str, Handler, str], argparse.ArgumentParser]) -> None:
    p = command(
        "reindex", cmd_reindex, "rebuild derived data: --embeddings embeds memories lacking a current vector"
    )
    p.add_argument(
        "--embeddings",
        action="store_true",
        help="embed (in batches) every memory without a vector of the configured model",
    )
    bar = p.add_mutually_exclusive_group()
    bar.add_argument(
        "--progress", action="store_true", help="show the progress bar even when not on a terminal"
    )
    bar.add_argument("--no-progress", action="store_true", help="never show the progress bar")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


__all__ = ["register"]
