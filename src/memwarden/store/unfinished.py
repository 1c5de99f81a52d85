"""The row that says a long operation on a store has not finished (``index_state``).

``ops/markers.py`` writes and reads these for the operations it runs (migrate, import, vault
sync, the embedding re-index); a store writes one itself around work it does on its own (the
keyword re-index of ``ensure_index``). One format for both: the key ``incomplete:<operation>``
and a JSON value naming the operation, when and where it started (``host`` and ``pid``, so a
reader on that host can tell a running operation from one whose process is gone).
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from typing import Any

from memwarden.models import format_time

PREFIX = "incomplete:"
KEYWORD_REINDEX = PREFIX + "reindex-keywords"


def _host() -> str:
    import socket  # here: every store opens through this module, and a cold search needs no sockets

    return socket.gethostname()


def marker_value(operation: str, **detail: Any) -> str:
    """The JSON value of a marker row for ``operation`` started now by this process."""
    return json.dumps(
        {
            "operation": operation,
            "started_at": format_time(datetime.now(UTC)),
            "pid": os.getpid(),
            "host": _host(),
            **detail,
        },
        sort_keys=True,
    )


def still_running(detail: dict[str, Any]) -> bool:
    """True when the marker's process is alive on this host and did not note a failure (its
    operation is still at work)."""
    pid = detail.get("pid")
    if detail.get("failed") or detail.get("host") != _host():
        return False
    if not isinstance(pid, int) or pid <= 0:
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return _not_a_zombie(pid)


def _not_a_zombie(pid: int) -> bool:
    """A killed child not yet waited for is still in the process table: read its state."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except (OSError, IndexError):
        return True
