"""The Obsidian vault mirror: every memory as a readable, linked Markdown note.

``naming`` (file names, tags), ``frontmatter`` (YAML), ``note`` (the Markdown), ``folder`` (the
notes memwarden owns in one folder), ``mirror`` (the background writer the service calls).
"""

from __future__ import annotations

from memwarden.vault.folder import VaultFolder, VaultUnavailable
from memwarden.vault.mirror import VaultMirror

__all__ = ["VaultFolder", "VaultMirror", "VaultUnavailable"]
