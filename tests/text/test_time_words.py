"""Time words in queries (text/time_words.py): one phrase per language and unit, the windows they
name, and the words that look like a time but are not one."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, date, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memwarden.text.time_words import parse_time_words

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)  # a Thursday
LAST_WEEK = (date(2026, 11, 23), date(2026, 11, 29))
YESTERDAY = (date(2026, 12, 2), date(2026, 12, 2))
TWO_DAYS_AGO = (date(2026, 12, 1), date(2026, 12, 1))
LAST_YEAR = (date(2025, 1, 1), date(2025, 12, 31))


def _window(query: str) -> tuple[date | None, date | None]:
    words = parse_time_words(query)
    assert words is not None, query
    window = words.window(NOW)
    return window.first, window.last


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("what did we decide last week", LAST_WEEK),
        ("geçen hafta ne konuştuk", LAST_WEEK),
        ("was haben wir letzte Woche beschlossen", LAST_WEEK),
        ("qué decidimos la semana pasada", LAST_WEEK),
        ("что мы решили на прошлой неделе", LAST_WEEK),
        ("τι αποφασίσαμε την περασμένη εβδομάδα", LAST_WEEK),
        ("ماذا قررنا الأسبوع الماضي", LAST_WEEK),
        ("हमने पिछले हफ़्ते क्या तय किया", LAST_WEEK),
        ("ce am decis săptămâna trecută", LAST_WEEK),
        ("chúng ta đã quyết định gì tuần trước", LAST_WEEK),
        ("上周我们决定了什么", LAST_WEEK),
        ("สัปดาห์ที่แล้วเราตัดสินใจอะไร", LAST_WEEK),
        ("the deploy yesterday", YESTERDAY),
        ("dünkü toplantı", YESTERDAY),
        ("gestern Abend", YESTERDAY),
        ("ayer", YESTERDAY),
        ("вчера", YESTERDAY),
        ("χθες", YESTERDAY),
        ("昨天的会议", YESTERDAY),
        ("เมื่อวานนี้", YESTERDAY),
        ("hôm qua", YESTERDAY),
        ("two days ago", TWO_DAYS_AGO),
        ("2 gün önce", TWO_DAYS_AGO),
        ("vor zwei Tagen", TWO_DAYS_AGO),
        ("hace 2 días", TWO_DAYS_AGO),
        ("два дня назад", TWO_DAYS_AGO),
        ("πριν από 2 μέρες", TWO_DAYS_AGO),
        ("منذ يومين", TWO_DAYS_AGO),
        ("2 दिन पहले", TWO_DAYS_AGO),
        ("acum 2 zile", TWO_DAYS_AGO),
        ("2 ngày trước", TWO_DAYS_AGO),
        ("两天前", TWO_DAYS_AGO),
        ("2 วันที่แล้ว", TWO_DAYS_AGO),
        ("last year", LAST_YEAR),
        ("geçen yıl", LAST_YEAR),
        ("去年", LAST_YEAR),
        ("πέρσι", LAST_YEAR),
        ("this morning", (date(2026, 12, 3), date(2026, 12, 3))),
        ("last month", (date(2026, 11, 1), date(2026, 11, 30))),
        ("3 years ago", (date(2023, 1, 1), date(2023, 12, 31))),
        ("in March 2023", (date(2023, 3, 1), date(2023, 3, 31))),
        ("on May 3, 2023", (date(2023, 5, 3), date(2023, 5, 3))),
        ("on 1 May, 2022", (date(2022, 5, 1), date(2022, 5, 1))),
        ("2023年5月3日", (date(2023, 5, 3), date(2023, 5, 3))),
        ("tháng 5 năm 2023", (date(2023, 5, 1), date(2023, 5, 31))),
        ("im Mai 2023", (date(2023, 5, 1), date(2023, 5, 31))),
        ("พฤษภาคม 2566", (date(2023, 5, 1), date(2023, 5, 31))),  # the Thai Buddhist era
        ("what happened in 2022", (date(2022, 1, 1), date(2022, 12, 31))),
    ],
)
def test_time_words_name_the_expected_days(query: str, expected: tuple[date, date]) -> None:
    assert _window(query) == expected


@pytest.mark.parametrize("query", ["in May", "im Mai", "en mayo", "в мае", "Mayıs'ta", "五月", "في مايو"])
def test_a_month_without_a_year_is_that_month_of_every_year(query: str) -> None:
    words = parse_time_words(query)
    assert words is not None
    window = words.window(NOW)
    assert window.month == 5
    assert window.contains(datetime(2019, 5, 20, tzinfo=UTC)) and not window.contains(NOW)


@pytest.mark.parametrize(
    "query",
    [
        "may I ask about the deploy",
        "this may break the build",
        "mai multe servere",  # Romanian "more"
        "a dus două echipe la mai mult de un meci",
        "am mai fost acolo",
        "martial arts classes",
        "what did Martin Luther write",  # not "mart" + a Turkish ending: vowel harmony says no
        "bu ayakkabı kimin",  # "this shoe", not "this month"
        "Mar del Plata trip",
        "what did we do recently",
        "a few weeks ago",
        "dünya kupası",
        "how long are logs kept",
        "कला प्रदर्शनी",  # "art exhibition": कल (yesterday) followed by a vowel sign is another word
    ],
)
def test_words_that_only_look_like_time_are_not_read_as_time(query: str) -> None:
    assert parse_time_words(query) is None


def test_why_shows_the_words_as_written_and_the_window() -> None:
    words = parse_time_words("What did we decide Last Week?")
    assert words is not None
    assert words.window(NOW).describe() == 'time: "Last Week" -> 2026-11-23..2026-11-29'
    month = parse_time_words("camping in June")
    assert month is not None and month.window(NOW).describe() == 'time: "June" -> June of any year'


def test_relative_words_count_from_the_anchor_given() -> None:
    words = parse_time_words("yesterday")
    assert words is not None and words.relative
    window = words.window(datetime(2023, 5, 9, tzinfo=UTC))
    assert (window.first, window.last) == (date(2023, 5, 8), date(2023, 5, 8))


@given(st.text(max_size=200))
def test_any_text_parses_without_error(text: str) -> None:
    words = parse_time_words(text)
    if words is not None:
        window = words.window(NOW)
        assert window.month is not None or (window.first is not None and window.first <= window.last)


def test_a_cold_query_compiles_only_the_patterns_its_words_point_at() -> None:
    """A one-shot search or hook compiles patterns in its own process: a query without time
    words compiles none (not for "the", nor "December" for "decide", nor the German "Mai" for
    "email"), and one with them only the kind of pattern (relative phrases, "N units ago",
    month names) of the language its words point at."""
    from memwarden.text import time_word_patterns

    for query in ("where do the invoices go", "please email the client", "What did we decide?"):
        time_word_patterns._compiled.cache_clear()
        assert parse_time_words(query) is None
        assert time_word_patterns._compiled.cache_info().currsize == 0, query
    time_word_patterns._compiled.cache_clear()
    found = parse_time_words("was haben wir letzte Woche beschlossen")
    assert found is not None and found.unit == "week" and found.offset == -1
    assert time_word_patterns._compiled.cache_info().currsize == 1


def test_a_query_without_time_words_loads_no_time_word_table() -> None:
    code = (
        "import sys; from memwarden.text.time_words import parse_time_words; "
        "assert parse_time_words('What did we decide about the client email?') is None; "
        "print(sorted({'memwarden.text.time_word_tables', 'memwarden.text.time_word_patterns'} & set(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split() == ["[]"]


def test_bu_ay_is_this_month_though_its_words_are_short() -> None:
    words = parse_time_words("bu ay ne yaptık")
    assert words is not None
    assert (words.unit, words.offset) == ("month", 0)


def _table_words() -> dict[str, list[str]]:
    """Each language's words as its time-word tables write them, with a few numbers and
    everyday words."""
    import re

    from memwarden.text.time_word_tables import LANGUAGES

    plain = re.compile(r"\\.|\[[^\]]*\]|\(\?P<\w+>|\{\w+\}")
    words: dict[str, list[str]] = {}
    for name, lang in LANGUAGES.items():
        found: set[str] = set(lang.numbers)
        for pattern in [p for p, _, _ in lang.fixed] + [lang.ago, *lang.months, lang.prepositions]:
            found.update(re.findall(r"[^\W\d_]+", plain.sub(" ", pattern)))
        words[name] = sorted(found) + ["2", "3", "12", "2023", "the", "in", "email", "decide", "x"]
    return words


TABLE_WORDS = _table_words()
QUERIES_OF_TABLE_WORDS = st.sampled_from(sorted(TABLE_WORDS)).flatmap(
    lambda name: st.lists(st.sampled_from(TABLE_WORDS[name]), min_size=1, max_size=5)
)


@given(QUERIES_OF_TABLE_WORDS, st.sampled_from([" ", "  ", ", ", "-", ""]))
def test_the_words_a_pattern_needs_never_hide_a_time_expression(words: list[str], gap: str) -> None:
    """Skipping the patterns a query's words do not point at changes no answer: the same
    queries read with every pattern run find the same time words."""
    from memwarden.text import time_word_patterns, time_words

    query = gap.join(words)
    checked = parse_time_words(query)
    keys, screen = time_word_patterns._keys, time_words.may_name_a_time
    try:
        time_word_patterns._keys = lambda name, part: None  # type: ignore[assignment]
        time_words.may_name_a_time = lambda text: True
        every_pattern = parse_time_words(query)
    finally:
        time_word_patterns._keys = keys  # type: ignore[assignment]
        time_words.may_name_a_time = screen
    assert checked == every_pattern


def test_the_table_of_required_words_is_what_the_patterns_give() -> None:
    from memwarden.text.time_word_keys import derived_table, table_source
    from memwarden.text.time_word_tables import LANGUAGES
    from memwarden.text.time_words import ALWAYS_READ_SCRIPTS, REQUIRED_WORDS

    derived = derived_table()
    assert derived == REQUIRED_WORDS, (
        "a time-word pattern changed: replace REQUIRED_WORDS in text/time_word_core.py with\n"
        + table_source(derived)
    )
    unscreened = {
        lang.script
        for name, lang in LANGUAGES.items()
        if not lang.spaced or any(derived[name, part] is None for part in ("fixed", "ago", "months"))
    }
    assert unscreened == ALWAYS_READ_SCRIPTS


@pytest.mark.parametrize(
    ("pattern", "words"),
    [
        (r"(?:the\s+)?day\s+before\s+yesterday", ("yesterday",)),
        (r"(?P<n>{n})\s+(?P<unit>days?|weeks?)\s+ago", ("ago",)),
        (r"days?|weeks?", ("day", "week")),
        (r"(?:letzte|vorige)[nrs]?\s+woche", ("letzte", "vorige")),
        (r"(?:last|past)\s+weekend", ("weekend",)),
        (r"(?:letzte|vorige)[nrs]?", ("letzte", "vorige")),
        (r"dün(?:kü)?|dün\s+gece", ("dün", "gece")),
        (r"(?:ال)?[أا]سبوع", None),  # its only word follows a class: it may go on a longer word
        (r"x|(?:y)?", None),  # a way through it with no word
        (r"azi-dimineață", ("dimineață",)),
        (r"ма[йяе]", ("ма",)),
        (r"a(?=b)c", ("a",)),
    ],
)
def test_required_words_are_the_words_every_match_starts_a_word_with(
    pattern: str, words: tuple[str, ...] | None
) -> None:
    from memwarden.text.time_word_keys import required_words

    assert required_words(pattern) == words
