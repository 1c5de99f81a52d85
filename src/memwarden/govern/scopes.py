"""Where in a text a built-in rule can match at all: the cheap scans that keep redaction fast.

Searching a memory with two dozen regular expressions costs mostly the positions where no
rule can match: every letter is a possible start for an IBAN or an e-mail address, every digit
for nine number rules. ``Scopes`` makes one cheap scan per family and hands each rule the
*windows* that can hold a match; ``Rule.spans`` searches only those. A window is
``(lo, hi, endpos)``: a match starts at or after ``lo`` and ends at or before ``hi``; ``endpos``
(at most two characters past ``hi``) is where the search stops, so lookaheads see the
characters they test. Each window is built so that no match of its rules can cross ``hi``,
which makes windowed search return exactly what a search of the whole text returns
(tests/govern/test_redaction_scopes.py compares the two on every corpus).

Families (``Rule.scope``):

- ``numbers``: runs of ASCII digits with the separators number rules allow between them
  (space, ``.``, ``-``, parentheses, ``+``), a leading ``+`` or ``(``, and a trailing ``X`` (a
  Chinese resident id's check digit); a rule runs on a run only if it has ``Rule.min_digits``
  digits (``digit_block``: that many digits in a row; ``dotted_numbers``: and three dots, for
  IPv4; ``plus_numbers``: and a ``+``, for E.164). Text reaching the rules is normalised, so every decimal digit is ASCII.
- ``iban``: from the two letters in front of a run of digits to the end of the letters, digits
  and single spaces that follow;
- ``email``: from the start of the run of word characters and ``. % + -`` before an ``@`` (at
  most 64 characters, the longest local part) to the next whitespace;
- ``ipv6``: from 4 characters before a colon to the end of the hex digits, colons and dots
  after it, when that holds two colons.

``folded`` is the text case-folded without changing its length, for rules written in lower case
(``Rule.folded``): a case-sensitive search of folded text finds what a case-insensitive search
of the text finds, at the same offsets, and costs a fraction of it.
"""

from __future__ import annotations

import re

Window = tuple[int, int, int]

_SHORTEST_VALUE = 3  # digits of the shortest number any rule redacts
_NUMBER_RUN = re.compile(r"[0-9][0-9 .()+\-\t\r\n/·]*")
# Every character of a run but its digits (``_NUMBER_RUN``'s separators, a leading "+" or "(", a
# trailing "X") made a space: what is left between spaces are its blocks of digits.
_BLOCKS_APART = str.maketrans(dict.fromkeys(" .()+-\t\r\n/·Xx", " "))
# Windows of number runs closer than this are searched as one: scanning a few characters costs
# less than another search call.
_MERGE_GAP = 48
_IBAN_TAIL = re.compile(r"(?:(?: {1,2}|-)?[A-Za-z0-9])*")
_NOT_SPACE = re.compile(r"\S*")
_LOCAL_PART_PUNCTUATION = frozenset("_.%+-")  # with the letters and digits (``\w``) of a local part
_HEX_RUN = re.compile(r"[0-9A-Fa-f:.]*")
_ASCII_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")


def _merged(runs: list[tuple[int, int, int, int, bool, bool]], end: int) -> list[Window]:
    """The windows of ``runs`` (left to right), those less than ``_MERGE_GAP`` apart merged into
    one: nothing between them can match."""
    windows: list[Window] = []
    if not runs:
        return windows
    first_lo, last_hi = runs[0][0], runs[0][1]
    for run in runs:
        if run[0] - last_hi >= _MERGE_GAP:
            windows.append((first_lo, last_hi, min(end, last_hi + 2)))
            first_lo = run[0]
        last_hi = run[1]
    windows.append((first_lo, last_hi, min(end, last_hi + 2)))
    return windows


def fold(text: str) -> str:
    """``text`` in lower case, the same length, with ``İ ı ſ K`` made ``i i s k``: the only four
    characters a case-insensitive search equates with an ASCII letter although ``lower()`` does
    not give that letter (İ gives two characters)."""
    if text.isascii():
        return text.lower()
    if "İ" in text:
        text = text.replace("İ", "i")
    low = text.lower()
    if "ı" in low:
        low = low.replace("ı", "i")
    if "ſ" in low:
        low = low.replace("ſ", "s")
    return low


class Scopes:
    """The windows of one (normalised) text, computed on first use.

    ``number_keys``: the ``(scope, min_digits)`` pairs of the number families the caller will
    ask for (``Redactor`` knows them from its rules). The first request for any of them walks the
    text's number runs once and builds the windows of every pair in that walk, instead of one
    walk over the runs per pair; a pair not announced gets a walk of its own.
    """

    def __init__(self, text: str, number_keys: tuple[tuple[str, int], ...] = ()) -> None:
        self.text = text
        self.folded = fold(text)
        self._number_keys = number_keys
        self._starts: list[int] | None = None
        self._windows: dict[tuple[str, int], list[Window]] = {}

    def _walk_numbers(self, keys: tuple[tuple[str, int], ...]) -> None:
        """One walk over the number runs: every run's start (for IBANs), and for each of
        ``keys`` the runs that can hold a value of a rule of that scope with that many digits,
        those less than ``_MERGE_GAP`` apart merged into one window (nothing between them can
        match). A run is read as ``(lo, hi, digits, longest block of digits, three dots or
        more, holds "+")``, from a leading ``+`` or ``(`` to a trailing ``X``; runs shorter than
        the shortest value (a service number of 3 digits after a verb of calling,
        ``pii_phones``) hold none."""
        text = self.text
        end = len(text)
        starts: list[int] = []
        fewest = min((min_digits for _, min_digits in keys), default=0)
        runs: list[tuple[int, int, int, int, bool, bool]] = []
        for match in _NUMBER_RUN.finditer(text):
            lo, hi = match.span()
            starts.append(lo)
            if hi - lo < _SHORTEST_VALUE:
                continue
            while lo > 0 and text[lo - 1] in "+(":
                lo -= 1
            if hi < end and text[hi] in "Xx":
                hi += 1
            run = text[lo:hi]
            if run.isdigit():  # most runs of prose: one block (the text's digits are ASCII)
                if hi - lo >= fewest:
                    runs.append((lo, hi, hi - lo, hi - lo, False, False))
                continue
            blocks = run.translate(_BLOCKS_APART).split()  # its blocks of digits, in C
            digits = sum(map(len, blocks))
            if digits >= fewest:
                runs.append((lo, hi, digits, max(map(len, blocks)), run.count(".") >= 3, "+" in run))
        self._starts = starts
        # Each family keeps the runs it can use (a filter in C, not a test per run and family in
        # Python); a run's longest block never exceeds its digits, so a block test is enough.
        for key in keys:
            if not runs:  # prose without a long number: every family is empty
                self._windows[key] = []
                continue
            scope, need = key
            if scope == "digit_block":
                kept = [run for run in runs if run[3] >= need]
            elif scope == "dotted_numbers":
                kept = [run for run in runs if run[4] and run[2] >= need]
            elif scope == "plus_numbers":
                kept = [run for run in runs if run[5] and run[2] >= need]
            else:
                kept = [run for run in runs if run[2] >= need]
            self._windows[key] = _merged(kept, end)

    def _run_starts(self) -> list[int]:
        if self._starts is None:
            self._walk_numbers(self._number_keys)
        assert self._starts is not None
        return self._starts

    def _iban(self) -> list[Window]:
        text = self.text
        end = len(text)
        windows = []
        for lo in self._run_starts():
            if lo >= 2 and text[lo - 1] in _ASCII_LETTERS and text[lo - 2] in _ASCII_LETTERS:
                match = _IBAN_TAIL.match(text, lo)
                hi = match.end() if match else lo
                windows.append((lo - 2, hi, min(end, hi + 1)))
        return windows

    def _email(self) -> list[Window]:
        text = self.text
        windows = []
        at = text.find("@")
        while at >= 0:
            match = _NOT_SPACE.match(text, at)
            hi = match.end() if match else at + 1
            # A local part is a run of word characters and ". % + -" right before the "@": the
            # search starts where that run starts (at most 64 back), not at every character of
            # the text before it (a run of Chinese, all word characters, cost a scan per start).
            lo = at
            floor = max(0, at - 64)
            while lo > floor and (text[lo - 1].isalnum() or text[lo - 1] in _LOCAL_PART_PUNCTUATION):
                lo -= 1
            windows.append((lo, hi, hi))
            at = text.find("@", hi)
        return windows

    def _ipv6(self) -> list[Window]:
        text = self.text
        end = len(text)
        windows = []
        colon = text.find(":")
        while colon >= 0:
            match = _HEX_RUN.match(text, colon)
            hi = match.end() if match else colon + 1
            if text.count(":", colon, hi) >= 2:
                windows.append((max(0, colon - 4), hi, min(end, hi + 2)))
            colon = text.find(":", max(hi, colon + 1))
        return windows

    def windows(self, scope: str, min_digits: int = 0) -> list[Window]:
        """The windows of ``scope`` (computed once per text)."""
        key = (scope, min_digits)
        windows = self._windows.get(key)
        if windows is None:
            if scope in NUMBER_SCOPES:
                self._walk_numbers(self._number_keys if key in self._number_keys else (key,))
                return self._windows[key]
            if scope == "iban":
                windows = self._iban()
            elif scope == "email":
                windows = self._email()
            elif scope == "ipv6":
                windows = self._ipv6()
            else:
                raise ValueError(f"unknown rule scope {scope!r}")
            self._windows[key] = windows
        return windows


NUMBER_SCOPES = ("numbers", "digit_block", "dotted_numbers", "plus_numbers")
SCOPES = ("text", *NUMBER_SCOPES, "iban", "email", "ipv6")

__all__ = ["NUMBER_SCOPES", "SCOPES", "Scopes", "Window", "fold"]
