"""Redactor: find secrets and personal data in text and replace them with ``[REDACTED:<rule>]``.

Guarantees (tests/govern/test_redaction_properties.py checks them with hypothesis):
- every character of every matched value is replaced; overlapping matches of different rules are
  merged into one marker, so no rule leaves a piece of another's value visible;
- existing markers are never matched again, nor made part of a longer match, and redaction
  runs until a pass finds nothing that a further pass could change, so
  ``redact(redact(x)) == redact(x)``;
- it never raises on any string.

Modes (``MEMWARDEN_REDACTION``): ``enforce`` replaces, ``dry-run`` returns the text unchanged
but reports the rules that would have matched, ``off`` does nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from memwarden.govern.rules import BUILTIN_RULES, Rule

MODES = ("enforce", "dry-run", "off")
MARKER = re.compile(r"\[REDACTED:[a-z0-9_]{1,40}\]")
# Characters next to a replaced value that no rule's match can begin with (right side) or end
# with (left side). When every replaced value has only these (or whitespace) around it, the
# replacement cannot change what any rule sees, so the second pass is skipped; otherwise it runs.
_SAFE_AFTER = frozenset(',;!?"\'<>{}|)@')
_SAFE_BEFORE = frozenset(',;!?"\'<>{}|(=@')


def marker(rule: str) -> str:
    return f"[REDACTED:{rule}]"


def rules_in_markers(text: str) -> list[str]:
    """Rule names of the markers already in ``text``, in order of first appearance."""
    return list(dict.fromkeys(m.group()[10:-1] for m in MARKER.finditer(text)))


@dataclass(frozen=True, slots=True)
class Finding:
    start: int
    end: int
    rule: str


@dataclass(frozen=True, slots=True)
class Redaction:
    """The text to store, the rule names that matched (never the values) and how many matches."""

    text: str
    rules: tuple[str, ...] = ()
    count: int = 0
    applied: bool = False  # False in dry-run and off: ``text`` is the input unchanged

    @property
    def redacted(self) -> bool:
        return self.applied and self.count > 0


def _overlaps(start: int, end: int, markers: list[tuple[int, int]]) -> bool:
    return any(m_start < end and start < m_end for m_start, m_end in markers)


class Redactor:
    """Applies an ordered set of rules in one of the three modes."""

    def __init__(self, rules: Iterable[Rule] = BUILTIN_RULES, *, mode: str = "enforce") -> None:
        if mode not in MODES:
            raise ValueError(f"redaction mode must be one of {', '.join(MODES)}, got {mode!r}")
        self.rules = tuple(rules)
        self.mode = mode
        self._priority = {rule.name: i for i, rule in enumerate(self.rules)}
        self._grouped = frozenset(rule.name for rule in self.rules if rule.secret_groups)

    def find(self, text: str) -> list[Finding]:
        """Non-overlapping findings, left to right; overlapping matches are merged into one."""
        lower = text.lower()
        markers = [m.span() for m in MARKER.finditer(text)] if "[redacted:" in lower else []
        if markers:  # rule names inside markers ("secret", "key") must not wake rules up
            lower = MARKER.sub(" ", text).lower()
        found: list[tuple[int, int, int, str]] = []
        for priority, rule in enumerate(self.rules):
            if rule.hints and not any(h in lower for h in rule.hints):
                continue
            for start, end in rule.spans(text):
                # A marker is never matched again, nor part of a longer match: that keeps a second
                # run from finding anything new (idempotence). Text typed to look like a marker
                # can therefore shield what is glued to it (docs/governance.md, limits).
                if not (markers and _overlaps(start, end, markers)):
                    found.append((start, start - end, priority, rule.name))
        if not found:
            return []
        found.sort()
        merged: list[Finding] = []
        best: tuple[int, int] = (0, 0)  # (-length, priority) of the cluster's naming match
        for start, neg_len, priority, name in found:
            end = start - neg_len
            if merged and start < merged[-1].end:
                last = merged[-1]
                # The cluster is named after its longest match; ties go to the earlier rule.
                name_rank = (neg_len, priority)
                new_name = name if name_rank < best else last.rule
                best = min(best, name_rank)
                merged[-1] = Finding(last.start, max(last.end, end), new_name)
            else:
                merged.append(Finding(start, end, name))
                best = (neg_len, priority)
        return merged

    def _replace(self, text: str, findings: list[Finding]) -> str:
        parts: list[str] = []
        cursor = 0
        for f in findings:
            parts.append(text[cursor:f.start])
            parts.append(marker(f.rule))
            cursor = f.end
        parts.append(text[cursor:])
        return "".join(parts)

    def _may_change_neighbours(self, text: str, findings: list[Finding]) -> bool:
        end = len(text)
        for f in findings:
            before = text[f.start - 1] if f.start > 0 else " "
            after = text[f.end] if f.end < end else " "
            # A secret group's left neighbour is its own rule's syntax ("user:", "password="), which
            # no other rule's match can end with.
            left_safe = before.isspace() or before in _SAFE_BEFORE or f.rule in self._grouped
            if not left_safe or not (after.isspace() or after in _SAFE_AFTER):
                return True
        return False

    def scrub(self, text: str) -> Redaction:
        """Redact regardless of mode, to a fixed point (each pass shrinks the unredacted text)."""
        rules: list[str] = []
        count = 0
        while True:
            findings = self.find(text)
            if not findings:
                break
            count += len(findings)
            rules.extend(f.rule for f in findings)
            again = self._may_change_neighbours(text, findings)
            text = self._replace(text, findings)
            if not again:
                break
        return Redaction(text, tuple(dict.fromkeys(rules)), count, applied=True)

    def redact(self, text: str) -> Redaction:
        """What to store for ``text`` under this redactor's mode."""
        if self.mode == "off":
            return Redaction(text)
        if self.mode == "dry-run":
            findings = self.find(text)
            return Redaction(text, tuple(dict.fromkeys(f.rule for f in findings)), len(findings))
        return self.scrub(text)

    def scrub_text(self, text: str) -> str:
        """Just the redacted text (for the audit log's plain queries, export and import)."""
        return self.scrub(text).text if self.mode != "off" else text
