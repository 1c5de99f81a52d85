"""Running the ``memwarden`` command from a test: in this process, or as a real process.

``run_in_process`` calls the command's own entry (``memwarden.cli.main.main``) with argv, the
environment given explicitly (the process environment is exactly ``env`` for the call, then
restored), stdin, and stdout/stderr captured; it answers like ``subprocess.run`` (``returncode``,
``stdout``, ``stderr``). It is for tests about what a command does: its output, exit code, files
and database. A new interpreter per command costs far more than the command itself.

``run_memwarden`` starts ``python -m memwarden`` as a real process: for tests about the process
itself (the console entry and its fast paths, start-up time and imports, exit without teardown,
signals, several processes on one database, servers and daemons).
"""

from __future__ import annotations

import io
import logging
import os
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

#: How long a command run as a process may take before the test fails.
PROCESS_TIMEOUT_S = 300.0


def memwarden_command(*argv: str) -> list[str]:
    """The argv of the real command: this interpreter, ``-m memwarden``."""
    return [sys.executable, "-m", "memwarden", *argv]


def run_memwarden(
    env: Mapping[str, str],
    *argv: str,
    stdin: str = "",
    cwd: str | os.PathLike[str] | None = None,
    timeout: float = PROCESS_TIMEOUT_S,
) -> subprocess.CompletedProcess[str]:
    """Run ``memwarden *argv`` as a process with exactly ``env``; output captured as text."""
    return subprocess.run(
        memwarden_command(*argv),
        input=stdin,
        env=dict(env),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@dataclass
class CliResult:
    """What a command run in-process left: the same fields as ``subprocess.CompletedProcess``."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    def check_returncode(self) -> None:
        if self.returncode:
            raise subprocess.CalledProcessError(self.returncode, self.args, self.stdout, self.stderr)


def _text_stream(initial: str = "") -> io.TextIOWrapper:
    # A real text stream over bytes, as a process's: ``.buffer`` exists, isatty() is False.
    return io.TextIOWrapper(io.BytesIO(initial.encode()), encoding="utf-8", newline=None, write_through=True)


def _read_back(stream: io.TextIOWrapper) -> str:
    stream.flush()
    raw = stream.buffer
    assert isinstance(raw, io.BytesIO)
    return raw.getvalue().decode("utf-8", errors="replace")


@contextmanager
def _process_state(env: Mapping[str, str], cwd: str | os.PathLike[str] | None) -> Iterator[None]:
    """The environment, working folder, umask and logging a command would see as a process, put
    back afterwards (the console entry sets the umask to at least 077: cli/entry.py)."""
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_umask = os.umask(0o077)
    os.umask(saved_umask | 0o077)
    root = logging.getLogger()
    saved_logging = (list(root.handlers), root.level)
    os.environ.clear()
    os.environ.update(env)
    try:
        if cwd is not None:
            os.chdir(cwd)
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        os.umask(saved_umask)
        root.handlers[:] = saved_logging[0]
        root.setLevel(saved_logging[1])


def run_in_process(
    env: Mapping[str, str],
    *argv: str,
    stdin: str = "",
    cwd: str | os.PathLike[str] | None = None,
) -> CliResult:
    """Run ``memwarden *argv`` through its entry in this process, with exactly ``env``."""
    from memwarden.cli.main import main

    streams = (sys.stdin, sys.stdout, sys.stderr)
    fake_in, fake_out, fake_err = _text_stream(stdin), _text_stream(), _text_stream()
    with _process_state(env, cwd):
        sys.stdin, sys.stdout, sys.stderr = fake_in, fake_out, fake_err
        try:
            code = main(list(argv))
        except SystemExit as exc:  # argparse's usage errors and --help
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if isinstance(exc.code, str):
                print(exc.code, file=sys.stderr)
        finally:
            sys.stdin, sys.stdout, sys.stderr = streams
    return CliResult(
        args=memwarden_command(*argv),
        returncode=int(code),
        stdout=_read_back(fake_out),
        stderr=_read_back(fake_err),
    )


def cli_environment(db: Path, folder: Path, **extra: str) -> dict[str, str]:
    """The environment of a command on ``db``: this run's environment without the developer's
    MEMWARDEN_ settings, the log and backups in ``folder``, no embedder, no daemon."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMWARDEN_")}
    env.update(
        MEMWARDEN_DB=str(db),
        MEMWARDEN_LOG_FILE=str(folder / "memwarden.log"),
        MEMWARDEN_BACKUP_DIR=str(folder / "backups"),
        MEMWARDEN_EMBEDDER="none",
        MEMWARDEN_DAEMON="off",
    )
    env.update(extra)
    return env
