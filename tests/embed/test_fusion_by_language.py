"""Fusion that does not let an English-only model drag other languages below their keywords:
MiniLM's vector weight follows the share of the query it can read (embed/builtin.py), and a
query's weight is never raised by keyword coverage (search/hybrid.py)."""

from __future__ import annotations

from typing import Any

from memwarden.app import build_service
from memwarden.config import Settings
from memwarden.search.hybrid import sliding_weight


def test_english_queries_keep_minilms_full_weight(builtin_embedder: Any) -> None:
    for query in (
        "how does the customer want to be contacted",
        "When did Caroline go to the LGBTQ support group?",
        "what should I avoid on friday afternoons",
    ):
        assert builtin_embedder.fusion_weight_for(query) == builtin_embedder.fusion_weight, query


def test_queries_in_other_languages_get_no_weight_from_minilm(builtin_embedder: Any) -> None:
    for query in (
        "Wie lange werden die Protokolle aufbewahrt?",
        "Müşteri hangi iletişim yolunu tercih ediyor?",
        "Сколько дней хранятся журналы?",
        "ما هي عاصمة ألمانيا؟",
        "บันทึกถูกเก็บไว้นานเท่าไร",
        "日志保存多久",
        "Cât timp sunt păstrate jurnalele de sistem?",
    ):
        assert builtin_embedder.fusion_weight_for(query) == 0.0, query


def test_coverage_only_lowers_a_weight() -> None:
    assert sliding_weight(0.7, 0.3, 1.0) == 0.3
    assert sliding_weight(0.7, 0.3, 0.0) == 0.7
    assert sliding_weight(0.1, 0.3, 1.0) == 0.1  # a low per-query weight is not raised to 0.3
    assert sliding_weight(0.9, None, 1.0) == 0.9


def test_a_german_search_with_minilm_ranks_as_keywords_alone(
    settings: Settings, builtin_embedder: Any
) -> None:
    notes = [
        "Die Protokolle werden dreißig Tage lang aufbewahrt",
        "Der Kunde bevorzugt E-Mail statt Telefon",
        "Freitags nachmittags wird nicht in die Produktion ausgerollt",
        "Die Datenbank wird jede Nacht gesichert",
    ]
    hybrid = build_service(settings, embedder=builtin_embedder, background=False)
    try:
        assert hybrid.vectors is not None and hybrid.vectors.wait_ready(60)
        for note in notes:
            hybrid.memories.add(note)
        hybrid.vectors.backfill()
        query = "Wie lange werden die Protokolle aufbewahrt"
        with_vectors = hybrid.searcher.search(query).hits
        keywords_only = hybrid.searcher.search(query, vector=False).hits
    finally:
        hybrid.close()
    assert [h.memory.id for h in with_vectors][: len(keywords_only)] == [h.memory.id for h in keywords_only]
    assert all(h.why.get("vector", 0.0) == 0.0 for h in with_vectors)
