"""The regular expressions of the time-word tables, and the search of a query for them.

``time_words.parse_time_words`` screens a query and, when it may name a time, hands it here
(``find_time_words``): each language's patterns of three kinds (``PARTS``: relative phrases,
"N units ago", month names) are compiled from ``time_word_tables`` on first use, and only those
the query's words point at (``time_word_core.REQUIRED_WORDS``), so a cold process compiles what its
query needs.
"""

import functools
import re
import unicodedata
from collections.abc import Iterator
from datetime import date

from memwarden.text.time_word_core import (
    CEDILLA,
    GREEK_PLAIN,
    MAX_AGO,
    REQUIRED_WORDS,
    YEAR_STARTS,
    TimeWords,
    Window,
    cached_regex,
    fold,
    month_days,
    scripts_of,
)
from memwarden.text.time_word_tables import LANGUAGES

_CHINESE_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5}
_CHINESE_DIGITS |= {"六": 6, "七": 7, "八": 8, "九": 9}
_CHINESE_NUMBER = r"\d+|[〇零一二两兩三四五六七八九十]{1,3}"
_CHINESE_MONTH = (
    r"(?:(?P<y>\d{4}|[〇零一二三四五六七八九]{4})\s*年\s*)?(?P<m>\d{1,2}|十[一二]?|[一二三四五六七八九])\s*月"
    r"(?:\s*(?P<d>\d{1,2}|[一二三]?十[一二三四五六七八九]?|[一二三四五六七八九])\s*[日号號])?"
)
_NUMBERED_MONTH = r"(?<!\w)tháng\s+(?P<m>\d{1,2})(?:\s*(?:năm\s+|/)(?P<y>\d{4}))?(?!\w)"
# A year: 1900-2199, or 2400-2799 read as the Thai Buddhist era (543 years ahead).
_YEAR = r"(?<!\d)(?P<y>19\d\d|2[01]\d\d|2[4-7]\d\d)(?!\d)"
_DAY = r"(?P<d>[0-3]?\d)(?:st|nd|rd|th|\.)?"
# A day just before a month word ("3 May", "3 de mayo"), just after it ("May 3", not "May 3:30"),
# and a year after either ("May 3, 2023", "mayo de 2023").
_DAY_BEFORE = rf"(?<!\d){_DAY}\s*(?:de\s+|of\s+|the\s+)?$"
_DAY_AFTER = rf"\s*(?:the\s+)?{_DAY}(?!\d)(?!\s*:)"
_YEAR_AFTER = r"[\s,./-]*(?:de\s+|del\s+|of\s+)?(?<!\d)(?P<y>19\d\d|2[01]\d\d|2[4-7]\d\d)(?!\d)"


def _chinese_number(text: str) -> int | None:
    if text.isdigit():
        return int(text)
    if "十" in text:  # 十 10, 十二 12, 二十 20, 二十三 23
        tens, _, ones = text.partition("十")
        if (tens and tens not in _CHINESE_DIGITS) or (ones and ones not in _CHINESE_DIGITS):
            return None
        return _CHINESE_DIGITS.get(tens, 1) * 10 + _CHINESE_DIGITS.get(ones, 0)
    if len(text) == 4:  # a year written digit by digit: 二〇二三
        return int("".join(str(_CHINESE_DIGITS.get(c, 0)) for c in text))
    return _CHINESE_DIGITS.get(text)


def _year(value: int) -> int:
    return value - 543 if value > 2400 else value


# What continues a word: \w, and the combining marks \w leaves out (Devanagari vowel signs, Arabic
# harakat), so "कल" (yesterday) is not read inside "कला" (art).
_WORD_GOES_ON = r"[\w\u0300-\u036f\u064b-\u065f\u0900-\u097f]"


def _bounded(pattern: str, spaced: bool) -> str:
    if not spaced:
        return f"(?:{pattern})"
    return rf"(?<!{_WORD_GOES_ON})(?:{pattern})(?!{_WORD_GOES_ON})"


# The three kinds of pattern a language has; each is compiled, and looked for, on its own.
PARTS = ("fixed", "ago", "months")


def _as_compiled(pattern: str) -> str:
    """A table's pattern as it is compiled: written as a user types it, folded like the text
    (accents, final sigma, NFKC nukta)."""
    return unicodedata.normalize("NFKC", pattern).translate(GREEK_PLAIN).translate(CEDILLA)


@functools.cache
def _compiled(name: str, part: str) -> re.Pattern[str] | None:
    """One of a language's patterns (``PARTS``: relative phrases, "N units ago", month names),
    compiled on first use; None for a language without month names."""
    lang = LANGUAGES[name]
    if part == "fixed":
        pattern = "|".join(f"(?P<f{i}>{p})" for i, (p, _, _) in enumerate(lang.fixed))
    elif part == "ago":
        numbers = "|".join(sorted((re.escape(k) for k in _numbers(name)), key=len, reverse=True))
        n = rf"\d+|{numbers}" if numbers else (_CHINESE_NUMBER if name == "chinese" else r"\d+")
        pattern = lang.ago.format(n=n)
    else:
        months = "|".join(f"(?P<m{i}>{p})" for i, p in enumerate(lang.months))
        if not months:
            return None
        pattern = f"(?:{months}){lang.month_suffix}"
    return re.compile(_bounded(_as_compiled(pattern), lang.spaced))


@functools.cache
def _keys(name: str, part: str) -> tuple[str, ...] | None:
    """Words one of which begins a word of every text a part of a spaced language matches
    (``time_word_tables.REQUIRED_WORDS``); None when the part's patterns do not say (it is
    always run), none for a part without patterns (Vietnamese month names: they are numbered)."""
    words = REQUIRED_WORDS.get((name, part)) if LANGUAGES[name].spaced else None
    return None if words is None else tuple(words.split())


def _pattern(words: list[str], name: str, part: str) -> re.Pattern[str] | None:
    """The part's pattern when a text of these ``words`` (its runs of \\w) may match it, else
    None: a cold process (a one-shot search, the hook without the daemon) compiles and runs
    only the parts its query's words point at ("last week" wakes the English relative
    phrases; "email" wakes no German "Mai", "decide" no "December")."""
    keys = _keys(name, part)
    if keys is not None and not any(word.startswith(keys) for word in words):
        return None
    return _compiled(name, part)


@functools.cache
def _numbers(name: str) -> dict[str, int]:
    return {fold(word): value for word, value in LANGUAGES[name].numbers.items()}


def _ago(match: re.Match[str], name: str) -> TimeWords | None:
    lang = LANGUAGES[name]
    raw, word = match.group("n"), match.group("unit")
    if raw is None:  # "неделю назад", "منذ يومين": the unit word says one (or two, a dual)
        count = 2 if name == "arabic" and word.endswith(("ين", "تين")) else 1
    elif name == "chinese":
        count = _chinese_number(raw) or 0
    else:
        count = int(raw) if raw.isdigit() else _numbers(name).get(raw, 0)
    unit = next((u for prefix, u in lang.units if word.startswith(fold(prefix))), None)
    if unit is None or not 0 < count <= MAX_AGO:
        return None
    return TimeWords(match.group(0).strip(), True, unit, -count)


def _absolute(phrase: str, month: int, year: int | None, day: int | None) -> TimeWords | None:
    if not 1 <= month <= 12:
        return None
    if year is None:
        return TimeWords(phrase, False, absolute=Window(phrase, None, None, month))
    last_day = month_days(year, month)
    if day is not None and 1 <= day <= last_day:
        at = date(year, month, day)
        return TimeWords(phrase, False, absolute=Window(phrase, at, at))
    return TimeWords(
        phrase, False, absolute=Window(phrase, date(year, month, 1), date(year, month, last_day))
    )


def _month_name(text: str, match: re.Match[str], name: str) -> TimeWords | None:
    """A month word, with the day just before or after it and a year near it, if any."""
    lang = LANGUAGES[name]
    month = next(int(k[1:]) + 1 for k, v in match.groupdict().items() if v is not None)
    lead = max(0, match.start() - 8)
    day_before = cached_regex(_DAY_BEFORE).search(text[lead : match.start()])
    day_after = cached_regex(_DAY_AFTER).match(text, match.end())
    year = cached_regex(_YEAR_AFTER).match(text, day_after.end() if day_after is not None else match.end())
    if month in lang.ambiguous_months and day_before is None and day_after is None and year is None:
        word_before = re.search(r"(\w+)\W*$", text[: match.start()])
        if word_before is None or not re.fullmatch(lang.prepositions, word_before.group(1)):
            return None  # "may" as a verb, "mai" as "more"
    day_match = day_after or day_before
    day = int(day_match.group("d")) if day_match is not None else None
    first = lead + day_before.start() if day_before is not None and day_after is None else match.start()
    last = max(match.end(), day_after.end() if day_after else 0, year.end() if year else 0)
    return _absolute(text[first:last].strip(), month, _year(int(year.group("y"))) if year else None, day)


def _candidates(text: str) -> Iterator[tuple[int, int, TimeWords]]:
    """Every time expression found, as (start, priority, words); the caller keeps the first."""
    scripts = scripts_of(text)
    words = cached_regex(r"\w+").findall(text)
    for name, lang in LANGUAGES.items():
        if lang.script not in scripts:
            continue  # patterns compile only for the scripts queries use: cold starts stay short
        ago = _pattern(words, name, "ago")
        for match in ago.finditer(text) if ago is not None else ():
            found = _ago(match, name)
            if found is not None:
                yield match.start(), 0, found
        fixed = _pattern(words, name, "fixed")
        for match in fixed.finditer(text) if fixed is not None else ():
            index = next(int(k[1:]) for k, v in match.groupdict().items() if v is not None)
            _, unit, offset = lang.fixed[index]
            yield match.start(), 1, TimeWords(match.group(0).strip(), True, unit, offset)
        months = _pattern(words, name, "months")
        if months is not None:
            for match in months.finditer(text):
                found = _month_name(text, match, name)
                if found is not None:
                    yield match.start(), 2, found
    # Each of the two patterns below holds its month word as written: no word, no search.
    for match in cached_regex(_CHINESE_MONTH).finditer(text) if "月" in text else ():
        y, m, d = match.group("y"), match.group("m"), match.group("d")
        found = _absolute(
            match.group(0),
            _chinese_number(m) or 0,
            _year(_chinese_number(y) or 0) if y else None,
            _chinese_number(d) if d else None,
        )
        if found is not None:
            yield match.start(), 2, found
    for match in cached_regex(_NUMBERED_MONTH).finditer(text) if "tháng" in text else ():
        found = _absolute(
            match.group(0), int(match.group("m")), int(match.group("y")) if match.group("y") else None, None
        )
        if found is not None:
            yield match.start(), 2, found


def find_time_words(query: str, text: str) -> TimeWords | None:
    """``time_words.parse_time_words`` of ``query``, folded as ``text``."""
    found = sorted(_candidates(text), key=lambda c: (c[0], -len(c[2].phrase), c[1]))
    # The longest reading at the earliest position; a shorter one starting inside it is part of it.
    best: tuple[int, int, TimeWords] | None = None
    for start, priority, words in found:
        if best is None:
            best = (start, priority, words)
            continue
        best_start, _, best_words = best
        if start < best_start + len(best_words.phrase) and len(words.phrase) > len(best_words.phrase):
            best = (start, priority, words)
    if best is not None:
        return _as_written(query, text, best[0], best[2])
    if not any(start in text for start in YEAR_STARTS):  # no year's digits: nothing to compile
        return None
    year = cached_regex(_YEAR).search(text)
    if year is None:
        return None
    value = _year(int(year.group("y")))
    return TimeWords(
        year.group(0), False, absolute=Window(year.group(0), date(value, 1, 1), date(value, 12, 31))
    )


def _as_written(query: str, text: str, start: int, words: TimeWords) -> TimeWords:
    """``words`` with the phrase as the query wrote it (the patterns read the folded text; when
    folding kept the length, as it nearly always does, positions are the same)."""
    at = text.find(words.phrase, max(0, start - 16))  # a day before a month starts the phrase early
    if len(text) != len(query) or at < 0:
        return words
    return words.with_phrase(query[at : at + len(words.phrase)])


__all__ = ["PARTS", "find_time_words"]
