"""Intake: the one path by which caller text enters memwarden.

Every write (add, update, import, the hook paths) passes its fields through here: validation,
normalisation and redaction first, so that the keyword index, vectors, vault notes, exports,
audit rows and logs only ever see the redacted text; then injection screening and the analyzed
text the keyword index stores.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from memwarden import validation as v
from memwarden.audit.operations import note_redactions
from memwarden.models import IndexText, Memory
from memwarden.screening import screen_text
from memwarden.text.analyzer import Analyzer

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.govern.redactor import Redaction, Redactor

DEFAULT_PROJECT = "default"
DEFAULT_MAX_CONTENT_BYTES = 16 * 1024


def content_hash(content: str) -> str:
    """The dedup key of a memory's (already redacted) content."""
    return hashlib.sha256(content.encode("utf-8")).hexdigest()


def new_id() -> str:
    """A fresh memory id (ULID: sortable by creation time)."""
    from ulid import ULID  # kept off the import path of the per-prompt read commands

    return str(ULID())


def builtin_redactor() -> Redactor:
    """The built-in rules in enforce mode.

    Imported on first use: compiling the rules costs more than a per-prompt read command may
    spend, and those commands never write.
    """
    from memwarden.govern.redactor import Redactor

    return Redactor()


class Intake:
    """Validates, redacts, screens and analyzes the fields a caller writes.

    ``redactor`` is the redactor to use; without one, ``redactor_factory`` builds it on first use
    (per-prompt paths that never write skip compiling the rules; the default factory gives the
    built-in rules in enforce mode).
    """

    def __init__(
        self,
        analyzer: Analyzer,
        *,
        redactor: Redactor | None = None,
        redactor_factory: Callable[[], Redactor] = builtin_redactor,
        max_content_bytes: int = DEFAULT_MAX_CONTENT_BYTES,
    ) -> None:
        self.analyzer = analyzer
        self.max_content_bytes = max_content_bytes
        self._redactor = redactor
        self._redactor_factory = redactor_factory

    @property
    def redactor(self) -> Redactor:
        """The redactor, built on first use."""
        if self._redactor is None:
            self._redactor = self._redactor_factory()
        return self._redactor

    def redact(self, text: str) -> Redaction:
        """Redact ``text`` and count the matches toward the operation being audited."""
        outcome = self.redactor.redact(text)
        note_redactions(outcome.count if outcome.applied else 0)
        return outcome

    def redact_text(self, text: str) -> str:
        """``text`` with every match replaced, whatever the mode (``off`` leaves it as is)."""
        return self.redactor.scrub_text(text)

    def clean_content(self, content: object) -> tuple[str, tuple[str, ...]]:
        """The stored form of content and the redaction rules that fired."""
        text = v.normalize_content(v.check_text("content", content, max_bytes=self.max_content_bytes))
        outcome = self.redact(text)
        return outcome.text, outcome.rules if outcome.applied else ()

    def clean_title(self, title: object) -> tuple[str, tuple[str, ...]]:
        """The stored form of a title and the rules applied to it."""
        outcome = self.redact(v.check_title(title or ""))
        return outcome.text, outcome.rules if outcome.applied else ()

    def clean_tags(self, tags: object) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The stored tags (each redacted, duplicates dropped) and the rules applied to them."""
        cleaned: list[str] = []
        rules: list[str] = []
        for tag in v.check_tags(tags):
            outcome = self.redact(tag)
            cleaned.append(outcome.text)
            rules.extend(outcome.rules if outcome.applied else ())
        return tuple(dict.fromkeys(cleaned)), tuple(dict.fromkeys(rules))

    def clean_project(self, project: object | None) -> str | None:
        """A checked project name, or None when the caller gave none."""
        return None if project is None else v.check_project(project)

    def would_redact(self, *fields: object) -> tuple[str, ...]:
        """Dry-run: the rules that would have matched these fields."""
        texts = [f for f in fields if isinstance(f, str)]
        texts += [t for f in fields if isinstance(f, (list, tuple)) for t in f if isinstance(t, str)]
        found = [finding.rule for text in texts for finding in self.redactor.find(text)]
        return tuple(dict.fromkeys(found))

    @staticmethod
    def rules_held(*texts: str) -> tuple[str, ...]:
        """Rule names of the redaction markers these stored texts hold, in order of appearance."""
        from memwarden.govern.redactor import rules_in_markers  # the rules compile on import: writes only

        return tuple(rules_in_markers("\n".join(texts)))

    @staticmethod
    def screened(memory: Memory) -> Memory:
        """The memory with its injection flags: does its text read like instructions to a model?"""
        return replace(memory, injection_flags=screen_text(memory.title, memory.content))

    def index_text(self, memory: Memory) -> IndexText:
        """The analyzed text the keyword index stores for ``memory``."""
        return IndexText(
            title=self.analyzer.index_text(memory.title),
            tags=self.analyzer.index_text(" ".join(memory.tags)),
            body=self.analyzer.index_text(memory.content),
        )
