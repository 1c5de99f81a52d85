"""Governance: redaction before anything is written, rule packs, modes, and caller identity.

``build_redactor(mode, pack_path)`` gives the service its ``Redactor``; ``Redactor.redact``
returns what to store plus the rule names that matched (never the values). ``load_tokens_file``
reads ``MEMWARDEN_TOKENS_FILE`` for the HTTP server.
"""

from __future__ import annotations

from memwarden.govern.builtin_rules import BUILTIN_RULES, OPTIONAL_RULES
from memwarden.govern.normalize import Normalized, normalize, normalize_text
from memwarden.govern.packs import PackError, build_redactor, load_rules
from memwarden.govern.redactor import MARKER, Redaction, Redactor, rules_in_markers
from memwarden.govern.rules import Rule, RuleTimeout

__all__ = [
    "BUILTIN_RULES", "MARKER", "OPTIONAL_RULES", "Normalized", "PackError", "Redaction", "Redactor", "Rule",
    "RuleTimeout", "build_redactor", "load_rules", "normalize", "normalize_text", "rules_in_markers",
]
