"""The default builtin model is the multilingual one (issue 36): an empty MEMWARDEN_EMBED_MODEL
means multilingual-e5-small-int8, and a database embedded by the former default (MiniLM) is
embedded again by a server in the background, saying so in its log and in ``memwarden doctor``,
while keyword search finds every memory."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest

from memwarden.app import build_service
from memwarden.cli.doctor_checks import check_vector_backlog
from memwarden.config import Settings, load_settings
from memwarden.embed.builtin import DEFAULT_MODEL, E5_INT8, MINILM_SPACE, open_builtin
from memwarden.embed.e5_onnx import E5Int8Embedder

NOTES = [
    "The client prefers email over phone calls",
    "Deploys to production never happen on Friday afternoons",
    "本番環境へのデプロイは金曜日の午後には行わない",
    "Los registros se conservan durante treinta días",
]


def test_an_empty_model_setting_means_the_multilingual_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert DEFAULT_MODEL == E5_INT8
    monkeypatch.delenv("MEMWARDEN_EMBEDDER", raising=False)  # the suite runs without a model
    monkeypatch.delenv("MEMWARDEN_EMBED_MODEL", raising=False)
    settings = load_settings(db=str(tmp_path / "m.db"))
    assert settings.embedder == "builtin" and settings.embed_model == ""
    assert isinstance(open_builtin(settings.embed_model), E5Int8Embedder)


def test_a_minilm_database_is_embedded_again_by_a_server_which_says_so(
    settings: Settings, builtin_embedder: object, e5: E5Int8Embedder, caplog: pytest.LogCaptureFixture
) -> None:
    """``builtin_embedder`` is MiniLM in this folder (tests/embed/conftest.py): the former default."""
    before = build_service(settings, embedder=builtin_embedder, background=False)  # type: ignore[arg-type]
    try:
        for note in NOTES:
            before.memories.add(note)
        assert before.searcher.vector_status(probe=False)["model"] == MINILM_SPACE
    finally:
        before.close()
    waiting = check_vector_backlog(settings, e5.identity)
    assert waiting is not None and waiting.status == "warn"
    assert f"4 of 4 memories have no vector of {e5.identity.model_id} yet" in waiting.detail
    assert "earlier model" in waiting.detail and "reindex --embeddings" in waiting.fix

    caplog.set_level(logging.WARNING, logger="memwarden")
    server = build_service(settings, embedder=e5, background=True)  # as `memwarden serve` builds it
    try:
        assert server.vectors is not None
        # Found by keywords whatever the model is doing.
        assert server.searcher.search("client email").hits[0].memory.content == NOTES[0]
        server.vectors.start()
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            status = server.searcher.vector_status(probe=False)
            if status["state"] == "ready" and status["missing"] == 0:
                break
            time.sleep(0.05)
        assert (status["model"], status["with_vector"], status["missing"]) == (e5.identity.model_id, 4, 0)
        said = [r.getMessage() for r in caplog.records if "have no vector of" in r.getMessage()]
        assert said == [
            f"4 of 4 memories have no vector of {e5.identity.model_id} yet: embedding them in the "
            "background; keyword search finds them meanwhile"
        ]
        # Meaning across languages, now that the memories have the multilingual model's vectors.
        hit = server.searcher.search("what should I avoid on friday afternoons").hits[0]
        assert hit.memory.content in {NOTES[1], NOTES[2]} and hit.why["vector"] > 0
        assert server.searcher.search("how long are logs kept").hits[0].memory.content == NOTES[3]
    finally:
        server.close()
    done = check_vector_backlog(settings, e5.identity)
    assert done is not None and done.status == "ok" and done.detail.startswith("all 4 memories have a vector")


def test_the_backlog_check_says_nothing_without_a_database(tmp_path: Path, e5: E5Int8Embedder) -> None:
    settings = load_settings(db=str(tmp_path / "not-yet.db"))
    assert check_vector_backlog(settings, e5.identity) is None


def test_memories_written_while_a_fresh_server_loads_are_no_warning(
    settings: Settings, e5: E5Int8Embedder, caplog: pytest.LogCaptureFixture
) -> None:
    """A first start, no earlier model: what was written before the model loaded is embedded
    without a warning (the log at the default level stays quiet)."""
    caplog.set_level(logging.INFO, logger="memwarden")
    writer = build_service(settings, embeddings=False)
    try:
        writer.memories.add(NOTES[0])
    finally:
        writer.close()
    server = build_service(settings, embedder=e5, background=True)
    try:
        assert server.vectors is not None
        server.vectors.start()
        deadline = time.monotonic() + 120
        while server.searcher.vector_status(probe=False)["missing"] != 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.searcher.vector_status(probe=False)["missing"] == 0
    finally:
        server.close()
    said = [r for r in caplog.records if "have no vector of" in r.getMessage()]
    assert [r.levelno for r in said] == [logging.INFO]
