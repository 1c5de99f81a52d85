"""The ``memwarden`` command (the console script and ``python -m memwarden``): ``cli.main.main``
with the cyclic garbage collector off while the command starts, and, for the short commands,
an exit without the interpreter's teardown.

A cold ``memwarden search`` or prompt hook is short-lived and frees what it allocates by
reference counting, yet the collector made dozens of passes while its modules loaded, one of
them over every object of every module imported so far: a measurable share of a cold search's
wall time (docs/performance.md#cold-start). ``cli.main.main`` turns the collector back on
before any other command runs (servers, daemons, imports and re-indexing run long and may build
cycles), so only ``--version``, ``search`` and the hooks run without it, to their end.

A plain ``memwarden serve`` (how MCP clients start it) starts here too, without ``cli.main``
(``cli/plain_serve.py``): a relay stays resident for a client's whole session.

The hooks start here, without ``cli.main`` (their arguments are read by ``argv_shapes``, as
``cli.main`` reads them): the prompt hook is first offered to a running daemon
(``hooks.quick``), then run as usual (``hooks.commands.run_hook``).

Those short commands then end with ``os._exit`` once their output is flushed and the
``atexit`` handlers have run (logging's flush, the vault mirror's): the interpreter's own exit
tears down every module it imported and collects once more, another measurable share of a cold
search. Their database connections are closed by then (``cli.runner`` closes the
service), and nothing else is open. A command that left a thread running exits the usual way.

Before anything else, the process umask becomes at least 077, so every file and folder a
command creates is private to the user, whatever the shell's umask, and the switches that keep
third-party libraries from calling home are set (``vendor_env.py``).

Only these two entry points import this module: importing ``memwarden.cli.main`` (tests, the
MCP bundle) leaves the collector and the exit alone.
"""

from __future__ import annotations

import gc

gc.disable()

import atexit  # noqa: E402 - after the collector is off, as everything imported from here on
import os  # noqa: E402
import sys  # noqa: E402

# Not typing's: the prompt hook asking the daemon never imports typing, whose import is a
# large share of that hook's CPU (docs/performance.md#cold-start). mypy reads it as True.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import NoReturn

# What a command whose output pipe closed early exits with (``memwarden search … | head``), as
# cli.main.run_handler does.
BROKEN_PIPE = 141


def main() -> int:
    if os.name != "nt":
        # Everything memwarden creates (data folder, database and its -wal/-shm, log, backups,
        # exports, runtime folder, vault notes) is the user's alone: a home folder others may
        # enter (0755) must not expose it. A stricter umask the user set is kept.
        os.umask(os.umask(0o077) | 0o077)
    # Third-party libraries that call home or write into ~/.cache unless told not to, told so
    # before any command can import them (vendor_env.py); the server, the daemon and the
    # child that prepares the model inherit it.
    from memwarden.vendor_env import quiet_vendor_libraries

    quiet_vendor_libraries()
    from memwarden.cli.plain_serve import is_plain_serve

    if is_plain_serve(sys.argv[1:]):
        # One per MCP client, relaying for the client's whole session: started without the
        # parser, whose imports would stay resident in every client's process (cli/plain_serve.py).
        # It runs long, so with the collector on, and ends through the interpreter's own exit.
        gc.enable()
        from memwarden.cli.plain_serve import run_plain_serve

        return run_plain_serve()
    from memwarden.cli.argv_shapes import hook_argv

    hook = hook_argv(sys.argv[1:])
    if hook is not None:
        # The hooks, as cli.main would run them, without importing it (nor the parser).
        name, project, db = hook
        if name == "prompt":
            from memwarden.hooks.quick import answer_prompt_hook

            code = answer_prompt_hook(project, db)  # through a daemon or server when one is up
        else:
            from memwarden.hooks.commands import run_hook

            code = run_hook(name, project=project, db=db)
    else:
        from memwarden.cli.main import main as run_command

        code = run_command()
    if gc.isenabled() or _other_threads():
        return code  # a long command, or a thread still running: the interpreter's own exit
    exit_without_teardown(code)


def _other_threads() -> bool:
    threading = sys.modules.get("threading")  # never imported: no thread was started
    return threading is not None and threading.active_count() > 1


def exit_without_teardown(code: int) -> NoReturn:
    """Run the atexit handlers, flush stdout and stderr, and end the process with ``code``."""
    atexit._run_exitfuncs()  # private: docs/architecture.md#private-internals-we-depend-on
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = code or BROKEN_PIPE
    except (OSError, ValueError):  # stdout closed or failing: nothing more can be said there
        pass
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)
