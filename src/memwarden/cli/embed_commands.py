"""``memwarden reindex --embeddings``: embed every memory that lacks a vector of the current model."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

Handler = Callable[[argparse.Namespace], int]


class EmbedProgress:
    """A one-line progress bar on stderr (shown on a terminal, or always with ``--progress``)."""

    def __init__(self, *, show: bool, width: int = 30) -> None:
        self.show = show
        self.width = width

    def __call__(self, done: int, total: int) -> None:
        if not self.show:
            return
        filled = self.width * done // max(total, 1)
        sys.stderr.write(f"\rembedding [{'#' * filled}{'.' * (self.width - filled)}] {done}/{total}")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def cmd_reindex(args: argparse.Namespace) -> int:
    from memwarden.cli.runner import run_with_service

    if not args.embeddings:
        print("memwarden: say what to rebuild: --embeddings", file=sys.stderr)
        return 2
    show = not args.no_progress and (args.progress or sys.stderr.isatty())
    return run_with_service(
        args, lambda service: service.searcher.reindex_embeddings(progress=EmbedProgress(show=show)),
        text=lambda report: print(
            f"embedded {report['embedded']} memories with {report['model']} ({report['dimension']} dimensions); "
            f"{report['missing']} still without a vector, {report['embedding_failed']} failed"),
        kind="ops",
    )


def register(command: Callable[[str, Handler, str], argparse.ArgumentParser]) -> None:
    p = command("reindex", cmd_reindex, "rebuild derived data: --embeddings embeds memories lacking a current vector")
    p.add_argument("--embeddings", action="store_true",
                   help="embed (in batches) every memory without a vector of the configured model")
    bar = p.add_mutually_exclusive_group()
    bar.add_argument("--progress", action="store_true", help="show the progress bar even when not on a terminal")
    bar.add_argument("--no-progress", action="store_true", help="never show the progress bar")
    p.add_argument("--json", action="store_true", help="print the result as JSON")


__all__ = ["register"]
