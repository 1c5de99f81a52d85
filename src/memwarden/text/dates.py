"""Relative time words resolved into dates, so "what did Ana do in May 2023" finds
"yesterday Ana ran a charity race" said on 9 May 2023.

``resolve_dates(text, when, languages)`` finds expressions such as "yesterday", "last week",
"3 years ago", "next month" (English) or "dün", "geçen hafta", "3 yıl önce", "gelecek ay"
(Turkish) and returns the dates they name relative to ``when`` (the memory's ``occurred_at``),
written as words in every configured language that has month names here: a day as
"8 May 2023 8 Mayıs 2023", a week as the days' month and year, a month as "April 2023", a year
as "2022". The keyword index holds these words beside the memory's own (they are never shown
and never change the content); the query side needs nothing special, because a query that
names a date already holds the same words.

Only English and Turkish have rules here. Text in other configured languages is not resolved
(docs/search.md says so); a language is added by giving it a ``_Rules`` entry below.
Expressions that name no fixed span ("recently", "the other day", "a few weeks ago") are left
alone: a wrong date would mislead more than no date.
"""

import functools
import re
from collections.abc import Iterable
from datetime import date, datetime, timedelta
from typing import NamedTuple

from memwarden.text.normalize import fold_case, fold_case_turkish

MONTHS = {
    "english": (
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ),
    "turkish": (
        "Ocak",
        "Şubat",
        "Mart",
        "Nisan",
        "Mayıs",
        "Haziran",
        "Temmuz",
        "Ağustos",
        "Eylül",
        "Ekim",
        "Kasım",
        "Aralık",
    ),
}
_NUMBERS = {
    "english": {
        "a": 1,
        "an": 1,
        "one": 1,
        "two": 2,
        "three": 3,
        "four": 4,
        "five": 5,
        "six": 6,
        "seven": 7,
        "eight": 8,
        "nine": 9,
        "ten": 10,
        "eleven": 11,
        "twelve": 12,
        "couple of": 2,
    },
    "turkish": {
        "bir": 1,
        "iki": 2,
        "üç": 3,
        "dört": 4,
        "beş": 5,
        "altı": 6,
        "yedi": 7,
        "sekiz": 8,
        "dokuz": 9,
        "on": 10,
    },
}
_WEEKDAYS = {
    "english": ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    "turkish": ("pazartesi", "salı", "çarşamba", "perşembe", "cuma", "cumartesi", "pazar"),
}
#: At most this many resolved spans per text: a long memory full of time words stays bounded.
MAX_SPANS = 8


class Span(NamedTuple):
    """A resolved period: ``unit`` is day, week, month or year; ``start`` its first day."""

    unit: str
    start: date


class _Rules(NamedTuple):
    fixed: dict[str, tuple[str, int]]  # phrase -> (unit, offset)
    last: str  # words before a unit or weekday meaning "the previous one"
    this: str
    next: str
    units: dict[str, str]  # word -> unit
    ago: str  # regex of "N <unit> ago"
    later: str  # regex of "in N <unit>"


_RULES = {
    "english": _Rules(
        fixed={
            "day before yesterday": ("day", -2),
            "yesterday": ("day", -1),
            "last night": ("day", -1),
            "today": ("day", 0),
            "tonight": ("day", 0),
            "this morning": ("day", 0),
            "this afternoon": ("day", 0),
            "this evening": ("day", 0),
            "day after tomorrow": ("day", 2),
            "tomorrow": ("day", 1),
            "last weekend": ("weekend", -1),
            "this weekend": ("weekend", 0),
            "next weekend": ("weekend", 1),
        },
        last="last|past|previous",
        this="this",
        next="next|coming",
        units={
            "day": "day",
            "days": "day",
            "week": "week",
            "weeks": "week",
            "month": "month",
            "months": "month",
            "year": "year",
            "years": "year",
        },
        ago=r"(?P<n>\d+|{numbers})\s+(?P<unit>days?|weeks?|months?|years?)\s+ago",
        later=r"in\s+(?P<n>\d+|{numbers})\s+(?P<unit>days?|weeks?|months?|years?)",
    ),
    "turkish": _Rules(
        fixed={
            "evvelsi gün": ("day", -2),
            "önceki gün": ("day", -2),
            "dün gece": ("day", -1),
            "dün": ("day", -1),
            "bugün": ("day", 0),
            "bu sabah": ("day", 0),
            "bu akşam": ("day", 0),
            "yarın": ("day", 1),
            "öbür gün": ("day", 2),
            "geçen hafta sonu": ("weekend", -1),
            "bu hafta sonu": ("weekend", 0),
        },
        last="geçen|geçtiğimiz",
        this="bu",
        next="gelecek|önümüzdeki|haftaya",
        units={"gün": "day", "hafta": "week", "ay": "month", "yıl": "year", "sene": "year"},
        ago=r"(?P<n>\d+|{numbers})\s+(?P<unit>gün|hafta|ay|yıl|sene)\s+(?:önce|evvel)",
        later=r"(?P<n>\d+|{numbers})\s+(?P<unit>gün|hafta|ay|yıl|sene)\s+sonra",
    ),
}
_TURKISH_UNITS = {"gün": "day", "hafta": "week", "ay": "month", "yıl": "year", "sene": "year"}


def _shift(start: date, unit: str, n: int) -> Span:
    if unit == "day":
        return Span("day", start + timedelta(days=n))
    if unit == "week":
        monday = start - timedelta(days=start.weekday())
        return Span("week", monday + timedelta(weeks=n))
    if unit == "weekend":
        saturday = start + timedelta(days=5 - start.weekday())
        if start.weekday() == 6 and n == 0:
            saturday = start - timedelta(days=1)
        return Span("weekend", saturday + timedelta(weeks=n))
    if unit == "month":
        months = start.year * 12 + start.month - 1 + n
        return Span("month", date(months // 12, months % 12 + 1, 1))
    return Span("year", date(start.year + n, 1, 1))


def _weekday(start: date, weekday: int, direction: int) -> Span:
    """The weekday before (direction -1) or after (+1) ``start``, never ``start`` itself."""
    delta = (start.weekday() - weekday) % 7 or 7
    if direction < 0:
        return Span("day", start - timedelta(days=delta))
    return Span("day", start + timedelta(days=(weekday - start.weekday()) % 7 or 7))


def _number(word: str, language: str) -> int | None:
    if word.isdigit():
        return int(word)
    return _NUMBERS[language].get(word)


@functools.cache
def _patterns(language: str) -> list[tuple[re.Pattern[str], str]]:
    """The date patterns of one language, compiled whole on first use (a cold CLI search
    compiles only the languages its text needs)."""
    rules = _RULES[language]
    numbers = "|".join(sorted((re.escape(k) for k in _NUMBERS[language]), key=len, reverse=True))
    units = "|".join(sorted(rules.units, key=len, reverse=True))
    weekdays = "|".join(_WEEKDAYS[language])
    fixed = "|".join(sorted((re.escape(k) for k in rules.fixed), key=len, reverse=True))
    return [
        (re.compile(rf"\b(?:{rules.ago.format(numbers=numbers)})\b"), "ago"),
        (re.compile(rf"\b(?:{rules.later.format(numbers=numbers)})\b"), "later"),
        (
            re.compile(
                rf"\b(?P<which>{rules.last}|{rules.this}|{rules.next})\s+(?P<unit>{units}|{weekdays})\b"
            ),
            "relative",
        ),
        (re.compile(rf"\b(?P<fixed>{fixed})\b"), "fixed"),
    ]


def _spans_in(text: str, start: date, language: str) -> Iterable[tuple[int, Span]]:
    rules = _RULES[language]
    lowered = fold_case_turkish(text) if language == "turkish" else fold_case(text)
    taken: list[tuple[int, int]] = []
    for pattern, kind in _patterns(language):
        for match in pattern.finditer(lowered):
            if any(a < match.end() and match.start() < b for a, b in taken):
                continue  # "last week" inside "the day before yesterday" style overlaps
            span = _resolve(match, kind, start, language, rules)
            if span is not None:
                taken.append(match.span())
                yield match.start(), span


def _resolve(match: re.Match[str], kind: str, start: date, language: str, rules: _Rules) -> Span | None:
    groups = match.groupdict()
    if kind == "fixed":
        unit, offset = rules.fixed[groups["fixed"]]
        return _shift(start, unit, offset)
    if kind in ("ago", "later"):
        n = _number(groups["n"], language)
        step = rules.units.get(groups["unit"]) or _TURKISH_UNITS.get(groups["unit"])
        if n is None or step is None or n > 200:
            return None
        return _shift(start, step, -n if kind == "ago" else n)
    which, word = groups["which"], groups["unit"]
    direction = -1 if re.fullmatch(rules.last, which) else (1 if re.fullmatch(rules.next, which) else 0)
    if word in _WEEKDAYS[language]:
        if direction == 0:
            monday = start - timedelta(days=start.weekday())
            return Span("day", monday + timedelta(days=_WEEKDAYS[language].index(word)))
        return _weekday(start, _WEEKDAYS[language].index(word), direction)
    return _shift(start, rules.units[word], direction)


def _words(span: Span, languages: Iterable[str]) -> list[str]:
    names = [MONTHS[lang] for lang in languages if lang in MONTHS] or [MONTHS["english"]]
    if span.unit == "year":
        return [str(span.start.year)]
    if span.unit == "month":
        return [f"{months[span.start.month - 1]} {span.start.year}" for months in names]
    if span.unit in ("week", "weekend"):
        days = 7 if span.unit == "week" else 2
        seen: list[str] = []
        for offset in range(days):
            day = span.start + timedelta(days=offset)
            for months in names:
                words = f"{months[day.month - 1]} {day.year}"
                if words not in seen:
                    seen.append(words)
        return seen
    return [f"{span.start.day} {months[span.start.month - 1]} {span.start.year}" for months in names]


def resolve_dates(text: str, when: datetime, languages: Iterable[str]) -> str:
    """The dates the relative time words of ``text`` name, said at ``when``, as index words.

    Empty when ``text`` holds none (or only in languages without rules here).
    """
    wanted = [lang for lang in languages if lang in _RULES]
    found: list[tuple[int, Span]] = []
    for language in wanted:
        found.extend(_spans_in(text, when.date(), language))
    out: list[str] = []
    for _, span in sorted(found, key=lambda f: f[0])[:MAX_SPANS]:
        for words in _words(span, wanted):
            if words not in out:
                out.append(words)
    return " ".join(out)


__all__ = ["MAX_SPANS", "MONTHS", "Span", "resolve_dates"]
