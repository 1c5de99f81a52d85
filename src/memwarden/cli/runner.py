"""One way to run a CLI command against the service: open it, run, print, close.

``run_with_service`` opens the service a command needs, runs ``action`` on it, closes it
whatever happens, then prints the result: JSON (``emit_json``, the stable contract of
docs/cli.md) with ``--json``, the command's own text otherwise. Errors are not caught here:
``cli.main.main`` maps every memwarden error to one line on stderr and exit code 1.

Two kinds of service:
- ``hot`` (read and write commands on the per-prompt path): settings from the pydantic-free
  reader, so that ``memwarden search`` starts within its budget; the embedder only when the
  command writes text or asks for it (``embeddings=True``), loaded in the foreground.
- ``ops`` (backup, health, import…): the full settings, with backups and the exchange folder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from memwarden.cli.output import emit_json

if TYPE_CHECKING:  # pragma: no cover
    import argparse

    from memwarden.service import MemoryService

T = TypeVar("T")
Kind = Literal["hot", "ops"]


def open_service(args: argparse.Namespace, *, kind: Kind = "hot", embeddings: bool = False) -> MemoryService:
    """The service of one command (see the module docstring for the two kinds)."""
    from memwarden.app import build_service

    db = getattr(args, "db", None)
    if kind == "ops":
        from memwarden.config import load_settings

        return build_service(
            load_settings(**({"db": db} if db else {})), ops=True, background=False, source="cli"
        )
    from memwarden.settings_reader import load_hot_settings

    settings = load_hot_settings(**({"db": db} if db else {}))
    return build_service(settings, embeddings=embeddings, background=False, source="cli")


@contextmanager
def opened(
    args: argparse.Namespace, *, kind: Kind = "hot", embeddings: bool = False
) -> Iterator[MemoryService]:
    """``open_service`` as a context: closed on the way out, whatever happened."""
    service = open_service(args, kind=kind, embeddings=embeddings)
    try:
        yield service
    finally:
        service.close()


def run_with_service(
    args: argparse.Namespace,
    action: Callable[[MemoryService], T],
    *,
    text: Callable[[T], int | None],
    as_json: Callable[[T], Any] | None = None,
    exit_code: Callable[[T], int] | None = None,
    kind: Kind = "hot",
    embeddings: bool = False,
) -> int:
    """Run ``action`` on a fresh service and print its result; the exit code.

    ``as_json`` turns the result into the JSON printed with ``--json`` (the result itself when
    omitted); ``text`` prints it for people and may return an exit code (0 when it returns None);
    ``exit_code`` gives the exit code of a JSON run (0 when omitted).
    """
    with opened(args, kind=kind, embeddings=embeddings) as service:
        result = action(service)
    if getattr(args, "json", False):
        emit_json(as_json(result) if as_json is not None else result)
        return 0 if exit_code is None else exit_code(result)
    code = text(result)
    return 0 if code is None else code
