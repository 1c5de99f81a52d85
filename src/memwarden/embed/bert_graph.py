"""The encoder graph both builtin models run: BERT layers with int8 matrix products, written as an
ONNX file (``onnx_protobuf.py``) one layer's weights at a time.

Each model's maker (``minilm_graph.py``, ``e5_graph.py``) reads its packaged weights and hands
them to ``BertGraph`` layer by layer; the builder encodes each matrix as it comes and keeps only
the encoded int8 weights, so making a file holds about the file's size plus one layer.

What a layer is (opset 17 plus onnxruntime's ``com.microsoft`` operators):

- every weight matrix as ``DynamicQuantizeMatMul``: int8 weights ``[in, out]`` with a scale
  per output column (symmetric), activations quantized to uint8 per run as they come, the bias
  added in the same operator;
- query, key and value as one product (the input is quantized once, not three times; the three
  products quantized the same input with the same scale, so the result is the same);
- ``MultiHeadAttention`` (with the attention mask when the graph takes one), the erf GELU
  feed-forward, post-LayerNorm as ``SkipLayerNormalization`` or, with ``separate_skip_norm``, as
  ``Add`` then ``LayerNormalization``;
- or, with ``row_scales`` (e5's format 4), each product's input quantized per row (token) in the
  graph (``row_linear``) and the text's rows as ``[batch * tokens, hidden]``: no row's numbers
  depend on another's, so a padded batch of texts gives each text its vector alone, and a batch
  shares the reading of the weights (which a run of one short text spends much of its time on).

Why the separate form: onnxruntime's CPU ``SkipLayerNormalization`` kernel runs several times
slower than its ``Add`` and ``LayerNormalization`` kernels together on the same rows (a fifth of
e5's run went to it on short notes; docs/embeddings.md has the figures). onnxruntime's own
optimizer fuses the two back into the slow node, so a session running such a graph must disable
``SKIP_NORM_FUSION``. MiniLM's file keeps the fused node: its vectors and file stay as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memwarden.embed import onnx_protobuf as proto

_MS = "com.microsoft"
OPSETS = {"": 17, _MS: 1}
#: The onnxruntime graph transformer that turns ``Add`` + ``LayerNormalization`` into
#: ``SkipLayerNormalization``: pass it in ``disabled_optimizers`` for ``separate_skip_norm`` graphs.
SKIP_NORM_FUSION = "SkipLayerNormFusion"


@dataclass
class Linear:
    """One matrix product: int8 weights ``[in, out]``, float32 scales ``[out]``, bias ``[out]``."""

    weight: Any
    scale: Any
    bias: Any


@dataclass
class BertLayer:
    """One encoder layer's weights, as ``BertGraph.layer`` takes them."""

    qkv: Linear
    attention_out: Linear
    attention_norm: tuple[Any, Any]
    ffn_in: Linear
    ffn_out: Linear
    output_norm: tuple[Any, Any]


def quantize_columns(weight: Any) -> Linear:
    """Symmetric int8 per output row of a float32 ``weight`` ``[out, in]``, as ``[in, out]``
    int8 with a scale per column (no bias yet: the caller sets it)."""
    import numpy as np

    scale = np.abs(weight).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    quantized = np.clip(np.rint(weight / scale[:, None]), -127, 127).astype(np.int8)
    return Linear(np.ascontiguousarray(quantized.T), scale.astype(np.float32), None)


def stack_columns(parts: list[Linear]) -> Linear:
    """Several products of one input as one (query, key and value)."""
    import numpy as np

    return Linear(
        np.concatenate([part.weight for part in parts], axis=1),
        np.concatenate([part.scale for part in parts]),
        np.concatenate([part.bias for part in parts]),
    )


class BertGraph:
    """Nodes and encoded initializers of one graph, written out by ``save``."""

    def __init__(
        self,
        *,
        heads: int,
        eps: float,
        separate_skip_norm: bool = False,
        zero_points: bool = True,
        row_scales: bool = False,
    ) -> None:
        """``separate_skip_norm``: residual sums as ``Add`` + ``LayerNormalization`` (module
        docstring). ``zero_points=False`` leaves out the weights' zero points, which are all zero
        (symmetric int8): the same products, without onnxruntime's per-column zero-point path.
        ``row_scales``: each product's input quantized with a scale per row (token), not one per
        run (``row_linear``)."""
        self.heads = heads
        self.eps = eps
        self.separate_skip_norm = separate_skip_norm
        self.zero_points = zero_points
        self.row_scales = row_scales
        self._rows: dict[str, str] = {}  # the row_scales graph's shared names (start_rows)
        self.nodes: list[bytes] = []
        self.initializers: list[list[bytes | memoryview]] = []
        self._split_qkv = ""

    def const(self, name: str, value: Any) -> str:
        self.initializers.append(proto.tensor(name, value))
        return name

    def node(self, op: str, inputs: list[str], output: str, domain: str = "", **attrs: Any) -> str:
        self.nodes.append(proto.node(op, inputs, [output], domain, **attrs))
        return output

    def linear(self, x: str, name: str, product: Linear) -> str:
        import numpy as np

        if self.row_scales:
            return self.row_linear(x, name, product)
        inputs = [
            x,
            self.const(f"{name}.w", product.weight),
            self.const(f"{name}.scale", np.asarray(product.scale, dtype=np.float32)),
            self.const(f"{name}.zero", np.zeros(product.scale.shape, dtype=np.int8))
            if self.zero_points
            else "",
            self.const(f"{name}.b", np.asarray(product.bias, dtype=np.float32)),
        ]
        return self.node("DynamicQuantizeMatMul", inputs, f"{name}.out", domain=_MS)

    def start_rows(self, x: str, mask: str, hidden: int) -> None:
        """Set up a ``row_scales`` graph: ``x`` is the batch as rows ``[batch * tokens, hidden]``,
        ``mask`` its ``[batch, tokens]`` key padding mask (attention reshapes the rows by it)."""
        import numpy as np

        tail = self.const("rows.tail", np.array([-1], dtype=np.int64))
        batch = self.node("Shape", [mask], "rows.batch")
        self._rows["batch_shape"] = self.node("Concat", [batch, tail], "rows.batch_shape", axis=0)
        self._rows["row_shape"] = self.const("rows.row_shape", np.array([-1, hidden], dtype=np.int64))
        # QuantizeLinear with a scale per row takes a zero point per row: 128 for every row.
        count = self.node("Shape", [x], "rows.count", end=1)
        middle = self.const("rows.middle", np.array([128], dtype=np.uint8))
        self._rows["zero"] = self.node("Expand", [middle, count], "rows.zero")
        self._rows["middle"] = middle
        self._rows["tiny"] = self.const("rows.tiny", np.array(1e-30, dtype=np.float32))
        self._rows["q127"] = self.const("rows.q127", np.array(127.0, dtype=np.float32))
        self._rows["one"] = self.const("rows.one", np.array(1.0, dtype=np.float32))
        self._rows["axis1"] = self.const("rows.axis1", np.array([1], dtype=np.int64))

    @property
    def batch_shape(self) -> str:
        """In a ``row_scales`` graph, the shape ``[batch, tokens, -1]`` that turns rows into texts."""
        return self._rows["batch_shape"]

    def row_linear(self, x: str, name: str, product: Linear, with_bias: bool = True) -> str:
        """``x @ weight + bias`` with ``x`` (rows) quantized per row: each row's scale is its
        largest magnitude over 127, its values rounded to uint8 around the zero point 128 (so the
        integer product takes one scalar zero point); the product is scaled back by the weight
        column's scale in ``MatMulIntegerToFloat``, then by the row's. No row's numbers depend on
        another row's, so a text gets the same vector in a padded batch as alone
        (``DynamicQuantizeMatMul`` takes one scale per run, so there a batch moved its vectors)."""
        import numpy as np

        r = self._rows
        magnitude = self.node("Abs", [x], f"{name}.abs")
        top = self.node("ReduceMax", [magnitude], f"{name}.top", axes=[1], keepdims=0)
        # An all-zero row (none occurs in the model; guarded all the same) gets a finite scale.
        largest = self.node("Max", [top, r["tiny"]], f"{name}.max")
        row_scale = self.node("Div", [largest, r["q127"]], f"{name}.rowscale")
        quantized = self.node("QuantizeLinear", [x, row_scale, r["zero"]], f"{name}.q", axis=0)
        inputs = [
            quantized,
            self.const(f"{name}.w", product.weight),
            r["one"],
            self.const(f"{name}.scale", np.asarray(product.scale, dtype=np.float32)),
            r["middle"],
        ]
        columns = self.node("MatMulIntegerToFloat", inputs, f"{name}.columns", _MS)
        column = self.node("Unsqueeze", [row_scale, r["axis1"]], f"{name}.rowcol")
        rows = self.node("Mul", [columns, column], f"{name}.rows")
        if not with_bias:
            return rows
        bias = self.const(f"{name}.b", np.asarray(product.bias, dtype=np.float32))
        return self.node("Add", [rows, bias], f"{name}.out")

    def layer_norm(self, x: str, name: str, norm: tuple[Any, Any], residual: str | None = None) -> str:
        import numpy as np

        scale = self.const(f"{name}.g", np.asarray(norm[0], dtype=np.float32))
        shift = self.const(f"{name}.beta", np.asarray(norm[1], dtype=np.float32))
        if residual is not None and self.separate_skip_norm:
            x = self.node("Add", [x, residual], f"{name}.sum")
            residual = None
        if residual is None:
            return self.node("LayerNormalization", [x, scale, shift], name, axis=-1, epsilon=self.eps)
        inputs = [x, residual, scale, shift]
        return self.node("SkipLayerNormalization", inputs, name, domain=_MS, epsilon=self.eps)

    def layer(self, x: str, prefix: str, weights: BertLayer, mask: str | None = None) -> str:
        """One encoder layer over ``x``; ``mask`` is an int32 ``[batch, tokens]`` key padding mask.
        In a ``row_scales`` graph ``x`` is rows ``[batch * tokens, hidden]`` and the query, key and
        value bias is added by ``MultiHeadAttention`` (one pass over the rows fewer)."""
        import numpy as np

        hidden = weights.attention_out.weight.shape[1]
        if self.row_scales:
            qkv = self.row_linear(x, f"{prefix}qkv", weights.qkv, with_bias=False)
            qkv_bias = self.const(f"{prefix}qkv.b", np.asarray(weights.qkv.bias, dtype=np.float32))
        else:
            qkv, qkv_bias = self.linear(x, f"{prefix}qkv", weights.qkv), ""
        if not self._split_qkv:  # one constant for every layer's split
            self._split_qkv = self.const("split.qkv", np.array([hidden] * 3, dtype=np.int64))
        thirds = self._split_qkv
        if self.row_scales:
            qkv = self.node("Reshape", [qkv, self.batch_shape], f"{prefix}qkv.batch")
        q, k, v = (f"{prefix}{part}" for part in ("q", "k", "v"))
        self.nodes.append(proto.node("Split", [qkv, thirds], [q, k, v], "", axis=-1))
        attention_inputs = [q, k, v] if mask is None and not qkv_bias else [q, k, v, qkv_bias, mask or ""]
        context = self.node(
            "MultiHeadAttention", attention_inputs, f"{prefix}context", _MS, num_heads=self.heads
        )
        if self.row_scales:
            context = self.node("Reshape", [context, self._rows["row_shape"]], f"{prefix}context.rows")
        attended = self.linear(context, f"{prefix}ao", weights.attention_out)
        x = self.layer_norm(attended, f"{prefix}aln", weights.attention_norm, x)
        inner = self.linear(x, f"{prefix}fi", weights.ffn_in)
        inner = self.node("Gelu", [inner], f"{prefix}gelu", domain=_MS)
        outer = self.linear(inner, f"{prefix}fo", weights.ffn_out)
        return self.layer_norm(outer, f"{prefix}oln", weights.output_norm, x)

    def save(self, path: Path, name: str, inputs: list[bytes], outputs: list[bytes]) -> None:
        proto.write_model(path, name, self.nodes, self.initializers, inputs, outputs, OPSETS)
