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
  ``Add`` then ``LayerNormalization``.

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
        self, *, heads: int, eps: float, separate_skip_norm: bool = False, zero_points: bool = True
    ) -> None:
        """``separate_skip_norm``: residual sums as ``Add`` + ``LayerNormalization`` (module
        docstring). ``zero_points=False`` leaves out the weights' zero points, which are all zero
        (symmetric int8): the same products, without onnxruntime's per-column zero-point path."""
        self.heads = heads
        self.eps = eps
        self.separate_skip_norm = separate_skip_norm
        self.zero_points = zero_points
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
        """One encoder layer over ``x``; ``mask`` is an int32 ``[batch, tokens]`` key padding mask."""
        import numpy as np

        hidden = weights.attention_out.weight.shape[1]
        qkv = self.linear(x, f"{prefix}qkv", weights.qkv)
        if not self._split_qkv:  # one constant for every layer's split
            self._split_qkv = self.const("split.qkv", np.array([hidden] * 3, dtype=np.int64))
        thirds = self._split_qkv
        q, k, v = (f"{prefix}{part}" for part in ("q", "k", "v"))
        self.nodes.append(proto.node("Split", [qkv, thirds], [q, k, v], "", axis=-1))
        attention_inputs = [q, k, v] if mask is None else [q, k, v, "", mask]
        context = self.node(
            "MultiHeadAttention", attention_inputs, f"{prefix}context", _MS, num_heads=self.heads
        )
        attended = self.linear(context, f"{prefix}ao", weights.attention_out)
        x = self.layer_norm(attended, f"{prefix}aln", weights.attention_norm, x)
        inner = self.linear(x, f"{prefix}fi", weights.ffn_in)
        inner = self.node("Gelu", [inner], f"{prefix}gelu", domain=_MS)
        outer = self.linear(inner, f"{prefix}fo", weights.ffn_out)
        return self.layer_norm(outer, f"{prefix}oln", weights.output_norm, x)

    def save(self, path: Path, name: str, inputs: list[bytes], outputs: list[bytes]) -> None:
        proto.write_model(path, name, self.nodes, self.initializers, inputs, outputs, OPSETS)
