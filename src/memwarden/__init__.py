"""memwarden: a local-first, governed memory server for AI agents.

The package root stays import-light (``memwarden --version`` and the prompt hook start in
milliseconds); the public names below are loaded on first use.
"""

from __future__ import annotations

from memwarden.version import __version__

TYPE_CHECKING = False  # not typing's: importing typing costs the prompt hook ~15 ms (mypy reads it as True)

__all__ = ["MemoryService", "Settings", "__version__", "build_service"]

if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from memwarden.app import build_service
    from memwarden.config import Settings
    from memwarden.service import MemoryService


def __getattr__(name: str) -> Any:
    if name == "MemoryService":
        from memwarden.service import MemoryService

        return MemoryService
    if name == "Settings":
        from memwarden.config import Settings

        return Settings
    if name == "build_service":
        from memwarden.app import build_service

        return build_service
    raise AttributeError(f"module 'memwarden' has no attribute {name!r}")
