"""Redaction rules: what a secret or a piece of personal data looks like.

A rule is a regular expression, optionally a checksum validator (``checksums.VALIDATORS``) and
optionally *hints*: lower-case substrings of which one must occur in the text for the rule to
run at all (a cheap filter that keeps redaction within its budget, see bench/govern.py). When a pattern
has named groups starting with ``secret``, only those groups are replaced (the user name and
host of a URL stay readable; the password does not). When a validator rejects a match of a
``shrink`` rule, shorter pieces cut at spaces and dashes are tried, so a card number followed by
more digits is still found.
"""

from __future__ import annotations

import itertools
import re
import time
from collections.abc import Callable, Container
from functools import cached_property
from typing import Any

from memwarden.govern.checksums import DIGIT_VALIDATORS, VALIDATORS, digits_of
from memwarden.govern.scopes import SCOPES, Window

RULE_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
RULE_MODES = ("enforce", "dry-run")
# Named groups of a pattern in Python's syntax whose name starts with ``secret`` (built-in rules).
_SECRET_GROUP = re.compile(r"\(\?P<(secret\w*)>")
_FIELDS = (
    "name",
    "pattern",
    "description",
    "validator",
    "hints",
    "ignore_case",
    "shrink",
    "mode",
    "timeout",
    "trim",
    "scope",
    "min_digits",
    "folded",
    "standalone",
    "lead",
    "anchors",
)


class CodePoints(Container[str]):
    """``char in points``: whether one character's code point lies in one of the inclusive ranges
    (a set of the tens of thousands of characters of the scripts written without spaces was slow
    to build at every cold start: docs/performance.md#cold-start). Anything but a single
    character is not in it."""

    __slots__ = ("_lowest", "_ranges")

    def __init__(self, *ranges: tuple[int, int]) -> None:
        self._ranges = ranges
        self._lowest = min((lo for lo, _ in ranges), default=0x110000)

    def __contains__(self, char: object) -> bool:
        if not isinstance(char, str) or len(char) != 1:
            return False
        point = ord(char)
        # Most characters tested are ASCII punctuation and letters next to a value: below every range.
        return point >= self._lowest and any(lo <= point <= hi for lo, hi in self._ranges)

    def __repr__(self) -> str:
        return f"CodePoints({', '.join(f'{lo:#06x}-{hi:#06x}' for lo, hi in self._ranges)})"


class RuleTimeout(Exception):
    """A pack rule's search ran past its time limit (a pattern that backtracks catastrophically)."""

    def __init__(self, rule: str, seconds: float) -> None:
        super().__init__(
            f"redaction rule {rule!r} took longer than {seconds:g} s on this text "
            "(its pattern backtracks catastrophically); fix it in MEMWARDEN_REDACTION_RULES"
        )
        self.rule = rule


class Rule:
    """One redaction rule; treat it as immutable (``replace`` makes a changed copy).

    A plain class, not a dataclass: the prompt hook builds the redactor on every run, and the
    dataclasses module alone is a visible share of a cold process (docs/performance.md#cold-start).
    """

    def __init__(
        self,
        name: str,
        pattern: str,
        description: str = "",
        *,
        validator: str | None = None,
        hints: tuple[str, ...] = (),
        ignore_case: bool = False,
        shrink: bool = False,
        mode: str = "enforce",
        timeout: float | None = None,
        trim: Container[str] = frozenset(),
        scope: str = "text",
        min_digits: int = 0,
        folded: bool = False,
        standalone: bool = False,
        lead: int | None = None,
        anchors: str = "",
    ) -> None:
        self.name = name
        self.pattern = pattern
        self.description = description
        self.validator = validator
        self.hints = hints
        self.ignore_case = ignore_case
        self.shrink = shrink
        self.mode = mode  # "dry-run": findings are reported, never replaced
        self.timeout = timeout  # pack rules: seconds one search may take (the ``regex`` engine)
        # Characters dropped from the start of each match (built-in rules only): lets a pattern
        # keep a fast plain-class prefix and still end at a script written without spaces.
        self.trim = trim
        # Built-in rules only (``govern.scopes``): the windows of the text that can hold a match,
        # how many digits a number window needs, and whether the pattern is written in lower case
        # to be searched case-sensitively in the case-folded text (what ``ignore_case`` would
        # find, faster).
        self.scope = scope
        self.min_digits = min_digits
        self.folded = folded
        # Built-in token formats (``govern.secret_tokens``): a value of 10+ characters standing
        # alone, so its hints are looked for only in the text's token-like runs (the redactor
        # scans those once per text; a text of words needs no check of the table's prefixes).
        self.standalone = standalone
        # Built-in rules of the whole text whose every match starts with a word holding one of
        # the hints, at most ``lead`` characters before the hint starts (one character after it
        # at most), or where ``anchors`` (a pattern) matches: only the stretches near those places
        # are searched from (``Rule.near``); the searches in between found nothing but cost most.
        self.lead = lead
        self.anchors = anchors
        self._check()

    # Whether ``spans`` can use ``covered``: the values earlier rules found in the same pass. A
    # value lying wholly inside one of them changes no finding (``Redactor._merge`` names a cluster
    # after its longest match, ties to the earlier rule), so a rule that judges each candidate at
    # some cost (``PhoneRule``) leaves such candidates unjudged.
    skips_covered = False

    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _FIELDS)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rule) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Rule(name={self.name!r}, pattern={self.pattern!r}, mode={self.mode!r})"

    def replace(self, **changes: Any) -> Rule:
        """A copy with ``changes`` (checked like a new rule)."""
        fields = {name: getattr(self, name) for name in _FIELDS} | changes
        return Rule(**fields)

    def _check(self) -> None:
        if self.mode not in RULE_MODES:
            raise ValueError(f"mode must be one of {', '.join(RULE_MODES)}")
        if self.scope not in SCOPES:
            raise ValueError(f"scope must be one of {', '.join(SCOPES)}")
        if self.folded and (self.validator or self.timeout is not None):
            raise ValueError("a folded rule is a built-in rule without a validator")
        if self.timeout is None:
            # Built-in rules compile on first use: a cold CLI search redacts its query for the
            # audit row, and most rules never see a window of it (``govern.scopes``).
            groups = tuple(dict.fromkeys(_SECRET_GROUP.findall(self.pattern)))
        else:
            # A pack's pattern is compiled (and so checked) when the pack loads.
            groups = tuple(g for g in self.regex.groupindex if g.startswith("secret"))
        self.secret_groups: tuple[str, ...] = groups

    @cached_property
    def regex(self) -> Any:
        """The compiled pattern: ``re`` for built-in rules, the ``regex`` engine for pack rules."""
        if self.timeout is None:
            ignore_case = self.ignore_case and not self.folded
            return re.compile(self.pattern, re.DOTALL | (re.IGNORECASE if ignore_case else 0))
        # Patterns from packs are not reviewed here: the regex engine can stop a search that
        # backtracks catastrophically (RuleTimeout) instead of hanging the write. Imported here,
        # for pack rules only: it costs more to import than a cold search takes.
        import regex

        return regex.compile(
            self.pattern, regex.V0 | regex.DOTALL | (regex.IGNORECASE if self.ignore_case else 0)
        )

    def _timed_search(self, deadline: float) -> Callable[[str, int, int], Any]:
        """A search bounded by ``deadline`` for all the searches of one text together."""
        timeout = self.timeout or 0.0

        def search(text: str, pos: int, endpos: int) -> Any:
            remaining = deadline - time.monotonic()
            try:
                if remaining <= 0:
                    raise TimeoutError
                return self.regex.search(text, pos, endpos, timeout=remaining)
            except TimeoutError:
                raise RuleTimeout(self.name, timeout) from None

        return search

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "pattern": self.pattern,
            "description": self.description,
            "validator": self.validator,
            "hints": list(self.hints),
            "ignore_case": self.ignore_case,
            "shrink": self.shrink,
            "mode": self.mode,
        }

    def _valid(self, text: str) -> bool:
        return self.validator is None or VALIDATORS[self.validator](text)

    def _shrunk(self, text: str, start: int, end: int) -> tuple[int, int] | None:
        """The longest piece of ``text[start:end]``, cut at separators, that validates."""
        value = text[start:end]
        # The parts between the cuts ("" between two cuts in a row) and the digits before each:
        # a piece holding fewer digits than every value holds cannot validate, so it is never
        # handed to the validator. (Counted per part, in C: a count per character cost more
        # than the validation.)
        parts = value.replace(".", " ").replace("-", " ").split(" ")
        last = len(parts) - 1  # the cuts are 1 … last, each before the part of its number
        if not last:
            return None
        counts = [len(part) if part.isdecimal() else sum(map(str.isdecimal, part)) for part in parts]
        before = list(itertools.accumulate(counts, initial=0))
        # Every piece lies after the first cut or before the last one: when neither holds enough
        # digits (a phone number's 13 digits, the card rule's 12), no piece can validate.
        least = self.min_digits
        if max(before[-1] - before[1], before[last]) < least:
            return None
        # A piece runs from the start or just after a cut (``begins``) to a cut or the end.
        begins = list(itertools.accumulate((len(part) + 1 for part in parts), initial=0))
        froms = begins[:-1]
        if not parts[0]:  # a cut at the very start: a piece after it starts at 0 as well
            froms[1] = 0
        size = len(value)
        pieces = []
        for i, lo in enumerate(froms):
            for j in range(i + 1, last + 2):
                if before[j] - before[i] < least:
                    continue
                hi = begins[j] - 1
                if hi - lo > 0 and hi - lo >= least and (lo, hi) != (0, size):
                    pieces.append((hi - lo, lo, hi, before[i], before[j]))
        pieces.sort(reverse=True)
        by_digits = DIGIT_VALIDATORS.get(self.validator or "")
        if by_digits is not None:
            # A piece's digits are a slice of the value's (``before`` counts the same characters
            # ``digits_of`` keeps): taken once, not once per piece.
            digits = digits_of(value)
            for _, lo, hi, first, stop in pieces:
                if by_digits(digits[first:stop]):
                    return start + lo, start + hi
            return None
        for _, lo, hi, _, _ in pieces:
            if self._valid(value[lo:hi]):
                return start + lo, start + hi
        return None

    def near(self, text: str, present: Container[str]) -> list[tuple[int, int]]:
        """Stretches ``(lo, hi)`` of ``text`` where a match can start (``lead``), left to right:
        near each place one of the hints in ``present`` (those the text holds) occurs, and at each
        match of ``anchors``."""
        lead = self.lead or 0
        places: list[tuple[int, int]] = []
        for hint in self.hints:
            if hint in present:
                at = text.find(hint)
                while at >= 0:
                    places.append((at - lead if at > lead else 0, at + 1))
                    at = text.find(hint, at + 1)
        if self.anchors:  # a match of ``anchors`` ends the word a match starts with
            for anchor in self._anchors.finditer(text):
                at = anchor.start()
                places.append((at - lead if at > lead else 0, at))
        places.sort()
        merged: list[tuple[int, int]] = []
        for lo, hi in places:
            if merged and lo <= merged[-1][1] + 1:
                if hi > merged[-1][1]:
                    merged[-1] = (merged[-1][0], hi)
            else:
                merged.append((lo, hi))
        return merged

    @cached_property
    def _anchors(self) -> re.Pattern[str]:
        return re.compile(self.anchors)

    def spans(
        self,
        text: str,
        windows: list[Window] | None = None,
        covered: list[tuple[int, int]] | None = None,
        avoid: list[tuple[int, int]] | None = None,
        hinted: list[tuple[int, int]] | None = None,
    ) -> list[tuple[int, int]]:
        """(start, end) of every value this rule redacts in ``text``, left to right (``covered``:
        see ``skips_covered``; a plain rule searches as if it were not given). ``avoid``: spans
        (redaction markers) no match may touch, its syntax included: a marker's letters must not
        complete a pattern ("host:5432:[REDACTED:email]:user:pw" is no .pgpass line).

        A match its validator rejects does not hide a valid value that starts inside it: the
        search resumes one character after the rejected match's start. With ``windows``
        (``govern.scopes``) only they are searched; a match must end by its window's ``hi``. With
        ``hinted`` (``Rule.near``, a rule of the whole text) the searches start only there.
        """
        out: list[tuple[int, int]] = []
        if windows is None:
            windows = [(0, len(text), len(text))]
        # A plain rule's value is its whole match: the caller drops those touching ``avoid``.
        plain = self.validator is None and not self.secret_groups and not self.trim and self.timeout is None
        cursor = 0
        for lo, hi, endpos in windows:
            if hi <= cursor:
                continue
            if plain:  # every match is a value: the search resumes at its end, as finditer does
                for match in self.regex.finditer(text, max(lo, cursor), endpos):
                    span = match.span()
                    if span[1] <= hi:
                        out.append(span)
            else:
                self._spans_in(text, max(lo, cursor), hi, endpos, out, avoid, hinted)
            if out:
                cursor = out[-1][1]
        return out

    def _spans_in(
        self,
        text: str,
        pos: int,
        hi: int,
        endpos: int,
        out: list[tuple[int, int]],
        avoid: list[tuple[int, int]] | None,
        hinted: list[tuple[int, int]] | None = None,
    ) -> None:
        search = (
            self.regex.search if self.timeout is None else self._timed_search(time.monotonic() + self.timeout)
        )
        # The validator itself, not ``_valid``: a frame less per candidate of a text full of values.
        check = VALIDATORS[self.validator] if self.validator is not None else None
        stretch = 0
        while True:
            if hinted is not None:
                # No match starts before the next stretch: the search jumps there, and stops
                # once none is left (a search from any position finds the same leftmost match).
                while stretch < len(hinted) and hinted[stretch][1] < pos:
                    stretch += 1
                if stretch == len(hinted):
                    return
                if pos < hinted[stretch][0]:
                    pos = hinted[stretch][0]
            match = search(text, pos, endpos)
            if match is None:
                return
            at, match_end = match.span()
            if match_end > hi:  # cannot happen for the built-in scopes; never trust a cut match
                pos = at + 1
                continue
            if avoid and any(a < match_end and at < b for a, b in avoid):
                pos = at + 1
                continue
            found = False
            resume = match_end
            if self.secret_groups:
                for name in self.secret_groups:
                    start, end = match.span(name)
                    if start >= 0 and end > start and (check is None or check(text[start:end])):
                        found = True
                        out.append((start, end))
            else:
                start, end = at, match_end
                if self.trim:
                    while start < end and text[start] in self.trim:
                        start += 1
                if end > start and (check is None or check(text[start:end])):
                    found = True
                    out.append((start, end))
                elif end > start and self.shrink:
                    piece = self._shrunk(text, start, end)
                    if piece is not None:
                        found = True
                        resume = piece[1]
                        out.append(piece)
            pos = resume if found and resume > at else at + 1
