"""Thai, Lao, Khmer and Myanmar: runs without spaces become bigrams of character clusters, in the
analyzer and through a real SQLite store (old databases re-index on upgrade)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.text.analyzer import Analyzer
from memwarden.text.tokenize import UNSPACED, cluster_bigrams, clusters, split_words

ANALYZER = Analyzer(("english", "turkish"))


def _matches(query: str, document: str) -> bool:
    return bool(set(ANALYZER.query(query).terms) & set(ANALYZER.terms(document)))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ที่คะแนน", ["ที่", "คะ", "แน", "น"]),  # Thai: tone mark stays on its letter, leading vowel on the next
        ("ພາສາລາວ", ["ພາ", "ສາ", "ລາ", "ວ"]),  # Lao: a trailing vowel letter joins its consonant
        ("ភាសាខ្មែរ", ["ភា", "សា", "ខ្មែ", "រ"]),  # Khmer: coeng stacks the next consonant below
        ("မြန်မာ", ["မြ", "န်", "မာ"]),  # Myanmar: medials and asat are marks of their letter
    ],
)
def test_clusters_keep_marks_vowels_and_stacked_letters_with_their_base(
    text: str, expected: list[str]
) -> None:
    assert clusters(text) == expected
    assert "".join(clusters(text)) == text


def test_unspaced_runs_are_cut_from_words_of_other_scripts() -> None:
    assert list(split_words("API ของฐานข้อมูล v2")) == [
        ("word", "API"),
        (UNSPACED, "ของฐานข้อมูล"),
        ("word", "v2"),
    ]


def test_cluster_bigrams_overlap_and_a_lone_cluster_stays() -> None:
    assert cluster_bigrams("ที่คะแนน") == ["ที่คะ", "คะแน", "แนน"]
    assert cluster_bigrams("ไป") == ["ไป"]
    assert cluster_bigrams("") == []


@pytest.mark.parametrize(
    ("query", "document"),
    [
        ("ฐานข้อมูล", "สำรองฐานข้อมูลทุกคืนตอนตีสาม"),  # Thai: database / back up the database nightly
        ("ຖານຂໍ້ມູນ", "ສຳຮອງຖານຂໍ້ມູນທຸກຄືນ"),  # Lao
        ("មូលដ្ឋានទិន្នន័យ", "បម្រុងទុកមូលដ្ឋានទិន្នន័យរាល់យប់"),  # Khmer
        ("ဒေတာဘေ့စ်", "ညတိုင်းဒေတာဘေ့စ်ကိုအရန်သိမ်းသည်"),  # Myanmar
    ],
)
def test_a_word_inside_an_unspaced_sentence_is_found(query: str, document: str) -> None:
    assert _matches(query, document)


def test_unrelated_thai_text_does_not_match() -> None:
    assert not _matches("ฐานข้อมูล", "ประชุมทีมทุกวันจันทร์")  # a team meeting every Monday


def test_a_lone_cluster_in_a_query_matches_as_a_prefix() -> None:
    query = ANALYZER.query("ไป")
    assert query.prefix == frozenset({"ไป"})
    assert query.prefix_if_rare == frozenset()


def test_a_thai_memory_is_found_through_the_store_and_old_indexes_are_rebuilt(tmp_path: Path) -> None:
    db = tmp_path / "thai.db"
    settings = load_settings(db=str(db), log_file=str(tmp_path / "log"), embedder="none")
    service = build_service(settings, embeddings=False)
    try:
        service.memories.add("สำรองฐานข้อมูลทุกคืนตอนตีสาม", project="ops")
        service.memories.add("ประชุมทีมทุกวันจันทร์", project="ops")
        hits = service.searcher.search("ฐานข้อมูล", project="ops").hits
        assert [h.memory.content for h in hits] == ["สำรองฐานข้อมูลทุกคืนตอนตีสาม"]
    finally:
        service.close()
    # The index as the previous analyzer wrote it: a Thai run was one term, found by nothing
    # but the whole run.
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute(
        "UPDATE memories_fts SET body = (SELECT content FROM memories m WHERE m.rowid = memories_fts.rowid)"
    )
    conn.execute("UPDATE index_state SET value = 'v3:english,turkish' WHERE key = 'analyzer'")
    conn.close()
    service = build_service(settings, embeddings=False)
    try:
        hits = service.searcher.search("ฐานข้อมูล", project="ops").hits
        assert [h.memory.content for h in hits] == ["สำรองฐานข้อมูลทุกคืนตอนตีสาม"]
        assert service.store.index_agrees()  # type: ignore[attr-defined]
    finally:
        service.close()
