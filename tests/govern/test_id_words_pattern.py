"""The words naming an identity number are searched with one pattern grouped by first character
(``pii_national_ids._by_first_character``, a speed-up only): it finds exactly the words, at the
same spans, that the plain alternation of ``_ID_WORDS`` in their listed order finds."""

from __future__ import annotations

import re

import pytest
from evasion_cases import build_cases
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.govern_corpora import benign_corpus, hostile_corpus, precision_corpus
from memwarden.govern import pii_national_ids as ids
from memwarden.govern.scopes import fold

# The reference: every word as listed, spaced words at a word start, glued words anywhere.
PLAIN = re.compile(rf"\b(?:{'|'.join(ids._SPACED_WORDS)})|(?:{'|'.join(ids._GLUED_WORDS)})")
# Pieces of the words themselves, so generated text meets them often, cut and glued to others.
PIECES = sorted({piece for word in ids._ID_WORDS for piece in re.findall(r"[^\W\d_]+", word)})


def _same(text: str) -> None:
    folded = fold(text)
    expected = [m.span() for m in PLAIN.finditer(folded)]
    assert [m.span() for m in ids._ID_WORD.finditer(folded)] == expected, text
    # The scan the rules use (``id_words``), on the whole text and between two offsets.
    assert list(ids.id_words(folded)) == expected, text
    lo, hi = len(folded) // 3, len(folded) - len(folded) // 4
    between = [m.span() for m in PLAIN.finditer(folded, lo, hi)]
    assert list(ids.id_words(folded, lo, hi)) == between, (text, lo, hi)


def test_grouped_words_equal_the_plain_alternation_on_every_corpus() -> None:
    texts = [case.text for case in build_cases()]
    texts += [text for _, text in precision_corpus() + hostile_corpus() + benign_corpus()]
    assert len(texts) > 1000
    for text in texts:
        _same(text)


def test_overlapping_words_keep_the_listed_order() -> None:
    # "id card number" is one word ("id ... card ... number"), not "id card" and a number.
    assert [m.group() for m in ids._ID_WORD.finditer("her id card number is")] == ["id card number"]
    # A word inside another word is not a word start ("kid card" holds no "id card").
    assert list(ids._ID_WORD.finditer("kid card 5")) == []
    assert [m.group() for m in ids._ID_WORD.finditer("我的身份证号码")] == ["身份证"]
    # A word right after another ending in punctuation, at the start, and after an underscore.
    assert list(ids.id_words("tin no.passport")) == [(0, 7), (7, 15)]
    assert list(ids.id_words("x_passport ssn")) == [(11, 14)]
    assert list(ids.id_words("ssn 护照", 1)) == [(4, 6)]


def test_a_leading_group_must_not_be_optional() -> None:
    with pytest.raises(ValueError, match="must not be optional"):
        ids._alternatives(r"(?:nic|nik)?\b")


words_and_noise = st.lists(
    st.one_of(
        st.sampled_from(PIECES),
        st.sampled_from([" ", "", "-", "'", "_", "1", "\n", "é", "x", "身份证", "[REDACTED:phone]"]),
        st.text(max_size=3),
    ),
    max_size=30,
).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words_and_noise)
def test_grouped_words_equal_the_plain_alternation_on_generated_text(text: str) -> None:
    _same(text)
