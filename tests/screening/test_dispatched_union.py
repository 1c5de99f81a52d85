"""The yes-or-no search every write pays for (``any_view``) dispatches on a word's first letter.

``dispatched_union`` groups the alternatives that start at a word boundary by the letters they can
start with (read from the regex parser's tree by ``_first_chars``), so that at each word only the
alternatives that can start there are tried. It must find a match exactly where the plain
``union`` does, on hostile and ordinary text alike.
"""

from __future__ import annotations

import re

import pytest
from screening.test_fresh_families import BENIGN as FRESH_NOTES
from screening.test_fresh_families import HOSTILE as FRESH_ATTACKS

from bench.govern_corpora import (
    benign_corpus,
    everyday_notes,
    hostile_corpus,
    markup_notes,
    multilingual_attacks,
    multilingual_notes,
    multilingual_preferences,
    unseen_preferences,
)
from memwarden.screening import phrases
from memwarden.screening.alternation import _first_chars, dispatched_union, union
from memwarden.screening.unwrap import exposed_text
from memwarden.screening.views import despaced_view, folded_view, normal_form, plain_view, unhyphenated_view


@pytest.mark.parametrize(
    ("pattern", "chars"),
    [
        (r"abc", {"a"}),
        (r"(?:ab|cd)e", {"a", "c"}),
        (r"x?y", {"x", "y"}),
        (r"(?:the |your )?(?:real|new) rules", {"t", "y", "r", "n"}),
        (r"[a-c]z", {"a", "b", "c"}),
        (r"(?=q)qu", {"q"}),
        (r"\w+", None),
        (r"(?:a)?", None),  # may match nothing: no first letter to dispatch on
        (r".x", None),
    ],
)
def test_the_first_letters_of_a_pattern(pattern: str, chars: set[str] | None) -> None:
    found = _first_chars(pattern)
    assert (None if found is None else set(found)) == chars


def _texts() -> list[str]:
    texts = [t for _, t in benign_corpus() + hostile_corpus() + markup_notes() + everyday_notes()]
    texts += [t for _, t in multilingual_attacks() + multilingual_notes() + multilingual_preferences()]
    return texts + unseen_preferences() + FRESH_ATTACKS + FRESH_NOTES


def test_the_dispatched_search_matches_where_the_plain_union_does() -> None:
    every = phrases.EVERY
    despaced = [p for parts in phrases.DESPACED.values() for p in parts]
    pairs = [
        (re.compile(union(every), re.DOTALL), re.compile(dispatched_union(every), re.DOTALL)),
        (re.compile(union(despaced), re.DOTALL), re.compile(dispatched_union(despaced), re.DOTALL)),
    ]
    matched = 0
    for text in _texts():
        exposed = exposed_text(text)
        folded = unhyphenated_view(folded_view(normal_form(exposed)))
        for view, (plain_union, dispatched) in (
            (plain_view(exposed), pairs[0]),
            (folded, pairs[0]),
            (despaced_view(folded), pairs[1]),
        ):
            expected, found = plain_union.search(view), dispatched.search(view)
            assert (expected is None) == (found is None), view
            if expected is not None and found is not None:
                assert expected.start() == found.start(), view
                matched += 1
    assert matched > 500  # the corpora hold many attacks: the comparison saw matches, not only misses
