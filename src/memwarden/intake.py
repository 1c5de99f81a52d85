"""Intake: the one path by which caller text enters memwarden.

Every write (add, update, import, the hook paths) passes its fields through here: validation,
normalisation and redaction first, so that the keyword index, vectors, vault notes, exports,
audit rows and logs only ever see the redacted text; then injection screening and the analyzed
text the keyword index stores.

Searches use it too (project names, the index text of a candidate), so the write side's modules
(redaction rules, normalisation, screening) are imported by the methods that
use them: `memwarden search` and the prompt hook never load them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from memwarden import validation as v
from memwarden.digests import sha256
from memwarden.errors import InvalidInput
from memwarden.identifiers import check_identifier
from memwarden.models import IndexText, Memory
from memwarden.text.analyzer import Analyzer

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.clean_identifiers import CleanIdentifiers
    from memwarden.govern.redactor import Redaction, Redactor

DEFAULT_PROJECT = "default"
DEFAULT_MAX_CONTENT_BYTES = 16 * 1024


def content_hash(content: str) -> str:
    """The dedup key of a memory's (already redacted) content."""
    return sha256(content.encode("utf-8")).hexdigest()


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


class Cleaned:
    """A free-text field as it is stored: the (redacted) text, the rules that fired and how
    many matches they replaced (the count an operation's audit row records).

    A plain class, not a named tuple: every cold search and hook defines it, and a named
    tuple's class costs several times as much to create (docs/performance.md#cold-start)."""

    __slots__ = ("matches", "rules", "text")

    def __init__(self, text: str, rules: tuple[str, ...] = (), matches: int = 0) -> None:
        self.text = text
        self.rules = rules
        self.matches = matches


class Intake:
    """Validates, redacts, screens and analyzes the fields a caller writes.

    ``redactor`` is the redactor to use; without one, ``redactor_factory`` builds it on first use
    (per-prompt paths that never write skip compiling the rules; the default factory gives the
    built-in rules in enforce mode). ``clean_identifiers``: names the same rules already found
    clean in an earlier process (``memwarden.clean_identifiers``; the hooks set it), which are
    then neither checked nor redacted again.
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
        self.clean_identifiers: CleanIdentifiers | None = None

    @property
    def redactor(self) -> Redactor:
        """The redactor, built on first use."""
        if self._redactor is None:
            self._redactor = self._redactor_factory()
        return self._redactor

    def redact(self, text: str) -> Redaction:
        """Redact ``text`` (the outcome counts its matches).

        A pack rule that runs past its time limit refuses the write (nothing is stored).
        """
        from memwarden.govern.rules import RuleTimeout

        try:
            return self.redactor.redact(text)
        except RuleTimeout as exc:
            raise InvalidInput(str(exc), field="content", rule=exc.rule) from None

    def dry_run_rules(self, *texts: str) -> tuple[str, ...]:
        """Rules in dry-run mode that would have matched these texts (reported, never applied)."""
        redactor = self.redactor
        if redactor.mode != "enforce" or not any(rule.mode == "dry-run" for rule in redactor.rules):
            return ()
        found = [f.rule for text in texts if text for f in redactor.find(text, dry_run=True)]
        return tuple(dict.fromkeys(found))

    def redact_text(self, text: str) -> str:
        """``text`` with every match replaced, whatever the mode (``off`` leaves it as is)."""
        if self.clean_identifiers is not None and self.clean_identifiers.holds(text):
            return text  # no rule of this rule set matches it (audit rows redact project names)
        return self.redactor.scrub_text(text)

    # -- the two kinds of field ------------------------------------------------------------------
    #
    # Every text field a caller writes is one of two kinds, and each kind has one method:
    # free text (content, title, and any later text field such as a memory's context) is
    # redacted, identifiers (project, tags, kind, and any later one such as a thread) are
    # refused when a rule matches. A new field needs only its validation and one of the two.

    def clean_text(self, text: str) -> Cleaned:
        """Free text, already validated: its stored (redacted) form, the rules that fired and
        the matches they replaced."""
        outcome = self.redact(text)
        if not outcome.applied:
            return Cleaned(outcome.text)
        return Cleaned(outcome.text, outcome.rules, outcome.matches)

    def clean_identifier(self, field: str, value: str) -> str:
        """An identifier, already shape-checked: refused when it is blank once invisible
        characters are removed, when a redaction rule matches it (an identifier is never
        rewritten: a rewritten project or tag would merge with others or stop matching its
        filters), or when it holds a character the identifier policy refuses
        (``identifiers.check_identifier``: control characters, line breaks, markup).

        The policy is checked last so that a secret hidden behind an invisible character is
        named by its rule. The error names the field and the rule or character, never the value.
        Off and dry-run modes skip the rule check only (dry-run reports the rule on the write, as
        for any field).
        """
        memo = self.clean_identifiers
        if memo is not None and memo.holds(value):
            return check_identifier(field, value)  # visible and clean under these rules: checked before
        from memwarden.govern.normalization import normalize_text

        what = {"tags": "a tag", "project": "the project"}.get(field, f"the {field}")
        if not normalize_text(value).strip():
            raise InvalidInput(f"{what} is empty once invisible characters are removed", field=field)
        checked = self.redactor.mode == "enforce"
        findings = self.redactor.find(value) if checked else ()
        if findings:
            rule = findings[0].rule
            raise InvalidInput(
                f"{what} holds a value redaction rule {rule!r} protects; projects, tags and threads are identifiers, "
                "so they are refused, not rewritten: choose one without it (nothing was stored)",
                field=field,
                rule=rule,
            )
        checked_value = check_identifier(field, value)
        if memo is not None and checked:
            memo.remember(value)
        return checked_value

    # -- the fields of a memory ----------------------------------------------------------------

    def clean_content(self, content: object) -> Cleaned:
        """The stored form of content and the redaction rules that fired."""
        return self.clean_text(
            v.normalize_content(
                v.check_visible("content", v.check_text("content", content, max_bytes=self.max_content_bytes))
            )
        )

    def clean_title(self, title: object) -> Cleaned:
        """The stored form of a title and the rules applied to it."""
        return self.clean_text(v.check_title(title or ""))

    def clean_tags(self, tags: object) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The checked tags (duplicates dropped); a tag a redaction rule matches, or that is blank
        once invisible characters are removed, is refused. The second item is kept for callers
        that merge rule names: no tag is ever rewritten, so it is always empty."""
        checked = v.check_tags(tags, characters=False)
        return tuple(self.clean_identifier("tags", tag) for tag in checked), ()

    def clean_context(self, context: object | None) -> Cleaned:
        """The stored form of a context ("" when none; the content's byte limit) and the rules
        applied to it: redacted exactly like content."""
        text = v.check_context(context, max_bytes=self.max_content_bytes)
        return self.clean_text(text) if text else Cleaned("")

    def clean_thread(self, thread: object | None) -> str:
        """A checked thread id ("" when none); refused like a project when a rule matches it."""
        checked = v.check_thread(thread, characters=False)
        return self.clean_identifier("thread", checked) if checked else ""

    def clean_project(self, project: object | None) -> str | None:
        """A checked project name, or None when the caller gave none; refused like a tag."""
        if project is None:
            return None
        return self.clean_identifier("project", v.check_project(project, characters=False))

    def clean_kind(self, kind: object) -> str:
        """One of the fixed kinds (nothing a caller invents reaches storage)."""
        return v.check_kind(kind)

    def known_rules(self, names: tuple[str, ...]) -> tuple[str, ...]:
        """Of rule names a caller supplied (an import's ``redactions``), those this redactor has."""
        known = {rule.name for rule in self.redactor.rules}
        return tuple(name for name in dict.fromkeys(names) if name in known)

    def would_redact(self, *fields: object) -> tuple[str, ...]:
        """Dry-run: the rules that would have matched these fields."""
        texts = [f for f in fields if isinstance(f, str)]
        texts += [t for f in fields if isinstance(f, (list, tuple)) for t in f if isinstance(t, str)]
        found = [finding.rule for text in texts for finding in self.redactor.find(text)]
        return tuple(dict.fromkeys(found))

    @staticmethod
    def rules_held(*texts: str) -> tuple[str, ...]:
        """Rule names of the redaction markers these stored texts hold, in order of appearance."""
        from memwarden.govern.markers import rules_in_markers

        return tuple(rules_in_markers("\n".join(texts)))

    @staticmethod
    def screened(memory: Memory) -> Memory:
        """The memory with its injection flags: does any text a model will read (title, content,
        context, thread, tags) read like instructions to it?"""
        from memwarden.screening import screen_text

        return memory._replace(
            injection_flags=screen_text(
                memory.title, memory.content, memory.context, memory.thread, *memory.tags
            )
        )

    def warm(self) -> None:
        """Build now what a process's first write would otherwise wait for: the redaction rules,
        screening's phrase patterns and its model (compiling the patterns is most of a first
        write's time). A server calls it in a thread at start; nothing is written."""
        from memwarden.screening import screen_text

        for rule in self.redactor.rules:
            getattr(rule, "regex", None)  # each rule's pattern is compiled on its first use
        sample = "Warm-up: ask ana@example.org or +1 415 555 0100 before Friday's deploy to 10.0.0.5."
        screen_text(self.redact(sample).text)

    def index_text(self, memory: Memory) -> IndexText:
        """The analyzed text the keyword index stores for ``memory`` (text/memory_index.py: the
        content with the dates its relative time words name, and the context apart); redaction
        markers become one neutral word (``govern.markers.INDEXED_MARKER``), never the rule's name.

        Imported here: a search on SQLite reads the stored index text and never calls this, so
        ``memwarden search`` and the prompt hook leave the date resolver and markers unloaded."""
        from memwarden.govern.markers import unmarked
        from memwarden.text.memory_index import memory_index

        plain = memory._replace(
            title=unmarked(memory.title),
            content=unmarked(memory.content),
            context=unmarked(memory.context),
        )
        return memory_index(self.analyzer, plain)
