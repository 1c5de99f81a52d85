"""Properties (hypothesis): the analyzer never raises and is deterministic; the FTS5 query
builder never produces a syntax error, whatever the input."""

from __future__ import annotations

import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st

from memwarden.models import KeywordQuery
from memwarden.store.sqlite.fts import scope_token, scoped_expression, word_expressions
from memwarden.store.sqlite.migrations import migrate
from memwarden.text.analyzer import Analyzer

ANALYZER = Analyzer(("english", "turkish"))
# Any code point, surrogates included, plus a bias towards the scripts and characters that break
# tokenizers: Turkish i's, CJK, combining marks, FTS5 operators and quotes, Thai/Lao leading vowels,
# Khmer coeng, Myanmar asat, and letters of the scripts with their own stemmer.
TEXT = st.text(alphabet=st.characters(), max_size=200) | st.text(
    alphabet=st.sampled_from(list('İıIi数据库ガ한\u0301\u0307"*^:()-+ ANDORNOTNEAR{}_.เที่ໂ្កမ်سдέ')), max_size=60
)


@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_the_analyzer_never_raises_and_is_deterministic(text: str) -> None:
    first = (ANALYZER.terms(text), ANALYZER.query(text))
    fresh = Analyzer(("english", "turkish"))
    assert first == (ANALYZER.terms(text), ANALYZER.query(text)) == (fresh.terms(text), fresh.query(text))
    assert all(term and not any(ch.isspace() for ch in term) for term in first[0])


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_a_memory_is_found_by_its_own_text(text: str) -> None:
    terms = set(ANALYZER.terms(text))
    query = ANALYZER.query(text)
    if terms:
        assert terms & set(query.terms)


_CONN = sqlite3.connect(":memory:", isolation_level=None)
migrate(_CONN)
_CONN.execute(
    "INSERT INTO memories_fts(rowid, title, tags, body, scope) VALUES (1, 'a', 'b', 'deploy sunuc 数据 \"x', 's1')"
)


@settings(max_examples=400, deadline=None)
@given(st.lists(TEXT, max_size=8), st.sets(TEXT, max_size=3))
def test_the_query_builder_never_produces_an_fts5_syntax_error(terms: list[str], prefix: set[str]) -> None:
    for exact, wide in word_expressions(
        KeywordQuery(tuple(terms), frozenset(prefix), prefix_if_rare=frozenset(prefix))
    ):
        for part in (exact, wide or exact):
            for match in (part, scoped_expression(part, scope_token(terms[0], 'p " x'))):
                _CONN.execute(
                    "SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?", (match,)
                ).fetchall()


def _run(match: str) -> None:
    _CONN.execute("SELECT rowid FROM memories_fts WHERE memories_fts MATCH ?", (match,)).fetchall()


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_analyzed_queries_always_run(text: str) -> None:
    query = ANALYZER.query(text)
    words = word_expressions(query)
    if words:
        # Every expression keyword_search can build: per word, rarer words OR-ed, common ANDed.
        parts = [wide or exact for exact, wide in words]
        for part in parts + [exact for exact, _ in words]:
            _run(scoped_expression(part, scope_token("t", "p")))
        _run(scoped_expression(" OR ".join(parts), None))
        _run(scoped_expression(" AND ".join(parts), scope_token("t", "p")))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(TEXT, min_size=1, max_size=3), max_size=6), st.sets(TEXT, max_size=4))
def test_word_expressions_never_produce_an_fts5_syntax_error(
    groups: list[list[str]], prefix: set[str]
) -> None:
    flat = tuple(t for g in groups for t in g)
    query = KeywordQuery(
        flat, frozenset(prefix), tuple(tuple(g) for g in groups), frozenset(flat[:2]) | frozenset(prefix)
    )
    words = word_expressions(query)
    if words:
        parts = [wide or exact for exact, wide in words]
        _run(scoped_expression(" OR ".join(parts), scope_token(flat[0], "p")))
        _run(scoped_expression(" AND ".join(exact for exact, _ in words), None))


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=200))
def test_ascii_text_splits_as_the_full_word_pattern_splits_it(text: str) -> None:
    """split_words takes a short pattern for ASCII text (the long Unicode classes are compiled
    only when non-ASCII text comes): the words must be the ones the full pattern finds."""
    import re

    from memwarden.text.marks import MARKS
    from memwarden.text.tokenize import WORD, split_words

    full = re.compile(rf"(?:[^\W_]|[{MARKS}])+")
    assert list(split_words(text)) == [(WORD, m.group()) for m in full.finditer(text)]
