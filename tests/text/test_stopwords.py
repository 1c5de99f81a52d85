"""The stopword lists are written in the folded form text is compared in, so a cold start
compares them without folding each word (``stopwords.as_compared``)."""

from __future__ import annotations

from memwarden.text.language_guess import _CANDIDATES
from memwarden.text.normalize import fold
from memwarden.text.stopwords import _LISTS, as_compared, stopwords_for


def test_every_stopword_compares_as_its_folded_form() -> None:
    words = [word for language in _LISTS for word in stopwords_for(language)]
    assert len(words) > 500
    assert all(as_compared(word) == fold(word) for word in words)


def test_ascii_stopwords_are_written_folded() -> None:
    # The shortcut in as_compared holds only while every ASCII word is already lower case.
    ascii_words = [word for language in _LISTS for word in stopwords_for(language) if word.isascii()]
    assert ascii_words and all(word == fold(word) and word.isalpha() for word in ascii_words)


def test_a_word_needing_a_fold_is_still_folded() -> None:
    assert as_compared("mı") == "mi"
    assert as_compared("ей") == fold("ей") != "ей"


def test_every_candidate_language_of_the_guess_has_a_list() -> None:
    assert all(stopwords_for(language) for language in _CANDIDATES)
