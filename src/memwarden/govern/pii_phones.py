"""Phone numbers of every region, in the forms people write them, checked with ``phonenumbers``.

The regular-expression rules (``phone_e164``, ``phone_us``, ``phone_cn``, ``phone_tr``) know a few
fixed shapes. ``PhoneRule`` (rule ``phone``) finds the rest: ``06 12 34 56 78``,
``(+44) 20 7946 0958``, ``0044 20 7946 0958``, ``0437465632``, ``(01632) 960 851``,
``942.911.0177x643``. A candidate is a run of digit groups joined by single separators (space,
``-``, ``.``, ``/``, parentheses), and it is redacted when one of these holds:

- it carries an international prefix (``+``, ``00``, ``(+44)``, ``+(370)``): libphonenumber
  (``phonenumbers``) parses it and its country's numbering plan allows its length;
- it is written the national way, in a shape ordinary numbers do not take: a trunk ``0`` and
  8-12 digits, or 9-12 digits in three or more groups of 2-4 (not a date, a version or an address), and
  a region in ``_DEFAULT_REGIONS`` or the text's script (``_SCRIPT_REGIONS``) allows its length
  after the trunk prefix;
- a word about calling (``_PHONE_WORDS``: "call", "Telefon", "電話", "اتصل" …) stands within a
  few words of it, and it holds 6-15 digits in any shape but a date, a time or a decimal, and no
  noun naming a record stands right before it ("call about order 202315": ``phone_context``); a
  short number after a verb of calling must not be a time of day or a room either ("call at 1530
  hours", "call room 4021").

Why not PhoneNumberMatcher over the whole text: it costs about a millisecond per kilobyte and a
region per call. Candidates come from the number windows (``govern.scopes``) that every number
rule shares, so text without a run of 6 digits never reaches this module's scans, and
``phonenumbers`` (and its metadata, loaded per region on first use) only for candidates.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
import sys
from collections.abc import Iterator
from typing import Any

from memwarden.govern.markers import MARKER
from memwarden.govern.phone_context import names_a_record, not_a_phone_by_context
from memwarden.govern.rules import Rule
from memwarden.govern.scopes import Window, fold


class LazyPattern:
    """A regular expression compiled on first use: the rule modules are imported on every cold
    redaction (a CLI search redacts its query), most of which meet no phone or id number."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern

    @functools.cached_property
    def compiled(self) -> re.Pattern[str]:
        return re.compile(self.pattern)

    def finditer(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(text, pos, endpos)

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.search(text, pos)

    def match(self, text: str, pos: int = 0) -> re.Match[str] | None:
        return self.compiled.match(text, pos)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return self.compiled.fullmatch(text)


# A candidate: digit groups joined by one separator each (never two optional pieces in a row, so
# matching stays linear), with an optional international prefix. Not glued to a word, a decimal,
# an id ("ORD-123", "#123"), a path or a time.
_CANDIDATE = LazyPattern(
    r"(?<![0-9A-Za-z_#.,/\-])(?<!\d:)"
    r"(?:\+\(|\(\+|\+|\()?\d+(?:(?:\)[ \-./]?|[ \-./]\(?|\()\d+)*\)?"
    r"(?!(?!x\d|ext)[0-9A-Za-z_]|[.,/:\-]\d)"
)
_GROUP = re.compile(r"\d+")
_MAX_GROUPS = 32  # a longer run of digit groups is not searched for the numbers inside it
# Dates and times in the separators they are written with: never a phone number on their own.
_DATE = LazyPattern(
    r"\d{4}([-./])\d{1,2}\1\d{1,2}|\d{1,2}([-./])\d{1,2}\2\d{2,4}|(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:[0-2]\d|3[01])"
)
# Words about calling, in the languages people write memories in (a number next to one is a phone
# number even in a shape ordinary numbers share). Word starts only; most are stems; lower case
# (searched in case-folded text).
_PHONE_WORDS = LazyPattern(
    # The first characters of the words, looked ahead for: positions where no word can start fail
    # at once (the search is twice as fast).
    r"(?=[abcdfghlmprstwzđκπτзптהטاجرهकफโ手折携电連電연전휴])"
    r"(?:\b(?:phone|tel\b|tel\.|telef|téléph|teléf|mobile?\b|mobil|cell|fax\b|whatsapp|signal\b"
    r"|call|ring\b|dial|text me|reach me|contact|llám|llam|rappel|appel|richiam|chiam|cellulare"
    r"|liga|ligue|bel\b|bellen|ruf\b|ruf |anruf|handy|ara\b|aray|tlf|puhel|soita|zadzwo|gọi"
    r"|điện|hubungi|телеф|звон|позвон|перезвон|передзвон|τηλ|πάρε|κάλεσ)"
    r"|اتصل|هاتف|جوال|رقم|טלפון|התקשר|कॉल|फ़ोन|फोन|电话|電話|手机|手機|携帯|折り返|連絡|전화|휴대폰|연락|โทร)"
)
_CONTEXT_BEFORE = 40  # characters before a candidate searched for a word about calling
_CONTEXT_AFTER = 24  # and after it (Japanese, Korean, Turkish put the verb after the number)
# A short number (3-5 digits: the service lines of Arab countries and others, "922", "1387") is a
# phone number only after a verb of calling and one to three short words ("call me on 922",
# "اتصل بي على 1387", "llámame al 112", "appelle-moi au 115"): not right after the verb ("call 100
# users"), not after a noun such as "phone" or "number" ("phone with 256 GB", "room number 214"),
# never a year ("call me in 2026").
_SHORT_NUMBER_BEFORE = 28  # characters before a short number searched for the verb
_CALLED_SHORT = LazyPattern(
    r"(?:\b(?:call|ring|dial|llám|llam|rappel|appel|richiam|chiam|liga|ligue|bel|ruf|anruf|zadzwo"
    r"|soita|gọi|позвон|звон|перезвон|передзвон|πάρε|κάλεσ)\w*|اتصل\w*|اتصال|התקשר\w*|कॉल|拨打|致电)"
    r"(?:-[^\W\d]{1,4})?(?:[ \t]+[^\W\d]{1,4}){1,3}[ \t]*[:：]?[ \t]*$"
)
_YEAR = re.compile(r"(?:19|20)\d\d")

# Regions whose numbering plans decide a national number's length when the text gives no script
# cue: the most populous countries, the EU/EEA, the UK and Switzerland, and the rest of the G20.
_DEFAULT_REGIONS = [
    "CN",
    "IN",
    "US",
    "ID",
    "PK",
    "NG",
    "BR",
    "BD",
    "RU",
    "ET",
    "MX",
    "JP",
    "EG",
    "PH",
    "CD",
    "VN",
    "IR",
    "TR",
    "DE",
    "TH",
    "GB",
    "FR",
    "TZ",
    "ZA",
    "IT",
    "KE",
    "MM",
    "CO",
    "KR",
    "UG",
    "ES",
    "AR",
    "DZ",
    "SD",
    "UA",
    "IQ",
    "CA",
    "PL",
    "MA",
    "SA",
    "UZ",
    "PE",
    "AU",
    "MY",
    "VE",
    "NP",
    "YE",
    "GH",
    "MZ",
    "AT",
    "BE",
    "BG",
    "HR",
    "CY",
    "CZ",
    "DK",
    "EE",
    "FI",
    "GR",
    "HU",
    "IE",
    "LV",
    "LT",
    "LU",
    "MT",
    "NL",
    "PT",
    "RO",
    "SK",
    "SI",
    "SE",
    "IS",
    "LI",
    "NO",
    "CH",
]
# Scripts that name the regions where they are written (a number in Arabic text is checked against
# Arabic-speaking regions too).
_SCRIPT_REGIONS: tuple[tuple[int, int, tuple[str, ...]], ...] = (
    (
        0x0600,
        0x06FF,
        (
            "SA",
            "EG",
            "AE",
            "DZ",
            "MA",
            "IQ",
            "JO",
            "PS",
            "LB",
            "SY",
            "KW",
            "QA",
            "BH",
            "OM",
            "TN",
            "LY",
            "YE",
            "IR",
            "AF",
            "PK",
        ),
    ),
    (0x0400, 0x04FF, ("RU", "UA", "BY", "BG", "RS", "MK", "KZ", "KG", "MN")),
    (0x0370, 0x03FF, ("GR", "CY")),
    (0x0590, 0x05FF, ("IL",)),
    (0x0900, 0x09FF, ("IN", "NP", "BD")),
    (0x0E00, 0x0E7F, ("TH",)),
    (0x3040, 0x30FF, ("JP",)),
    (0xAC00, 0xD7AF, ("KR",)),
    (0x4E00, 0x9FFF, ("CN", "TW", "HK", "MO", "SG")),
)


@functools.cache
def _lengths(regions: tuple[str, ...]) -> tuple[frozenset[int], frozenset[int]]:
    """National number lengths the regions' plans allow: after a trunk ``0``, and without one."""
    from phonenumbers.phonemetadata import PhoneMetadata

    after_trunk: set[int] = set()
    plain: set[int] = set()
    for region in regions:
        meta = PhoneMetadata.metadata_for_region(region)
        if meta is None or meta.general_desc is None:
            continue
        lengths = set(meta.general_desc.possible_length or ())
        plain |= lengths
        if meta.national_prefix == "0":
            after_trunk |= lengths
    return frozenset(after_trunk), frozenset(plain)


def _regions_for(text: str) -> tuple[str, ...]:
    if text.isascii():
        return tuple(_DEFAULT_REGIONS)
    # Each distinct character once (a memory has a few dozen): a code point test, no regex.
    points = {ord(ch) for ch in set(text) if ord(ch) > 0x36F}
    extra = [r for lo, hi, regions in _SCRIPT_REGIONS if any(lo <= p <= hi for p in points) for r in regions]
    return tuple(dict.fromkeys(_DEFAULT_REGIONS + extra))


@functools.cache
def _country_lengths(code: int) -> frozenset[int]:
    """National number lengths the plan of calling code ``code`` allows (empty: no such code)."""
    from phonenumbers import COUNTRY_CODE_TO_REGION_CODE
    from phonenumbers.phonemetadata import PhoneMetadata

    lengths: set[int] = set()
    for region in COUNTRY_CODE_TO_REGION_CODE.get(code, ()):
        meta = (
            PhoneMetadata.metadata_for_nongeo_region(code)
            if region == "001"
            else PhoneMetadata.metadata_for_region(region)
        )
        if meta is not None and meta.general_desc is not None:
            lengths |= set(meta.general_desc.possible_length or ())
    return frozenset(lengths)


def international_possible(candidate: str) -> bool:
    """Whether ``candidate`` (``+…``, ``00…``, ``(+44) …``) starts with a calling code whose plan
    (libphonenumber's metadata) allows the length of the rest; a trunk ``(0)`` after the code is
    dropped, as a dialler would. What ``phonenumbers.is_possible_number`` decides, without its
    parser (ten times slower)."""
    digits = "".join(_GROUP.findall(candidate))
    if candidate.lstrip("(+").startswith("00") and not candidate.lstrip("(").startswith("+"):
        digits = digits[2:]
    for size in (1, 2, 3):  # calling codes are prefix-free: the first known one is the one
        lengths = _country_lengths(int(digits[:size] or 0))
        if lengths:
            national = digits[size:]
            return len(national) in lengths or (national[:1] == "0" and len(national) - 1 in lengths)
    return False


def _not_a_phone_shape(candidate: str, groups: list[str]) -> bool:
    """Dates, decimals, versions and addresses: never phone numbers without a word about calling."""
    if _DATE.fullmatch(candidate.strip("()")):
        return True
    digits = "".join(groups)
    if digits.lstrip("+0") == "" or len(set(digits)) == 1:  # 00000000, 1111111
        return True
    dots = candidate.count(".")
    if dots and len(groups) == 2:  # 3.14, 20251230.13
        return True
    return bool(dots and (len(groups) >= 4 or any(len(g) == 1 for g in groups)))  # 10.0.0.1, 3.4.2.8861


class PhoneRule(Rule):
    """The ``phone`` rule: candidates from the number windows, judged as the module docstring says."""

    def replace(self, **changes: Any) -> Rule:
        fields = {name: getattr(self, name) for name in ("name", "description", "mode")} | changes
        return PhoneRule(fields["name"], fields["description"], mode=fields["mode"])

    def __init__(self, name: str = "phone", description: str = "", *, mode: str = "enforce") -> None:
        super().__init__(
            name,
            _CANDIDATE.pattern,
            description
            or "phone numbers of every region: international (+, 00, (+44)), national with a trunk 0 "
            "or in groups (libphonenumber lengths), and any number next to a word about calling",
            scope="numbers",
            min_digits=3,
            mode=mode,
        )

    # Runs last among the number rules: most digit runs it meets in a text full of values (a card,
    # an IBAN, a phone number in a fixed shape) are already someone else's finding.
    skips_covered = True

    def spans(
        self,
        text: str,
        windows: list[Window] | None = None,
        covered: list[tuple[int, int]] | None = None,
        avoid: list[tuple[int, int]] | None = None,
        hinted: list[tuple[int, int]] | None = None,  # a rule of the whole text's (``Rule.near``)
    ) -> list[tuple[int, int]]:
        # ``avoid`` (markers) needs no check: a candidate is digits and joiners, which no marker holds.
        if windows is None:
            windows = [(0, len(text), len(text))]
        out: list[tuple[int, int]] = []
        judge = _Judge(text)
        # Covered spans by start, with the furthest end reached by any of them so far: a candidate
        # lies inside one of them when that reach, up to its start, passes its end (one bisect).
        ordered = sorted(covered or ())
        starts = [c_start for c_start, _ in ordered]
        reach = list(itertools.accumulate((c_end for _, c_end in ordered), max))
        for lo, hi, endpos in windows:
            judge.words = None
            for match in _CANDIDATE.finditer(text, lo, endpos):
                start, end = match.span()
                if end > hi:
                    continue
                # Every number this candidate can yield lies inside it (``_numbers_inside`` too).
                at = bisect.bisect_right(starts, start) - 1
                if at >= 0 and reach[at] >= end:
                    continue
                if judge.is_phone(start, end, lo, hi):
                    out.append((start, end))
                    continue
                groups = list(_GROUP.finditer(text, start, end))
                if sum(g.end() - g.start() for g in groups) > 15 and len(groups) <= _MAX_GROUPS:
                    out.extend(_numbers_inside(judge, groups, lo, hi))
        return out


def _numbers_inside(judge: _Judge, groups: list[re.Match[str]], lo: int, hi: int) -> list[tuple[int, int]]:
    """Phone numbers among the digit groups of a run too long to be one: the longest from each
    group on, left to right. Once another rule has replaced a neighbouring value, the next pass sees
    such a number alone; finding it now keeps ``redact(redact(x)) == redact(x)``."""
    found: list[tuple[int, int]] = []
    total = [0]  # digits in groups[:k]
    for group in groups:
        total.append(total[-1] + group.end() - group.start())
    # Without a word about calling nearby, only a piece starting with 0 (trunk or international
    # prefix) or made of 2-4 digit groups can be a number (``_Judge.is_phone``): skip the others.
    words = judge.words_between(groups[0].start(), groups[-1].end(), lo, hi)
    sizes = [group.end() - group.start() for group in groups]
    i = 0
    while i < len(groups):
        for j in range(min(len(groups), i + 15), i, -1):
            if not 6 <= total[j] - total[i] <= 15:  # no number holds that many digits
                continue
            if not (words or groups[i].group()[0] == "0" or (j - i >= 3 and _groupable(sizes[i:j]))):
                continue
            if judge.is_phone(groups[i].start(), groups[j - 1].end(), lo, hi):
                found.append((groups[i].start(), groups[j - 1].end()))
                i = j
                break
        else:
            i += 1
    return found


def _groupable(sizes: list[int]) -> bool:
    return all(2 <= size <= 4 for size in sizes) and any(size != 4 for size in sizes)


class _Judge:
    """Decides whether ``text[start:end]`` is a phone number (one per text: the regions and the
    words about calling are looked up once)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.regions: tuple[str, ...] | None = None
        self.words: list[tuple[int, int]] | None = None  # of the current window

    def words_between(self, start: int, end: int, lo: int, hi: int) -> bool:
        """Whether a word about calling stands near ``text[start:end]`` (inside window ``lo:hi``)."""
        if self.words is None:
            self.words = _phone_words(self.text, lo, hi)
        return any(
            start - _CONTEXT_BEFORE <= w_end and w_start <= end + _CONTEXT_AFTER
            for w_start, w_end in self.words
        )

    def called_right_before(self, start: int) -> bool:
        """Whether a verb of calling and at most two short words come right before ``start``."""
        lo = max(0, start - _SHORT_NUMBER_BEFORE)
        while lo > 0 and self.text[lo - 1].isalnum():  # never the end of a cut word ("st|ring")
            lo -= 1
        near = self.text[lo:start]
        if "[REDACTED:" in near:  # a marker's rule name is no word of the sentence
            near = MARKER.sub(lambda marker: " " * len(marker.group()), near)
        return _CALLED_SHORT.search(fold(near)) is not None

    def is_phone(self, start: int, end: int, lo: int, hi: int) -> bool:
        candidate = self.text[start:end]
        groups = _GROUP.findall(candidate)
        digits = sum(map(len, groups))
        if 3 <= digits <= 5 and len(groups) == 1 and candidate.isdigit():
            return (
                not _YEAR.fullmatch(candidate)
                and self.called_right_before(start)
                and not not_a_phone_by_context(self.text, start, end)
            )
        if not 6 <= digits <= 15 or _not_a_phone_shape(candidate, groups):
            return False
        if candidate[0] == "+" or candidate.startswith("(+") or candidate.startswith("00"):
            return digits >= 7 and international_possible(candidate)
        # "call me about order 202315": the noun names the number, not the verb (a number in a
        # phone number's own shape still is one, below).
        if self.words_between(start, end, lo, hi) and not names_a_record(self.text, start):
            return True
        if digits < 8:
            return False
        if self.regions is None:
            self.regions = _regions_for(self.text)
        return _national_shape(candidate, groups, digits, self.regions)


def _phone_words(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """Spans of the words about calling near the window ``lo:hi`` (one scan of the window's text,
    case-folded to the same length: a case-insensitive search costs three times as much)."""
    start, near = words_near(text, max(0, lo - _CONTEXT_BEFORE), hi + _CONTEXT_AFTER)
    return [(start + m.start(), start + m.end()) for m in _PHONE_WORDS.finditer(near)]


def words_near(text: str, lo: int, hi: int) -> tuple[int, str]:
    """``text[lo:hi]`` case-folded (same length) with redaction markers blanked, and where it starts:
    a marker's rule name ("phone_us", "us_ssn") is no word about the number next to it. A marker cut
    by ``lo`` or ``hi`` is taken whole (the stretch grows), so no piece of it is read either."""
    marker_start = text.rfind("[REDACTED:", max(0, lo - 52), lo + 9)
    if 0 <= marker_start < lo and text.find("]", marker_start) >= lo:
        lo = marker_start
    while lo > 0 and text[lo - 1].isalnum():  # nor the end of a word cut by ``lo`` ("tele|phone")
        lo -= 1
    marker_start = text.rfind("[REDACTED:", max(0, hi - 52), hi)  # a marker cut by ``hi``
    if marker_start >= 0:
        hi = max(hi, text.find("]", marker_start) + 1)
    while hi < len(text) and text[hi].isalnum():  # and a word cut by ``hi`` ("tel|ephone")
        hi += 1
    near = text[lo:hi]
    if "[REDACTED:" in near:
        near = MARKER.sub(lambda marker: " " * len(marker.group()), near)
    return lo, fold(near)


def _national_shape(candidate: str, groups: list[str], digits: int, regions: tuple[str, ...]) -> bool:
    """A national number without a word about calling: a trunk 0 and 8-12 digits, or 9-12 digits
    in three or more groups of 2-4 (not all of 4), whose length a region's plan allows."""
    after_trunk, plain = _lengths(regions)
    bare = candidate.lstrip("(")
    if bare[0] == "0":
        return 8 <= digits <= 12 and digits - 1 in after_trunk
    sizes = {len(g) for g in groups}
    if len(groups) >= 3 and sizes <= {2, 3, 4} and sizes != {4}:  # 4111-2222-3333 is an order number
        return 9 <= digits <= 12 and digits in plain
    return False


__all__ = ["LazyPattern", "PhoneRule", "international_possible", "words_near"]
