"""Text analysis shared by indexing and queries (see ``analyzer.py``).

``Analyzer`` is loaded on first use, so light modules of this package (``tokens``) can be
imported by the prompt hook's server path without the stemmers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.text.analyzer import Analyzer

__all__ = ["Analyzer"]


def __getattr__(name: str) -> Any:
    if name == "Analyzer":
        from memwarden.text.analyzer import Analyzer

        return Analyzer
    raise AttributeError(f"module 'memwarden.text' has no attribute {name!r}")
