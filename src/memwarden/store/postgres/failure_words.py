"""A PostgreSQL error of the memory store as one line: what failed and what to do.

psycopg's errors are classes named after SQLSTATEs (``ReadOnlySqlTransaction``,
``InsufficientPrivilege``, ``SyntaxError``); a person cannot act on a class name, and the
server's own first line rarely says what to change on memwarden's side. The SQLSTATE (its
two-character class for the families) picks the fix; the server's first line stays as the detail.
The audit log's errors have their own words in ``store/postgres/audit.py``.
"""

from __future__ import annotations

from memwarden.store.postgres.connect import redact_url

# SQLSTATE or its class -> what happened, what to do ({url}: the database, without a password).
_BY_STATE = {
    "25006": ("the PostgreSQL database is read-only", "point MEMWARDEN_DB at the primary, not a standby"),
    "42501": (
        "this PostgreSQL user lacks rights on memwarden's tables",
        "grant them, or connect as the user that ran the migrations",
    ),
    "53100": ("the PostgreSQL server's disk is full", "free space on the server's disk"),
    "57014": (
        "PostgreSQL cancelled the statement (a timeout or an operator)",
        "retry, or raise statement_timeout",
    ),
    "40001": ("the write conflicted with another one", "retry"),
    "40P01": ("the write deadlocked with another one", "retry"),
}
_BY_CLASS = {
    "08": ("the connection to PostgreSQL at {url} failed", "check that the server is up and reachable"),
    "53": ("the PostgreSQL server ran out of resources", "check its memory, disk and connection limits"),
    "57": ("the PostgreSQL server is shutting down or restarting", "retry once it is back"),
    "42": (
        "memwarden's statement does not fit this database's schema",
        "run `memwarden migrate` (or check that MEMWARDEN_DB is a memwarden database)",
    ),
}
_OTHERWISE = (
    "PostgreSQL at {url} failed",
    "check the server's log; `memwarden doctor` checks the connection",
)


def postgres_failure(exc: Exception, url: str) -> str:
    """``exc`` (a psycopg error) as one line naming what failed and the fix, never its class."""
    detail = (str(exc).strip().splitlines() or ["no detail"])[0]
    state = getattr(exc, "sqlstate", None) or ""
    if state in _BY_STATE:
        happened, fix = _BY_STATE[state]
    else:
        import psycopg

        # A lost connection is an OperationalError without a SQLSTATE (no server answered).
        family = state[:2] if state else ("08" if isinstance(exc, psycopg.OperationalError) else "")
        happened, fix = _BY_CLASS.get(family, _OTHERWISE)
    where = redact_url(url)
    return f"{happened.format(url=where)} ({detail}); {fix.format(url=where)}"


__all__ = ["postgres_failure"]
