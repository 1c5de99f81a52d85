"""Redactor: find secrets and personal data in text and replace them with ``[REDACTED:<rule>]``.

Guarantees (tests/govern/test_redaction_properties.py checks them with hypothesis):
- every character of every matched value is replaced; overlapping matches of different rules are
  merged into one marker, so no rule leaves a piece of another's value visible;
- existing markers are never matched again, nor made part of a longer match, and redaction
  runs until a pass finds nothing that a further pass could change, so
  ``redact(redact(x)) == redact(x)``;
- it never raises on any string.

Modes (``MEMWARDEN_REDACTION``): ``enforce`` replaces, ``dry-run`` returns the text unchanged
but reports the rules that would have matched, ``off`` does nothing. A single rule can be in
dry-run too (``Rule.mode``; the optional ``high_entropy`` rule is, unless a pack enforces it):
what it would have matched is reported in ``Redaction.dry_run`` and never replaced.

Rules run on the normalised text (``govern.normalization``), and each finding is mapped back to the
original span, so invisible characters and look-alike digits inside a value are replaced with it.
Two decoding layers look inside encodings (``govern.layers``): a value found in the URL-decoded
or base64-decoded form of a run is redacted as the whole encoded run, and so is a base64 run that
decodes to ``user:password`` (``basic_auth``: HTTP Basic credentials, docker's ``auth``).
"""

import re
from collections.abc import Iterable
from typing import Any, NamedTuple

from memwarden.govern.builtin_rules import BUILTIN_RULES, NOSPACE_CHARS
from memwarden.govern.credential_rules import is_credential_pair
from memwarden.govern.layers import decoded_runs
from memwarden.govern.markers import MARKER, marker
from memwarden.govern.normalization import normalize, normalize_text
from memwarden.govern.rules import Rule
from memwarden.govern.scopes import NUMBER_SCOPES, Scopes, fold

MODES = ("enforce", "dry-run", "off")
# Characters next to a replaced value that no rule's match can begin with (right side) or end
# with (left side); so are the characters of scripts written without spaces (``NOSPACE_CHARS``),
# which every rule treats as a boundary. When every replaced value has only these (or whitespace) around it, the
# replacement cannot change what any rule sees, so the second pass is skipped; otherwise it runs.
_SAFE_AFTER = frozenset(",;!?\"'<>{}|)@")
_SAFE_BEFORE = frozenset(",;!?\"'<>{}|(=@")
# What joins digit groups into one number candidate (``pii_phones``, ``pii_national_ids``). A value
# starting or ending with a digit, one such character away from another digit, may have been read
# as part of a longer number that failed its checks; once the value is a marker, the number
# standing alone may pass ("00100000000000 0@0.AA"), so another pass must look. A comma joins
# too: "01000000,02000000000" reads as one number with a decimal comma until its tail is a marker.
_NUMBER_JOINERS = frozenset(" -./(),")


class Finding(NamedTuple):
    start: int
    end: int
    rule: str


_new_finding = tuple.__new__  # a Finding from a sequence, without its Python constructor


class Redaction(NamedTuple):
    """The text to store, the rule names that matched (never the values) and how many matches."""

    text: str
    rules: tuple[str, ...] = ()
    matches: int = 0
    applied: bool = False  # False in dry-run and off: ``text`` is the input unchanged
    dry_run: tuple[str, ...] = ()  # rules in dry-run that would have matched (never replaced)

    @property
    def redacted(self) -> bool:
        return self.applied and self.matches > 0


# Where a standalone token (``Rule.standalone``) can be, in the case-folded text: a run of 10+ of
# the characters any token format of the table is written with (``govern.secret_tokens``). Hints
# of 3 characters or fewer ("sk", "ap0", ".") are looked for only in the runs holding a digit or
# "_" (random bodies do; words of prose, "yapılacak" or "background", do not).
_TOKEN_CHARS = r"a-z0-9_.~|%:+/=\\-"
# A run is found from the character before it (a plain class lets the engine skip inside runs; a
# leading lookbehind would make it try every position), or at the start of the text.
_TOKEN_RUN = re.compile(rf"[^{_TOKEN_CHARS}]([{_TOKEN_CHARS}]{{10,}})")
_TOKEN_RUN_AT_START = re.compile(rf"[{_TOKEN_CHARS}]{{10,}}")
_DIGIT_OR_UNDERSCORE = re.compile(r"[0-9_]")
_SHORT_HINT = 3

_SHARED_WINDOW_DIGITS = 6
_MAX_DEPTH = 2  # base64 inside URL-encoding inside base64 is as deep as the layers look


# Which hints a text holds. Every rule with hints runs only when one of them occurs in the text
# (``Rule.hints``), so the redactor asks, for every text, which of about a hundred hints occur. Most
# hints hold a punctuation character (``ghp_``, ``glpat-``, ``sig=``, ``at]``, ``"auth"``) that
# prose rarely holds: ``HintScan`` buckets them by the rarest such character (``_RARE_FIRST``) and
# scans a bucket only when one search for that single character, in C, finds it. Hints made of
# letters alone are always scanned. In each bucket and among the letters, ``_GROUPED`` hints or more
# sharing their first character are searched as one alternation (one pass over the text instead of
# one per hint: the twelve AWS key prefixes cost little more than one substring test), and tested
# one by one only past a few matches. The answer is exactly ``{h for h in hints if h in text}``
# (tests/govern/test_redaction_speed.py checks it on generated text).
_RARE_FIRST = '"$}{][><=_@/+)(:-.'
_GROUPED = 4
_MATCHES_READ = 4


class _HintGroup:
    """Hints searched together: their alternation, compiled on first use (a cold process redacting
    one short query compiles only the groups its text reaches), tells a text holding none of them,
    and its first few matches which ones it holds."""

    __slots__ = ("_regex", "_within", "hints")

    def __init__(self, hints: tuple[str, ...]) -> None:
        self.hints = hints
        self._regex: re.Pattern[str] | None = None
        # The hints inside each hint: present wherever it is.
        self._within = {hint: [other for other in hints if other in hint] for hint in hints}

    def found_in(self, text: str) -> list[str]:
        if self._regex is None:
            self._regex = re.compile(_alternation(self.hints))
        # A match at each place the hints start from (the longest there, written first: the
        # shorter ones there are inside it); past a few places, one test per hint costs less.
        found: list[str] = []
        match = self._regex.search(text)
        for _ in range(_MATCHES_READ):
            if match is None:
                return found
            found.extend(self._within[match.group()])
            match = self._regex.search(text, match.start() + 1)
        return found if match is None else [hint for hint in self.hints if hint in text]


def _alternation(hints: tuple[str, ...]) -> str:
    """``hints`` (sharing their first character) as one alternation, that character written once in
    front (``re`` skips in C to the places holding it), the longest first (at a place, the longest
    hint there is the match)."""
    rests = sorted((re.escape(hint[1:]) for hint in hints), key=len, reverse=True)
    return re.escape(hints[0][0]) + "(?:" + "|".join(rests) + ")"


class HintScan:
    """The hints of a set of rules, bucketed by the rarest punctuation character each holds."""

    def __init__(self, hints: tuple[str, ...]) -> None:
        self.hints = tuple(dict.fromkeys(hints))
        buckets: dict[str, list[str]] = {}
        for hint in self.hints:
            guard = next((ch for ch in _RARE_FIRST if ch in hint), "")
            buckets.setdefault(guard, []).append(hint)
        self._letters, self._letter_groups = _split_by_first(buckets.pop("", []))
        self._buckets = tuple((guard, *_split_by_first(bucket)) for guard, bucket in buckets.items())

    def present(self, text: str) -> set[str]:
        """The hints that occur in ``text``."""
        found = {hint for hint in self._letters if hint in text}
        for group in self._letter_groups:
            found.update(group.found_in(text))
        for guard, plain, groups in self._buckets:
            if guard in text:
                found.update(hint for hint in plain if hint in text)
                for group in groups:
                    found.update(group.found_in(text))
        return found


def _split_by_first(hints: list[str]) -> tuple[tuple[str, ...], tuple[_HintGroup, ...]]:
    """``hints`` tested one by one, and the groups of ``_GROUPED`` or more sharing a first character
    (an alternation of hints starting with different characters tries each at every place, which
    costs more than a substring test per hint)."""
    by_first: dict[str, list[str]] = {}
    for hint in hints:
        by_first.setdefault(hint[0], []).append(hint)
    plain = tuple(hint for group in by_first.values() if len(group) < _GROUPED for hint in group)
    return plain, tuple(_HintGroup(tuple(group)) for group in by_first.values() if len(group) >= _GROUPED)


def _overlaps(start: int, end: int, markers: list[tuple[int, int]]) -> bool:
    return any(m_start < end and start < m_end for m_start, m_end in markers)


def _merge(found: list[tuple[int, int, int, str]]) -> list[Finding]:
    """``(start, -length, priority, rule)`` matches → non-overlapping findings; a cluster of
    overlapping matches is named after its longest match (ties: the earlier rule)."""
    if not found:
        return []
    found.sort()
    # Clusters as plain lists [start, end, rule], made findings at the end (a named tuple built
    # per match, through its Python constructor, cost more than the merge itself).
    clusters: list[list[Any]] = []
    best: tuple[int, int] = (0, 0)  # (-length, priority) of the cluster's naming match
    last: list[Any] = [0, 0, ""]
    for start, neg_len, priority, name in found:
        end = start - neg_len
        if clusters and start < last[1]:
            name_rank = (neg_len, priority)
            if name_rank < best:
                last[2] = name
                best = name_rank
            if end > last[1]:
                last[1] = end
        else:
            last = [start, end, name]
            clusters.append(last)
            best = (neg_len, priority)
    return [_new_finding(Finding, cluster) for cluster in clusters]


def _by_hint(general: tuple[tuple[int, Rule], ...]) -> tuple[tuple[int, ...], dict[str, tuple[int, ...]]]:
    """The priorities of the rules without hints, and of the rules with each hint."""
    by_hint: dict[str, list[int]] = {}
    for priority, rule in general:
        for hint in rule.hints:
            by_hint.setdefault(hint, []).append(priority)
    hintless = tuple(priority for priority, rule in general if not rule.hints)
    return hintless, {hint: tuple(priorities) for hint, priorities in by_hint.items()}


def _split_standalone(
    group: tuple[tuple[int, Rule], ...],
) -> tuple[tuple[tuple[int, Rule], ...], dict[str, tuple[int, ...]]]:
    """``(priority, rule)`` entries: the rules that are not standalone, and the priorities of the
    standalone ones by hint."""
    general = tuple(entry for entry in group if not entry[1].standalone)
    return general, _by_hint(tuple(entry for entry in group if entry[1].standalone))[1]


def _starts_a_local_part(text: str, at: int) -> bool:
    """Whether the word at ``at`` runs into an "@": an e-mail address's local part may be written
    in any script ("ゝ@example.org"), so the value before it may have hidden the address."""
    end = min(len(text), at + 65)
    while at < end and (text[at].isalnum() or text[at] in "_.%+-"):
        at += 1
    return at < len(text) and text[at] == "@"


class Redactor:
    """Applies an ordered set of rules in one of the three modes."""

    def __init__(
        self, rules: Iterable[Rule] = BUILTIN_RULES, *, mode: str = "enforce", scoped: bool = True
    ) -> None:
        """``scoped=False`` searches every rule over the whole text (``govern.scopes`` off): the
        reference the scoped search is tested against."""
        if mode not in MODES:
            raise ValueError(f"redaction mode must be one of {', '.join(MODES)}, got {mode!r}")
        self.rules = tuple(rules)
        self.mode = mode
        ordered = tuple(enumerate(self.rules))
        self._enforced = tuple((i, r) for i, r in ordered if r.mode == "enforce")
        self._dry = tuple((i, r) for i, r in ordered if r.mode == "dry-run")
        # Rules whose value is always preceded by the rule's own syntax ("password=", "-p", "user:"):
        # a built-in rule's secret groups, except ``secret_token`` (a whole token, as Slack's, whose
        # left neighbour is anything). A pack's groups promise nothing of the kind.
        self._grouped = frozenset(
            rule.name
            for rule in self.rules
            if rule.secret_groups and rule.timeout is None and "secret_token" not in rule.secret_groups
        )
        # Base64 of user:password is found (as ``basic_auth``) by the rules' run having that rule.
        self._pairs = frozenset(i for i, rule in ordered if rule.name == "basic_auth")
        self.scoped = scoped
        self._markers: dict[str, str] = {}  # ``marker(rule)`` of each rule name met so far
        # Every hint once, bucketed so that prose settles most with a few one-character searches
        # (``HintScan``); which are in a text is found once, shared by the rules.
        # The hints of standalone token formats are looked for only in the token-like runs.
        self._hints = HintScan(tuple(h for rule in self.rules if not rule.standalone for h in rule.hints))
        token_hints = tuple(dict.fromkeys(h for rule in self.rules if rule.standalone for h in rule.hints))
        self._token_hints = HintScan(tuple(h for h in token_hints if len(h) > _SHORT_HINT))
        self._short_token_hints = HintScan(tuple(h for h in token_hints if len(h) <= _SHORT_HINT))
        # Per set of rules (enforced, dry-run): the other rules in order, and the standalone ones
        # by hint, so a text costs a loop over only the token rows whose prefix it holds.
        self._split = {id(group): _split_standalone(group) for group in (self._enforced, self._dry)}
        # And the other rules' priorities: those without hints, and those of each hint (a text
        # runs the rules of the hints it holds, not a test per rule of the table).
        self._by_hint = {key: _by_hint(general) for key, (general, _) in self._split.items()}
        # The digits each rule's number windows are built for. A window with fewer digits than a
        # rule needs holds none of its values, so rules needing 6 or more share the windows of the
        # one needing the fewest in their scope (built once per text); a rule needing fewer (the
        # phone rule's 3-digit service numbers) gets its own, so the others never search those.
        shared: dict[str, int] = {}
        for rule in self.rules:
            if rule.min_digits >= _SHARED_WINDOW_DIGITS:
                shared[rule.scope] = min(shared.get(rule.scope, rule.min_digits), rule.min_digits)
        self._window_digits = tuple(
            shared[rule.scope] if rule.min_digits >= _SHARED_WINDOW_DIGITS else rule.min_digits
            for rule in self.rules
        )
        # Every number family a rule asks for, so one walk over a text's number runs builds them all.
        self._number_keys = tuple(
            dict.fromkeys(
                (rule.scope, digits)
                for rule, digits in zip(self.rules, self._window_digits, strict=True)
                if rule.scope in NUMBER_SCOPES
            )
        )

    def find(self, text: str, *, dry_run: bool = False) -> list[Finding]:
        """Non-overlapping findings in ``text``, left to right; overlapping matches are merged.

        Rules see the normalised text; the spans returned are in ``text`` itself. With
        ``dry_run`` the rules in dry-run mode are applied instead of the enforced ones.
        """
        rules = self._dry if dry_run else self._enforced
        if not rules:
            return []
        norm = normalize(text)
        found = self._find_normalized(norm.text, rules, 0, {})
        if not norm.changed:
            return found
        return _merge([(a, a - b, 0, f.rule) for f in found for a, b in [norm.original_span(f.start, f.end)]])

    def _find_normalized(
        self,
        text: str,
        rules: tuple[tuple[int, Rule], ...],
        depth: int,
        decoded_found: dict[tuple[str, int], list[Finding]],
    ) -> list[Finding]:
        """``decoded_found``: the findings of each decoded run already searched in this text (an
        encoded value written twice is decoded to the same text, searched once)."""
        scopes = Scopes(text, self._number_keys)
        lower = scopes.folded
        markers = [m.span() for m in MARKER.finditer(text)] if "[redacted:" in lower else []
        if markers:  # rule names inside markers ("secret", "key") must not wake rules up
            lower = fold(MARKER.sub(" ", text))
        found: list[tuple[int, int, int, str]] = []
        present = self._hints.present(lower)
        by_hint = self._split[id(rules)][1]
        tokens: set[int] = set()
        if by_hint:
            first = _TOKEN_RUN_AT_START.match(lower)
            runs = _TOKEN_RUN.findall(lower) + ([first.group()] if first else [])
            if runs:
                joined = " ".join(runs)
                hits = self._token_hints.present(joined)
                # (A run of letters alone, a long word of prose, is settled without a search.)
                mixed = " ".join(
                    run for run in runs if not run.isalpha() and _DIGIT_OR_UNDERSCORE.search(run)
                )
                if mixed:
                    hits |= self._short_token_hints.present(mixed)
                present.update(hits)
                for hint in hits:
                    tokens.update(by_hint.get(hint, ()))
        hintless, general_by_hint = self._by_hint[id(rules)]
        chosen = set(hintless)
        for hint in present:
            priorities = general_by_hint.get(hint)
            if priorities:
                chosen.update(priorities)
        # The rules in order, the standalone token rows the runs woke after them.
        planned = [*sorted(chosen), *sorted(tokens)]
        for priority in planned:
            rule = self.rules[priority]
            windows = None
            if self.scoped and rule.scope != "text":
                windows = scopes.windows(rule.scope, self._window_digits[priority])
                if not windows:
                    continue
            # The reference (``scoped=False``) gives no rule what earlier rules found.
            covered = [(s, s - n) for s, n, _, _ in found] if self.scoped and rule.skips_covered else None
            searched = scopes.folded if rule.folded else text
            if self.scoped and rule.lead is not None:
                spans = rule.spans(searched, windows, covered, markers, rule.near(searched, present))
            else:
                spans = rule.spans(searched, windows, covered, markers)
            for start, end in spans:
                # A marker is never matched again, nor part of a longer match: that keeps a second
                # run from finding anything new (idempotence). Text typed to look like a marker
                # can therefore shield what is glued to it (docs/governance.md, limits).
                if not (markers and _overlaps(start, end, markers)):
                    found.append((start, start - end, priority, rule.name))
        if depth < _MAX_DEPTH:
            for start, end, decoded in decoded_runs(text):
                if markers and _overlaps(start, end, markers):
                    continue
                inner = decoded_found.get((decoded, depth))
                if inner is None:
                    inner = self._find_normalized(normalize_text(decoded), rules, depth + 1, decoded_found)
                    decoded_found[decoded, depth] = inner
                if inner:
                    found.append((start, start - end, -1, inner[0].rule))
                elif is_credential_pair(decoded) and any(i in self._pairs for i, _ in rules):
                    found.append((start, start - end, -1, "basic_auth"))
        return _merge(found)

    def _replace(self, text: str, findings: list[Finding]) -> str:
        parts: list[str] = []
        cursor = 0
        markers = self._markers
        for start, end, rule in findings:
            text_marker = markers.get(rule)
            if text_marker is None:
                text_marker = markers[rule] = marker(rule)
            parts += (text[cursor:start], text_marker)
            cursor = end
        parts.append(text[cursor:])
        return "".join(parts)

    def _may_change_neighbours(self, text: str, findings: list[Finding]) -> bool:
        end = len(text)
        for start, stop, rule in findings:
            before = text[start - 1] if start > 0 else " "
            after = text[stop] if stop < end else " "
            # A value beginning or ending with a digit that one joining character
            # (``_NUMBER_JOINERS``) links to another digit outside it. Each side is tested from
            # the neighbour out: most values have a blank and then a word beside them.
            if (
                before in _NUMBER_JOINERS
                and start >= 2
                and (text[start - 2].isdecimal() or text[start - 2] == ")")
                and (text[start].isdecimal() or text[start] in "+(")
            ) or (
                after in _NUMBER_JOINERS
                and stop + 1 < end
                and (text[stop + 1].isdecimal() or text[stop + 1] in "+(")
                and (text[stop - 1].isdecimal() or text[stop - 1] == ")")
            ):
                return True
            if after == "." and (stop + 1 == end or text[stop + 1].isspace()):
                # A sentence's full stop after the value (password=hunter2.): no rule's match
                # begins with "." followed by whitespace.
                after = " "
            # A secret group's left neighbour is its own rule's syntax ("user:", "password="), which
            # no other rule's match can end with. (Cheapest tests first: most neighbours are blanks.)
            if not (
                before.isspace() or before in _SAFE_BEFORE or rule in self._grouped or before in NOSPACE_CHARS
            ) or not (
                after.isspace()
                or after in _SAFE_AFTER
                or (after in NOSPACE_CHARS and not _starts_a_local_part(text, stop))
            ):
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
        return Redaction(
            text, tuple(dict.fromkeys(rules)), count, applied=True, dry_run=self._dry_names(text)
        )

    def _dry_names(self, text: str) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.rule for f in self.find(text, dry_run=True))) if self._dry else ()

    def redact(self, text: str) -> Redaction:
        """What to store for ``text`` under this redactor's mode."""
        if self.mode == "off":
            return Redaction(text)
        if self.mode == "dry-run":
            findings = self.find(text) + self.find(text, dry_run=True)
            return Redaction(text, tuple(dict.fromkeys(f.rule for f in findings)), len(findings))
        return self.scrub(text)

    def scrub_text(self, text: str) -> str:
        """Just the redacted text (for the audit log's plain queries, export and import)."""
        return self.scrub(text).text if self.mode != "off" else text
