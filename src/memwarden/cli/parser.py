"""The CLI's argument parser class: argparse's, without importing :mod:`shutil` on every run.

argparse builds a help formatter for every ``add_argument`` (to check the metavar), and a
formatter created without a width imports shutil (with bz2, lzma and fnmatch; docs/performance.md#cold-start) to
ask for the terminal's. ``memwarden search`` and ``memwarden hook prompt`` run before every
agent turn, so this parser gives its formatters the width up front, found the way
``shutil.get_terminal_size`` finds it. Subparsers are of the same class (argparse's default
``parser_class``), so every command's parser has it.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from memwarden.settings_reader import terminal_columns


def help_width() -> int:
    """The width argparse would wrap help to: ``$COLUMNS``, else the terminal's, else 80; minus 2."""
    columns = terminal_columns() or 0
    if not columns:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


# The namespace attribute naming the innermost (sub-)command that parsed the arguments.
_COMMAND_PROG = "_memwarden_command_prog"


class Parser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` whose formatters are told the help width (see the module)."""

    def __init__(self, *, formatter_class: Any = argparse.HelpFormatter, **kwargs: Any) -> None:
        super().__init__(formatter_class=functools.partial(formatter_class, width=help_width()), **kwargs)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """argparse's, noting which command's parser ran innermost: a sub-command's parser
        finishes first, and its namespace is copied into the outer one's."""
        parsed, extras = super().parse_known_args(args, namespace)
        if not hasattr(parsed, _COMMAND_PROG):
            setattr(parsed, _COMMAND_PROG, self.prog)
        return parsed, extras

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """argparse's, except that an unknown flag of a sub-command points to that sub-command's
        help (``memwarden audit export --help``), where its flags are listed, not the top one."""
        parsed, extras = self.parse_known_args(args, namespace)
        command = getattr(parsed, _COMMAND_PROG, self.prog)
        delattr(parsed, _COMMAND_PROG)
        if extras:
            self.exit(
                2,
                f"{command}: unrecognized arguments: {' '.join(extras)}; "
                f"`{command} --help` shows the usage\n",
            )
        return parsed

    def error(self, message: str) -> NoReturn:
        """A usage error as one line that says where the usage is (argparse prints the whole
        usage block first, which buries the one line that says what was wrong); exit 2."""
        self.exit(2, f"{self.prog}: {message}; `{self.prog} --help` shows the usage\n")
