"""SQLite failures as one clear line: which file, what condition, what to do.

A full disk, a read-only file or folder, a damaged page or a lock held too long reach the
store as ``sqlite3`` exceptions whose text ("unable to open database file") names neither the
file nor the cause. ``with_clear_faults`` wraps every public method of a store class so such an
exception leaves it as ``SQLiteFault``: a ``StorageError`` (adapters show its message: the MCP
tool error, the CLI's one line, the HTTP JSON body) whose message says it in words, for example

    commit failed: the disk is full (database or disk is full) at /data/memwarden.db; free space
    there (acknowledged writes are kept)

``SQLiteFault`` is also a ``sqlite3.DatabaseError``, so code that reacts to a damaged database
(the keyword index self-repair) still recognises it after translation.
"""

from __future__ import annotations

import functools
import os
import sqlite3
from collections.abc import Callable
from types import FunctionType
from typing import Any, TypeVar

from memwarden.errors import StorageError

__all__ = ["SQLiteFault", "describe_fault", "fault_condition", "with_clear_faults"]

C = TypeVar("C", bound=type)
# The code flag of a generator function (inspect.CO_GENERATOR).
CO_GENERATOR = 0x20

_FULL = ("SQLITE_FULL",)
_READONLY = ("SQLITE_READONLY",)
_CANTOPEN = ("SQLITE_CANTOPEN",)
_CORRUPT = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
_BUSY = ("SQLITE_BUSY", "SQLITE_LOCKED")


class SQLiteFault(StorageError, sqlite3.DatabaseError):
    """A SQLite failure, described (see the module docstring)."""


def fault_condition(exc: sqlite3.Error) -> str:
    """``full``, ``readonly``, ``cantopen``, ``corrupt``, ``busy`` or ``other``."""
    name = str(getattr(exc, "sqlite_errorname", "") or "")
    text = str(exc).lower()
    if name.startswith(_FULL) or "database or disk is full" in text or "no space left" in text:
        return "full"
    if name.startswith(_READONLY) or "readonly database" in text or "read-only" in text:
        return "readonly"
    if name.startswith(_CANTOPEN) or "unable to open database file" in text:
        return "cantopen"
    if name.startswith(_CORRUPT) or "malformed" in text or "not a database" in text:
        return "corrupt"
    if name.startswith(_BUSY) or "database is locked" in text:
        return "busy"
    return "other"


def _folder_is_read_only(folder: str) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY) or not os.access(folder, os.W_OK)
    except OSError:
        return False


def describe_fault(path: str | os.PathLike[str], exc: sqlite3.Error) -> str:
    """One line naming ``path``, the condition behind ``exc`` and what to do about it."""
    path = os.fspath(path)
    name = os.path.basename(path)
    code, detail = fault_condition(exc), str(exc)
    folder = os.path.dirname(path) or "."
    if code == "full":
        return f"the disk is full ({detail}) at {path}; free space there (acknowledged writes are kept)"
    if code == "readonly" or (code == "cantopen" and os.path.exists(path) and _folder_is_read_only(folder)):
        if _folder_is_read_only(folder):
            return (
                f"the folder {folder} is read-only ({detail}): SQLite must create {name}-wal and "
                f"{name}-shm beside the database; make the folder writable or set MEMWARDEN_DB to a "
                "writable place"
            )
        return f"{path} is read-only ({detail}): make the file writable by this user, or set MEMWARDEN_DB"
    if code == "cantopen":
        if not os.path.exists(folder):
            return f"cannot open {path} ({detail}): the folder {folder} does not exist"
        return f"cannot open {path} ({detail}): check that the file and its folder exist and are accessible"
    if code == "corrupt":
        return (
            f"{path} is damaged ({detail}): run `memwarden health` (it rebuilds a damaged keyword index) "
            "or restore a backup (`memwarden restore`)"
        )
    if code == "busy":
        return f"{path} stayed locked by another process past the busy timeout ({detail}); try again"
    return f"the database {path} failed: {detail}"


def _wrap(method: Callable[..., Any], path_of: Callable[[Any], str]) -> Callable[..., Any]:
    @functools.wraps(method)
    def translated(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except SQLiteFault:
            raise
        except sqlite3.Error as exc:
            raise SQLiteFault(describe_fault(path_of(self), exc), condition=fault_condition(exc)) from exc

    return translated


def with_clear_faults(path_attribute: str = "path") -> Callable[[C], C]:
    """Class decorator: every public method turns a ``sqlite3.Error`` into a ``SQLiteFault``.

    Context managers (``write``) are left alone: the methods running inside them translate."""

    def decorate(cls: C) -> C:
        def path_of(self: Any) -> str:
            return str(os.fspath(getattr(self, path_attribute)))

        for name in dir(cls):
            # The member as defined (what inspect.getattr_static finds: no descriptor is run).
            # inspect itself is not imported: it is a measurable share of a cold search.
            member = next(vars(klass)[name] for klass in cls.__mro__ if name in vars(klass))
            if (
                name.startswith("_")
                or not isinstance(member, FunctionType)
                or getattr(member, "_clear_faults", False)
            ):
                continue
            inner = getattr(member, "__wrapped__", member)
            if inner.__code__.co_flags & CO_GENERATOR:  # a @contextmanager such as write()
                continue
            wrapped = _wrap(member, path_of)
            wrapped._clear_faults = True  # type: ignore[attr-defined]
            setattr(cls, name, wrapped)
        return cls

    return decorate
