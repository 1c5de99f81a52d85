"""Time words in search queries: "last week", "yesterday", "in May", "geçen hafta", "上周".

``parse_time_words(query)`` finds the first time expression of a query, in any of the twelve
XQuAD languages (English, Turkish, German, Spanish, Russian, Greek, Arabic, Hindi, Romanian,
Vietnamese, Chinese, Thai), and ``TimeWords.window(anchor)`` turns it into the days it names:

- relative words ("yesterday", "last week", "two days ago", "this year") count from ``anchor``;
- a month with a year ("May 2023", "3 May 2023", "2023年5月") or a year alone ("in 2022") is
  absolute;
- a month without a year ("in May", "im Mai", "5月") names that month of **every** year: which
  year the asker means is unknown, and recency already favours the latest one.

The search ranking adds a boost to memories whose ``occurred_at`` falls in the window
(search/ranking.py); it is never a filter. This is word tables (``time_word_tables``) and
regular expressions (``time_word_patterns``), written here rather than a general date parser:
it runs on every query, including the prompt hook's. So a query is first screened here: only
one with a word some pattern starts a word with (``REQUIRED_WORDS``), a letter of a script the
words cannot screen, a year's digits or "tháng" loads the tables, and only the patterns its
words point at are compiled. Words that name no fixed span
("recently", "a few weeks ago") are left alone; so are words that are a month only in some
sentences ("may", "march" in English and "mai" in Romanian count only next to a day, a year or
a preposition such as "in").
"""

from __future__ import annotations

import functools

from memwarden.text.time_word_core import (
    MAX_AGO,
    REQUIRED_WORDS,
    UNITS,
    YEAR_STARTS,
    TimeWords,
    Window,
    cached_regex,
    fold,
    scripts_of,
)

# Scripts whose patterns no word screens (written without spaces, or with a part whose words
# may go on longer words): a query with a letter of one is always read.
ALWAYS_READ_SCRIPTS = frozenset({"arabic", "han", "thai"})


@functools.cache
def _screen_words() -> tuple[str, ...]:
    """Every word of ``REQUIRED_WORDS``: a query word that begins with none wakes no part."""
    return tuple(sorted({word for words in REQUIRED_WORDS.values() if words for word in words.split()}))


def may_name_a_time(text: str) -> bool:
    """False when no pattern can match the folded ``text`` (see the module docstring)."""
    if "tháng" in text or any(start in text for start in YEAR_STARTS):
        return True
    if not text.isascii() and not scripts_of(text).isdisjoint(ALWAYS_READ_SCRIPTS):
        return True
    screen = _screen_words()
    return any(word.startswith(screen) for word in cached_regex(r"\w+").findall(text))


def parse_time_words(query: str) -> TimeWords | None:
    """The first time expression of ``query`` (see the module docstring), or None.

    Where two readings overlap ("3 tháng trước" holds "tháng trước"), the longer one wins. A
    year alone ("in 2022") counts only when nothing else is found.
    """
    text = fold(query)
    if not may_name_a_time(text):
        return None
    from memwarden.text.time_word_patterns import find_time_words

    return find_time_words(query, text)


__all__ = ["MAX_AGO", "REQUIRED_WORDS", "UNITS", "TimeWords", "Window", "parse_time_words"]
