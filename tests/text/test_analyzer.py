"""The analyzer: Turkish inflections, Turkish i's, accents, CJK bigrams, stopwords, languages."""

from __future__ import annotations

import pytest

from memwarden.errors import ConfigError
from memwarden.text.analyzer import Analyzer
from memwarden.text.languages import parse_languages

ANALYZER = Analyzer(("english", "turkish"))


def _matches(query: str, document: str, analyzer: Analyzer = ANALYZER) -> bool:
    return bool(set(analyzer.query(query).terms) & set(analyzer.terms(document)))


@pytest.mark.parametrize(
    "family",
    [
        ["yedek", "yedekleme", "yedekleri", "yedeği"],
        ["sunucu", "sunucusu", "sunucusunun", "sunucular"],
        ["kullanıcı", "kullanıcılar", "kullanıcının", "KULLANICI"],
        ["veritabanı", "veritabanının", "veritabanları"],
    ],
)
def test_turkish_inflections_find_each_other(family: list[str]) -> None:
    for query in family:
        for document in family:
            assert _matches(query, document), (query, document)


@pytest.mark.parametrize(
    ("a", "b"),
    [("yedek", "yedi"), ("yedek", "yemek"), ("sunucu", "sunum"), ("sunucu", "sunmak"), ("yedek", "sunucu")],
)
def test_unrelated_turkish_words_stay_apart(a: str, b: str) -> None:
    assert not _matches(a, b) and not _matches(b, a)


def test_turkish_dotted_and_dotless_capitals_fold_together() -> None:
    assert ANALYZER.terms("İSTANBUL") == ANALYZER.terms("istanbul") == ANALYZER.terms("Istanbul")
    assert _matches("ıstanbul", "İstanbul")
    # No stray combining dot from Python's casefold of İ.
    assert all("\u0307" not in t for t in ANALYZER.terms("İzmir İNDİR"))


def test_english_capital_i_is_still_an_english_i() -> None:
    assert _matches("IMPORTANT INVOICES", "important invoice")


def test_accents_fold_in_latin_greek_and_cyrillic_but_not_in_kana() -> None:
    assert _matches("cafe", "Café") and _matches("CAFÉ", "cafe")
    assert _matches("елка", "Ёлка")
    assert not _matches("かき", "がき")


def test_english_stemming_and_stopwords() -> None:
    assert _matches("deploying", "We deploy on Tuesdays")
    assert "the" not in ANALYZER.terms("the backup of the database")
    assert ANALYZER.terms("the who") != []  # a text of stopwords only keeps them


def test_cjk_runs_become_overlapping_bigrams() -> None:
    assert ANALYZER.terms("数据库备份") == ["数据", "据库", "库备", "备份"]
    assert ANALYZER.terms("Python3教程") == ["python3", "教程"]
    assert _matches("备份", "每天凌晨三点备份数据库")
    assert ANALYZER.query("猫").prefix == frozenset({"猫"})


def test_nfkc_makes_full_width_and_ligatures_plain() -> None:
    assert ANALYZER.terms("ＡＰＩ ﬁle") == ANALYZER.terms("API file")


def test_indic_words_are_not_cut_at_their_vowel_signs() -> None:
    assert len(ANALYZER.terms("हिन्दी")) == 1


def test_hindi_words_with_vowel_signs_are_stemmed() -> None:
    # Vowel signs are combining marks, not letters (str.isalpha is False): the stemmer must still
    # see the word, so a plural meets its singular.
    assert _matches("किताबें", "यह किताब नई है")
    assert _matches("लड़कियों", "एक लड़की")


def test_snake_case_and_punctuation_split_like_words() -> None:
    assert _matches("rotate keys", "ROTATE_KEYS")
    assert _matches("nginx conf", "/etc/nginx/nginx.conf")


def test_query_groups_keep_each_word_alternatives_together() -> None:
    query = ANALYZER.query("sunucu yedekleri")
    assert query.groups == (("sunucu", "sunuc"), ("yedekleri", "yedek"))
    assert set(query.terms) == {"sunucu", "sunuc", "yedekleri", "yedek"}


def test_unknown_language_stops_with_the_list_of_valid_ones() -> None:
    with pytest.raises(ConfigError) as info:
        parse_languages("english, klingon")
    assert "klingon" in info.value.message and "turkish" in info.value.message
    assert parse_languages(" English ,german,english") == ("english", "german")
    assert parse_languages("") == ()


def test_any_snowball_language_works_and_no_language_means_no_stemming() -> None:
    german = Analyzer(("german",))
    assert _matches("Häuser", "Haus", german) or _matches("Häusern", "Häuser", german)
    plain = Analyzer(())
    assert plain.terms("Running servers") == ["running", "servers"]
    assert plain.fingerprint != ANALYZER.fingerprint


def test_function_words_of_arabic_greek_and_hindi_questions_are_dropped() -> None:
    # Stemmed by their script without configuration, these languages drop their function words
    # too, so a question's "ما" or "की" does not count as one of the words a memory must hold.
    analyzer = Analyzer()
    assert analyzer.groups("ما هي عاصمة مصر") == analyzer.groups("عاصمة مصر")
    assert analyzer.groups("Ποια είναι η πρωτεύουσα της Ελλάδας") == analyzer.groups("πρωτεύουσα Ελλάδας")
    assert analyzer.groups("भारत की राजधानी क्या है") == analyzer.groups("भारत राजधानी")
    assert analyzer.terms("في هذا") != []  # a text of nothing but stopwords keeps them


def test_vietnamese_function_words_are_dropped_only_from_vietnamese_text() -> None:
    analyzer = Analyzer()
    assert analyzer.groups("Ai là người sáng lập của công ty") == analyzer.groups("Ai người sáng lập công ty")
    assert "la" in analyzer.terms("la casa de papel")  # not Vietnamese: "la" stays


def test_vietnamese_words_keep_their_tones() -> None:
    # năm "year" and nam "south" are different words; "độ" (degree) is no English "do".
    analyzer = Analyzer()
    assert analyzer.query("Nhiệt độ năm nào").groups[:3] == (("nhiệt",), ("độ",), ("năm",))
    assert not _matches("nhiệt độ năm", "người miền nam")
    assert _matches("nhiệt độ cao nhất", "nhiệt độ tăng")
    # A query typed without marks is not seen as Vietnamese and still finds the memory.
    assert _matches("nhiet do", "Nhiệt độ tăng vào mùa hè")


def test_vietnamese_text_adds_its_syllable_pairs_stopwords_left_out() -> None:
    analyzer = Analyzer()
    assert analyzer.query("Lưu vực sông có diện tích").groups == (
        ("lưu",),
        ("vực",),
        ("sông",),
        ("diện",),
        ("tích",),
        ("lưu_vực",),
        ("vực_sông",),
        ("sông_diện",),
        ("diện_tích",),
    )
    assert "diện_tích" in analyzer.terms("Diện tích của lưu vực")
    # The pair makes the memory holding the compound rank first; one of its syllables alone
    # still matches ("tích" in a memory about accumulation).
    assert _matches("diện tích", "tích lũy vốn")
    assert "nhiet_do" not in analyzer.terms("nhiet do")  # not seen as Vietnamese: no pairs
    assert not any("_" in t for t in analyzer.terms("la casa de papel"))


def test_chinese_question_words_cut_a_run_and_add_no_bigram() -> None:
    analyzer = Analyzer()
    assert analyzer.groups("超级碗的冠军是什么球队") == analyzer.groups("超级碗的冠军是 球队")
    assert ("什么",) not in analyzer.groups("冠军是什么")
    assert analyzer.groups("什么") == [("什么",)]  # nothing else: the question word stays
