"""Governance: redaction before anything is written, rule packs, modes, and caller identity.

``build_redactor(mode, pack_path)`` gives the service its ``Redactor``; ``Redactor.redact``
returns what to store plus the rule names that matched (never the values). ``load_tokens_file``
reads ``MEMWARDEN_TOKENS_FILE`` for the HTTP server.
"""

from __future__ import annotations

from memwarden.govern.packs import PackError, build_redactor, load_rules
from memwarden.govern.redactor import MARKER, Redaction, Redactor, rules_in_markers
from memwarden.govern.rules import BUILTIN_RULES, Rule

__all__ = [
    "BUILTIN_RULES", "MARKER", "PackError", "Redaction", "Redactor", "Rule", "build_redactor", "load_rules",
    "rules_in_markers",
]
