"""An operating-system error about a file, said in words with what to do.

``[Errno 2] No such file or directory: 'x'`` names the file but says nothing a person can act
on, and its class and errno are noise to them. Every layer that reads or writes a file the user
chose (an import file, labelled queries, a backup folder, the CLI's last-resort line in
``cli/failure_lines.py``) turns the error into one clause here, so the same mistake reads the
same whichever command, tool or route made it.
"""

from __future__ import annotations

import errno
import os

# errno → (what happened, what to do), for the errors a person's environment causes.
OS_ADVICE = {
    errno.EACCES: ("permission denied", "give this user access to it, or choose another path"),
    errno.EPERM: ("operation not permitted", "give this user access to it, or choose another path"),
    errno.EROFS: ("the file system is read-only", "choose a path on a writable disk"),
    errno.ENOSPC: ("the disk is full", "free space on that disk"),
    errno.EDQUOT: ("the disk quota is used up", "free space or raise the quota"),
    errno.ENOENT: ("no such file or folder", "check the path"),
    errno.ENOTDIR: ("a part of the path is a file, not a folder", "check the path"),
    errno.EISDIR: ("it is a folder, not a file", "give the path of a file"),
    errno.EEXIST: ("a file of that name is in the way", "choose another path"),
    errno.ENAMETOOLONG: ("the path is too long", "choose a shorter path"),
    errno.EMFILE: ("too many open files", "raise the limit (ulimit -n) or close other programs"),
}
_DENIED = (errno.EACCES, errno.EPERM)
_MISSING = (errno.ENOENT, errno.ENOTDIR)


def os_error_words(exc: OSError) -> tuple[str, str]:
    """(what happened, what to do) for ``exc``; its own text and "check the path" otherwise."""
    return OS_ADVICE.get(exc.errno or -1, (exc.strerror or str(exc), "check the path and try again"))


def cannot_read(path: str | os.PathLike[str], exc: OSError, *, what: str, missing_fix: str) -> str:
    """One line for a file the user named that cannot be read: ``what`` is what the file is for
    ("import file"), ``missing_fix`` what to do when it is not there."""
    path = os.fspath(path)
    if exc.errno in _MISSING:
        return f"cannot read the {what} {path}: there is no such file; {missing_fix}"
    if exc.errno in _DENIED:
        return (
            f"cannot read the {what} {path}: permission denied; give this user read access "
            f"(chmod u+r {path}) or copy it to a place you can read"
        )
    happened, fix = os_error_words(exc)
    return f"cannot read the {what} {path}: {happened}; {fix}"


def nearest_existing(folder: str | os.PathLike[str]) -> str:
    """``folder`` or its nearest parent that exists: what decides whether the folder can be made
    (a file there makes creating it fail with "File exists" naming only that file; a folder this
    user may not write, with "Permission denied")."""
    current = os.path.abspath(os.fspath(folder))
    while not os.path.exists(current):
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return current


__all__ = ["OS_ADVICE", "cannot_read", "nearest_existing", "os_error_words"]
