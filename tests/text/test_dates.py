"""Relative time words resolved against when they were said (text/dates.py)."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memwarden.text.analyzer import Analyzer
from memwarden.text.dates import MAX_SPANS, resolve_dates

SAID = datetime(2023, 5, 9, 13, 0)  # a Tuesday
BOTH = ("english", "turkish")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Yesterday I ran a charity race", "8 May 2023 8 Mayıs 2023"),
        ("the day before yesterday", "7 May 2023 7 Mayıs 2023"),
        ("we met 3 years ago", "2020"),
        ("a year ago", "2022"),
        ("last year", "2022"),
        ("next month I move to Lisbon", "June 2023 Haziran 2023"),
        ("two weeks ago", "April 2023 Nisan 2023"),
        ("see you next Friday", "12 May 2023 12 Mayıs 2023"),
        ("last Saturday was fun", "6 May 2023 6 Mayıs 2023"),
        ("in 3 days", "12 May 2023 12 Mayıs 2023"),
        ("Dün koşuya gittim", "8 May 2023 8 Mayıs 2023"),
        ("3 yıl önce tanıştık", "2020"),
        ("gelecek ay taşınıyorum", "June 2023 Haziran 2023"),
        ("GEÇEN HAFTA", "May 2023 Mayıs 2023"),
    ],
)
def test_relative_words_become_dates_in_each_language(text: str, expected: str) -> None:
    assert resolve_dates(text, SAID, BOTH) == expected


def test_a_week_across_two_months_names_both() -> None:
    assert resolve_dates("last week", datetime(2023, 6, 7), ("english",)) == "May 2023 June 2023"


def test_vague_or_absent_time_words_resolve_to_nothing() -> None:
    for text in ("recently we talked", "a few weeks ago", "the other day", "nothing to see", ""):
        assert resolve_dates(text, SAID, BOTH) == ""


def test_languages_without_rules_are_not_resolved() -> None:
    assert resolve_dates("yesterday", SAID, ("german",)) == ""
    assert resolve_dates("yesterday", SAID, ("english",)) == "8 May 2023"


def test_a_query_naming_the_month_meets_the_resolved_words() -> None:
    analyzer = Analyzer()
    index = set(analyzer.index_text(resolve_dates("yesterday I ran", SAID, analyzer.languages)).split())
    assert set(analyzer.query("what did she do in May 2023").terms) & index >= {"2023"}
    assert {"may", "2023"} <= index


@given(st.text(max_size=300))
def test_any_text_resolves_without_error_and_stays_bounded(text: str) -> None:
    out = resolve_dates(text, SAID, BOTH)
    assert len(out.split()) <= MAX_SPANS * 2 * 7 * 3
