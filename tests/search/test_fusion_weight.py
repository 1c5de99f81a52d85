"""The vector share of hybrid fusion slides with how much of the query the keyword hits cover,
and the context of a memory is not embedded (docs/search.md, "Fusion on conversations")."""

from __future__ import annotations

from typing import Any

import pytest

from memwarden.app import build_service
from memwarden.config import Settings, load_settings
from memwarden.embed.builtin import MINILM, open_builtin
from memwarden.search.hybrid import sliding_weight
from memwarden.search.vector_path import embedding_text


def test_the_weight_slides_from_the_model_weight_to_the_covered_weight() -> None:
    assert sliding_weight(0.7, 0.3, 0.0) == pytest.approx(0.7)
    assert sliding_weight(0.7, 0.3, 0.5) == pytest.approx(0.5)
    assert sliding_weight(0.7, 0.3, 1.0) == pytest.approx(0.3)
    assert sliding_weight(0.7, None, 1.0) == pytest.approx(0.7)  # no covered weight: flat
    assert sliding_weight(0.7, 0.3, 3.0) == pytest.approx(0.3)  # clamped


@pytest.fixture(scope="module")
def minilm() -> Any:
    """The English MiniLM (selectable; the default is multilingual), loaded once for this file."""
    embedder = open_builtin(MINILM)
    embedder.load()
    unload = embedder.close
    embedder.close = lambda: None  # type: ignore[method-assign]  # services must not unload it
    yield embedder
    unload()


@pytest.fixture(params=["default", "minilm"])
def model(request: pytest.FixtureRequest, builtin_embedder: Any, minilm: Any) -> Any:
    return builtin_embedder if request.param == "default" else minilm


def test_a_query_its_keywords_cover_leans_on_keywords_and_a_paraphrase_on_the_model(
    settings: Settings, model: Any
) -> None:
    svc = build_service(settings, embedder=model, background=False)
    try:
        svc.memories.add("Never run database migrations on Fridays")
        svc.memories.add("The client prefers email over phone calls for status updates")
        svc.memories.add("Alice is allergic to peanuts")
        assert svc.vectors is not None
        assert svc.vectors.covered_weight("database migrations Fridays") == pytest.approx(0.3)
        covered = svc.searcher.search("database migrations Fridays").hits[0]
        assert covered.memory.content.startswith("Never run database migrations")
        # Full coverage: the vector part is at most relevance weight 0.5 x vector share 0.3.
        assert 0 < covered.why["vector"] <= 0.5 * 0.3 + 1e-6
        paraphrase = svc.searcher.search("when is it unsafe to change the schema").hits[0]
        assert paraphrase.memory.content.startswith("Never run database migrations")
        # No keyword covers the paraphrase: the model's own share applies to its best match.
        assert paraphrase.why["vector"] == pytest.approx(0.5 * model.fusion_weight, abs=1e-6)
        if model.identity.model_id.startswith("all-MiniLM"):
            # A CJK query keeps the English model's weight at 0 and nothing slides.
            assert svc.vectors.covered_weight("数据库迁移") is None
        else:
            # The multilingual model reads it: its weight slides as for any other query.
            assert svc.vectors.covered_weight("数据库迁移") == pytest.approx(0.3)
    finally:
        svc.close()


def test_a_set_vector_weight_is_flat(settings: Settings, builtin_embedder: Any) -> None:
    flat = load_settings(db=settings.db, log_file=settings.log_file, search_vector_weight="0.6")
    svc = build_service(flat, embedder=builtin_embedder, background=False)
    try:
        svc.memories.add("Never run database migrations on Fridays")
        assert svc.vectors is not None
        assert svc.vectors.covered_weight("database migrations Fridays", 0.6) is None
        hit = svc.searcher.search("database migrations Fridays").hits[0]
        assert hit.why["vector"] == pytest.approx(0.5 * 0.6, abs=1e-6)
    finally:
        svc.close()


@pytest.mark.keyword_only
def test_the_context_is_not_embedded_but_the_title_is(service: Any) -> None:
    memory = service.memories.add(
        "A blue bowl!", title="Pottery", context="What did you make in pottery class?"
    ).memory
    text = embedding_text(memory)
    assert "A blue bowl!" in text and "Pottery" in text
    assert "pottery class" not in text
