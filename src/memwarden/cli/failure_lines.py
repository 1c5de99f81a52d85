"""The one line a command prints for a failure that is not one of memwarden's own errors.

memwarden's errors carry their own message (``errors.py``). Everything else reaches
``cli.main.run_handler`` as a Python exception, and a person should not have to read one: an
operating-system error (a folder this user may not write, a full disk, a path that is a folder)
is said in words, naming the file and what to do; anything else is a bug in memwarden, said so,
with the way to see the traceback. No exception class name is printed.
"""

from __future__ import annotations

import errno

from memwarden.os_error_words import os_error_words


def os_error_line(exc: OSError) -> str:
    """``exc`` as one line: the file, what happened and what to do."""
    where = exc.filename if exc.filename is not None else None
    what, fix = os_error_words(exc)
    subject = f"{where}: " if where is not None else ""
    if exc.errno in (errno.EACCES, errno.EPERM) and where is not None:
        fix = (
            f"give this user write access to {where}, or point MEMWARDEN_DB (or HOME / XDG_DATA_HOME "
            "for the default folder) at a place you can write"
        )
    return f"memwarden: {subject}{what}; {fix}"


def unexpected_line(exc: BaseException) -> str:
    """An error memwarden did not foresee: a bug, said as one line without its class name."""
    detail = " ".join(str(exc).split()) or "no message"
    return (
        f"memwarden: unexpected error ({detail}); this is a bug in memwarden: "
        "run again with --debug and report the traceback"
    )
