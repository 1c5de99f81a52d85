"""Governance: redaction before anything is written, rule packs, modes, and caller identity.

``build_redactor(mode, pack_path)`` gives the service its ``Redactor``; ``Redactor.redact``
returns what to store plus the rule names that matched (never the values). ``normalize`` is
the normalisation every rule (and injection screening) runs on. ``load_tokens_file`` reads
``MEMWARDEN_TOKENS_FILE`` for the HTTP server.

Names are loaded on first use: compiling the rules costs more than a per-prompt read command
may spend, and ``memwarden.govern.normalization`` (which screening imports) needs none of them.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.govern.builtin_rules import BUILTIN_RULES, OPTIONAL_RULES
    from memwarden.govern.markers import MARKER, rules_in_markers
    from memwarden.govern.normalization import Normalized, normalize, normalize_text
    from memwarden.govern.packs import PackError, build_redactor, load_rules
    from memwarden.govern.redactor import Redaction, Redactor
    from memwarden.govern.rules import Rule, RuleTimeout

_WHERE = {
    "BUILTIN_RULES": "builtin_rules",
    "OPTIONAL_RULES": "builtin_rules",
    "Normalized": "normalization",
    "normalize": "normalization",
    "normalize_text": "normalization",
    "PackError": "packs",
    "build_redactor": "packs",
    "load_rules": "packs",
    "MARKER": "markers",
    "Redaction": "redactor",
    "Redactor": "redactor",
    "rules_in_markers": "markers",
    "Rule": "rules",
    "RuleTimeout": "rules",
}

__all__ = [
    "BUILTIN_RULES",
    "MARKER",
    "OPTIONAL_RULES",
    "Normalized",
    "PackError",
    "Redaction",
    "Redactor",
    "Rule",
    "RuleTimeout",
    "build_redactor",
    "load_rules",
    "normalize",
    "normalize_text",
    "rules_in_markers",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'memwarden.govern' has no attribute {name!r}")
    return getattr(import_module(f"memwarden.govern.{module}"), name)
