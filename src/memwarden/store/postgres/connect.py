"""Connecting to PostgreSQL: the driver check, the pool, and URLs safe to print."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from memwarden.errors import ConfigError, StorageError

if TYPE_CHECKING:  # pragma: no cover
    import psycopg
    from psycopg_pool import ConnectionPool

CONNECT_TIMEOUT_S = 10
POOL_WAIT_S = 30
_PASSWORD = re.compile(r"(://[^:/@]*:)[^@]*@")


def redact_url(url: str) -> str:
    """The URL with any password replaced by ``***`` (for error messages and logs)."""
    url = _PASSWORD.sub(r"\1***@", url)
    return re.sub(r"(password=)[^&\s]*", r"\1***", url)


def require_driver() -> None:
    """Stop with a ConfigError naming the extra when psycopg or its pool is not installed."""
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError as exc:
        raise ConfigError(
            "MEMWARDEN_DB names a PostgreSQL database, but the PostgreSQL driver is not installed "
            f"({exc.name} is missing): install it with  pip install 'memwarden[postgres]'"
        ) from None


def _configure(conn: psycopg.Connection) -> None:
    # Timestamps come back as UTC datetimes whatever the server's default time zone is.
    conn.execute("SET TIME ZONE 'UTC'")


def check_connection(url: str) -> None:
    """Connect once, so a wrong URL or a stopped server fails with a clear message, not a pool timeout."""
    import psycopg

    try:
        with psycopg.connect(url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
        raise StorageError(f"cannot connect to PostgreSQL at {redact_url(url)}: {detail}") from None


def open_pool(url: str, *, pool_size: int, read_only: bool = False) -> ConnectionPool:
    """An open pool of autocommit connections (writes open their own transactions).

    ``read_only`` makes every transaction read-only on the server side (verifying a database).
    """
    require_driver()
    from psycopg_pool import ConnectionPool

    check_connection(url)
    kwargs: dict[str, Any] = {"autocommit": True, "connect_timeout": CONNECT_TIMEOUT_S}
    if read_only:
        kwargs["options"] = "-c default_transaction_read_only=on"
    pool: ConnectionPool = ConnectionPool(
        url,
        min_size=1,
        max_size=max(1, pool_size),
        kwargs=kwargs,
        configure=_configure,
        timeout=POOL_WAIT_S,
        name="memwarden",
        open=False,
    )
    pool.open(wait=True, timeout=POOL_WAIT_S)
    return pool
