"""``hide_paths``: a report with every absolute path cut to its last component.

Health reports name the database, the backup folder and the vault folders. The local operator
needs them; a caller confined to its tenants (a token over HTTP, a remote connection, a web page)
gets only ``…/<last component>``: where things live on the server is not its business.
"""

from __future__ import annotations

import re
from typing import Any

# An absolute POSIX path (at least one component) or a Windows drive path, not inside a word.
_ABSOLUTE = re.compile(r"(?<![\w.~/-])(?:[A-Za-z]:[\\/]|/)(?:[^\s'\"/\\,;)]+[/\\])*([^\s'\"/\\,;)]+)")


def hide_paths(value: Any) -> Any:
    """``value`` with every absolute path in its strings cut to ``…/<last component>``."""
    if isinstance(value, str):
        return _ABSOLUTE.sub(lambda m: f"…/{m.group(1)}", value)
    if isinstance(value, dict):
        return {key: hide_paths(item) for key, item in value.items()}
    if isinstance(value, list):
        return [hide_paths(item) for item in value]
    return value


__all__ = ["hide_paths"]
