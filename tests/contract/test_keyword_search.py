"""Store contract: the keyword index holds the analyzed text the service hands over, nothing else."""

from __future__ import annotations

from datetime import timedelta

from contract_helpers import ANALYZER, T0, index_of, make_memory, put, search_ids
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memwarden.models import KeywordQuery
from memwarden.store.base import Store

# Scripts every backend's tokenizer knows, with punctuation and spaces between words. (SQLite's
# FTS5 unicode61 tokenizer splits on '_' and on letters newer than Unicode 6.1, which the
# analyzer keeps inside words: a known gap of the SQLite backend, not part of this contract.)
WORD_CHARS = "abcxyzABCXYZ0189éèçñüößıİşğαβγδжзий中文会議 .,;:!?-'\"/"


def test_search_finds_a_word_of_the_content_title_or_tags(store: Store) -> None:
    m = put(store, "The client prefers email", title="Contact channel", tags=("crm",))
    for word in ("email", "CLIENT", "contact", "crm"):
        assert search_ids(store, word) == [m.id]
    assert search_ids(store, "telephone") == []


def test_search_is_scoped_to_tenant_project_tags_and_expiry(store: Store) -> None:
    mine = put(store, "backup runs nightly", tags=("ops",))
    other_project = put(store, "backup runs weekly", project="q")
    put(store, "backup runs hourly", tenant="t2")
    expiring = put(store, "backup runs once", ttl=timedelta(minutes=1))
    later = T0 + timedelta(hours=1)
    assert set(search_ids(store, "backup", now=later)) == {mine.id, other_project.id}
    assert search_ids(store, "backup", now=later, project="p") == [mine.id]
    assert search_ids(store, "backup", now=later, tags=("ops",)) == [mine.id]
    assert search_ids(store, "backup", now=later, tags=("ops", "nope")) == []
    assert expiring.id in search_ids(store, "backup", now=later, include_expired=True)
    assert len(search_ids(store, "backup", now=later, include_expired=True, limit=1)) == 1


def test_a_title_match_ranks_above_a_body_match(store: Store) -> None:
    body = put(store, "we talked about the invoice process and other things today")
    title = put(store, "numbers are in the spreadsheet", title="Invoice")
    assert search_ids(store, "invoice") == [title.id, body.id]


def test_more_matching_terms_rank_higher(store: Store) -> None:
    one = put(store, "the deploy is on friday")
    both = put(store, "the staging deploy is on monday")
    assert search_ids(store, "staging deploy")[0] == both.id
    assert set(search_ids(store, "staging deploy")) == {one.id, both.id}


def test_a_memory_holding_every_word_beats_many_newer_ones_holding_one(store: Store) -> None:
    best = put(store, "the backup of the kubernetes cluster runs nightly", at=T0)
    for i in range(60):
        put(store, f"backup note number {i}", at=T0 + timedelta(minutes=i + 1))
    assert search_ids(store, "kubernetes backup", limit=5)[0] == best.id
    assert len(search_ids(store, "kubernetes backup", limit=50)) == 50


def test_prefix_terms_match_the_start_of_a_word(store: Store) -> None:
    m = put(store, "kubernetes cluster upgrade")
    query = KeywordQuery(("kube",), prefix=frozenset({"kube"}))
    found = store.keyword_search("t1", query, project=None, tags=(), include_expired=False, now=T0, limit=5)
    assert [c.memory.id for c in found] == [m.id]
    assert (
        store.keyword_search(
            "t1", KeywordQuery(("kube",)), project=None, tags=(), include_expired=False, now=T0, limit=5
        )
        == []
    )


def test_scores_are_positive_and_best_first(store: Store) -> None:
    put(store, "alpha beta gamma")
    put(store, "alpha")
    found = store.keyword_search(
        "t1", KeywordQuery(("alpha", "beta")), project=None, tags=(), include_expired=False, now=T0, limit=5
    )
    scores = [c.score for c in found]
    assert all(s > 0 for s in scores) and scores == sorted(scores, reverse=True)


def test_non_latin_terms_are_found(store: Store) -> None:
    m = put(store, "Ankara ofisinde toplantı 会議 Ελλάδα Москва")
    for word in ("toplantı", "ελλάδα", "会議", "москва"):
        assert search_ids(store, word) == [m.id], word


def test_queries_with_only_unusable_terms_find_nothing_without_error(store: Store) -> None:
    put(store, "anything")
    for terms in ((), ("",), ("\x00",), ("a" * 5000,)):
        assert (
            store.keyword_search(
                "t1", KeywordQuery(terms), project=None, tags=(), include_expired=False, now=T0, limit=5
            )
            == []
        )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.text(alphabet=WORD_CHARS, min_size=1, max_size=12), min_size=1, max_size=6))
def test_any_analyzed_text_is_found_by_each_of_its_terms(store: Store, words: list[str]) -> None:
    text = " ".join(words)
    terms = ANALYZER.terms(text)
    if not terms or "\x00" in text:
        return
    memory = make_memory(text, project=f"h{abs(hash(text))}")
    stored, _ = store.add(memory, index_of(memory))
    for term in terms:
        hits = store.keyword_search(
            "t1",
            KeywordQuery((term,)),
            project=memory.project,
            tags=(),
            include_expired=False,
            now=T0,
            limit=5,
        )
        assert stored.id in [c.memory.id for c in hits]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(terms=st.lists(st.text(max_size=20), max_size=8), prefix=st.booleans())
def test_no_query_terms_raise_a_syntax_error(store: Store, terms: list[str], prefix: bool) -> None:
    query = KeywordQuery(tuple(terms), prefix=frozenset(terms) if prefix else frozenset())
    store.keyword_search("t1", query, project=None, tags=(), include_expired=False, now=T0, limit=5)
