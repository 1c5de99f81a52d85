"""What the time-word screen (``time_words``) and the patterns (``time_word_patterns``) share:
the values a time expression is read into (``Window``, ``TimeWords``), how a query is folded
before either reads it, and the words each pattern needs (``REQUIRED_WORDS``).

A module of its own so that the patterns, loaded only for a query that may name a time, import
nothing from the screen that loads them.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from datetime import date, datetime, timedelta

# Named in English in ``why`` (``calendar.month_name`` would import ``locale`` on every cold search
# and follow the process locale).
_MONTH_NAMES = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip


def month_days(year: int, month: int) -> int:
    """How many days ``month`` of ``year`` has."""
    following = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return (following - date(year, month, 1)).days


UNITS = ("day", "week", "weekend", "month", "year")
#: "N days ago" past this many units is read as no expression (a typo or a quantity).
MAX_AGO = 200


class Window:
    """The days a time expression names: ``first``..``last`` inclusive, or one month of every
    year (``month``, with ``first`` and ``last`` None).

    A plain class, not a named tuple (nor is ``TimeWords``): every cold search and hook
    defines it, and a named tuple's class costs several times as much to create
    (docs/performance.md#cold-start). Equal when their fields are."""

    __slots__ = ("first", "last", "month", "phrase")

    def __init__(self, phrase: str, first: date | None, last: date | None, month: int | None = None) -> None:
        self.phrase = phrase
        self.first = first
        self.last = last
        self.month = month

    def _values(self) -> tuple[object, ...]:
        return (self.phrase, self.first, self.last, self.month)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Window) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return "Window(phrase={!r}, first={!r}, last={!r}, month={!r})".format(*self._values())

    def with_phrase(self, phrase: str) -> Window:
        return Window(phrase, self.first, self.last, self.month)

    def contains(self, when: datetime) -> bool:
        if self.month is not None:
            return when.month == self.month
        assert self.first is not None and self.last is not None
        return self.first <= when.date() <= self.last

    def describe(self) -> str:
        """How ``why`` names the boost: ``time: "last week" -> 2026-11-23..2026-11-29``."""
        if self.month is not None:
            span = f"{_MONTH_NAMES[self.month - 1]} of any year"
        elif self.first == self.last:
            span = str(self.first)
        else:
            span = f"{self.first}..{self.last}"
        return f'time: "{self.phrase}" -> {span}'


class TimeWords:
    """A time expression found in a query. ``relative`` ones are counted from an anchor:
    ``unit`` and ``offset`` (-1: the previous one); absolute ones carry their window."""

    __slots__ = ("absolute", "offset", "phrase", "relative", "unit")

    def __init__(
        self, phrase: str, relative: bool, unit: str = "day", offset: int = 0, absolute: Window | None = None
    ) -> None:
        self.phrase = phrase
        self.relative = relative
        self.unit = unit
        self.offset = offset
        self.absolute = absolute

    def _values(self) -> tuple[object, ...]:
        return (self.phrase, self.relative, self.unit, self.offset, self.absolute)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TimeWords) and self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return "TimeWords(phrase={!r}, relative={!r}, unit={!r}, offset={!r}, absolute={!r})".format(
            *self._values()
        )

    def with_phrase(self, phrase: str) -> TimeWords:
        """The same expression as written ``phrase`` (its window's phrase too)."""
        absolute = None if self.absolute is None else self.absolute.with_phrase(phrase)
        return TimeWords(phrase, self.relative, self.unit, self.offset, absolute)

    def window(self, anchor: datetime) -> Window:
        if not self.relative:
            assert self.absolute is not None
            return self.absolute
        first, last = _span(anchor.date(), self.unit, self.offset)
        return Window(self.phrase, first, last)


def _span(day: date, unit: str, offset: int) -> tuple[date, date]:
    if unit == "day":
        at = day + timedelta(days=offset)
        return at, at
    if unit == "week":
        monday = day - timedelta(days=day.weekday()) + timedelta(weeks=offset)
        return monday, monday + timedelta(days=6)
    if unit == "weekend":
        saturday = day - timedelta(days=day.weekday()) + timedelta(days=5, weeks=offset)
        return saturday, saturday + timedelta(days=1)
    if unit == "month":
        months = day.year * 12 + day.month - 1 + offset
        year, month = divmod(months, 12)
        return date(year, month + 1, 1), date(year, month + 1, month_days(year, month + 1))
    return date(day.year + offset, 1, 1), date(day.year + offset, 12, 31)


# A year: 1900-2199, or 2400-2799 read as the Thai Buddhist era (543 years ahead): it begins
# with one of these (time_word_patterns._YEAR).
YEAR_STARTS = ("19", "20", "21", "24", "25", "26", "27")

#: The letters of each script the tables are written in (``Language.script``).
_SCRIPTS: dict[str, tuple[tuple[str, str], ...]] = {
    "latin": (("a", "z"), ("ß", "ɏ")),
    "cyrillic": (("\u0400", "\u04ff"),),
    "greek": (("\u0370", "\u03ff"),),
    "arabic": (("\u0600", "\u06ff"),),
    "devanagari": (("\u0900", "\u097f"),),
    "han": (("\u3400", "\u9fff"),),
    "thai": (("\u0e00", "\u0e7f"),),
}


@functools.cache
def cached_regex(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled on first use: a cold process (a one-shot search, the hook without
    the daemon) compiles only the patterns its query reaches."""
    return re.compile(pattern)


def scripts_of(text: str) -> set[str]:
    """The scripts of ``_SCRIPTS`` that ``text`` (folded) has letters of."""
    letters = set(text)
    return {
        name
        for name, ranges in _SCRIPTS.items()
        if any(low <= letter <= high for letter in letters for low, high in ranges)
    }


GREEK_PLAIN = str.maketrans("άέήίόύώϊϋΐΰς", "αεηιουωιυιυσ")  # casefold makes ς σ too
CEDILLA = str.maketrans("şţ", "șț")


def fold(text: str) -> str:
    """What the patterns are written against: NFKC, case folded, Greek without accents, the
    Romanian comma letters unified."""
    return unicodedata.normalize("NFKC", text).casefold().translate(GREEK_PLAIN).translate(CEDILLA)


# The words of each part (fixed, ago, months) of a spaced language, as
# ``time_word_keys.derived_table`` reads them in the patterns above (tests/text checks that it
# still does; ``python -m memwarden.text.time_word_keys`` prints it anew). A query none of whose
# words begins with one of a part's words skips that part; None: the part's patterns do not say
# (it is always run); "": a part without patterns.
REQUIRED_WORDS: dict[tuple[str, str], str | None] = {
    ("english", "fixed"): (
        "afternoon evening month morning night this today tonight week weekend year yesterday"
    ),
    ("english", "ago"): "ago",
    ("english", "months"): (
        "april august december february january july june march may november october sept september"
    ),
    ("turkish", "fixed"): "akșam bu bugün dün evvelsi gece geçen geçtiğimiz hafta sabah sene yıl önceki",
    ("turkish", "ago"): "evvel önce",
    ("turkish", "months"): (
        "aralık aralığ ağustos ekim eylül haziran kasım mart mayıs nisan ocak temmuz șubat"
    ),
    ("german", "fixed"): "diese gestern heuer heute letzte vergangene vorgestern vorige voriges wochenende",
    ("german", "ago"): "vor",
    ("german", "months"): (
        "april august dezember februar januar juli juni jänner mai märz november oktober september"
    ),
    ("spanish", "fixed"): "anoche anteayer antier ayer este hoy mañana noche pasado semana tarde última",
    ("spanish", "ago"): "hace",
    ("spanish", "months"): (
        "abril agosto diciembre enero febrero julio junio marzo mayo noviembre octubre septiembre setiembre"
    ),
    ("russian", "fixed"): "вчера выходн год месяц недел позавчера прошл сегодня",
    ("russian", "ago"): "назад",
    ("russian", "months"): "август апрел декабр июл июн ма март ноябр октябр сентябр феврал январ",
    ("greek", "fixed"): (
        "αυτο εβδομαδα περασμενη περασμενο περσι προηγουμενη προηγουμενο προχθεσ προχτεσ σημερα φετοσ "
        "χθεσ χτεσ"
    ),
    ("greek", "ago"): "πριν",
    ("greek", "months"): "απριλ αυγουστ δεκεμβρ ιανουαρ ιουλ ιουν μαι μαρτ νοεμβρ οκτωβρ σεπτεμβρ φεβρουαρ",
    ("arabic", "fixed"): None,
    ("arabic", "ago"): "قبل منذ",
    ("arabic", "months"): None,
    ("hindi", "fixed"): "आज इस कल छल",
    ("hindi", "ago"): "प पहल",
    ("hindi", "months"): "अक अगस अप ज जनवर तम नव नवम फरवर बर म मई रवर सम",
    ("romanian", "fixed"): (
        "alaltăieri anul aseară astăzi azi dimineața dimineață ieri luna săptămâna trecut trecută weekendul"
    ),
    ("romanian", "ago"): "acum",
    ("romanian", "months"): (
        "aprilie august decembrie februarie ianuarie iulie iunie mai martie noiembrie octombrie septembrie"
    ),
    ("vietnamese", "fixed"): "hôm năm sáng tháng tuần tối đêm",
    ("vietnamese", "ago"): "qua trước",
    ("vietnamese", "months"): "",
}


__all__ = [
    "CEDILLA",
    "GREEK_PLAIN",
    "MAX_AGO",
    "REQUIRED_WORDS",
    "UNITS",
    "YEAR_STARTS",
    "TimeWords",
    "Window",
    "cached_regex",
    "fold",
    "month_days",
    "scripts_of",
]
