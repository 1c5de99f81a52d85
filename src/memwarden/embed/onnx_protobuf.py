"""The few parts of the ONNX file format the builtin models' makers write and read, without ``onnx``.

Why not the ``onnx`` package: it (and ``ml_dtypes`` under it) was a runtime dependency only for
making the two int8 files once, and importing it held the interpreter lock long enough to stall
a server that loads its model in a background thread, which is why the files were made in a
child process. The messages needed here are few and fixed (``onnx.proto``, IR version 8): a
model with one graph of nodes, tensors with raw bytes, and inputs and outputs with their shapes.
Writing them takes the protobuf wire format alone; reading takes even less (the initializers
and node wiring of the packaged MiniLM file, ``minilm_graph.py``). onnxruntime validates every
file it loads, so a mistake here fails loudly at session creation.

Wire format: each field is a key (field number << 3 | wire type) and a value: a varint (type 0),
a fixed64 (type 1), length-prefixed bytes (type 2) or a fixed32 (type 5).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: onnx.proto's TensorProto.DataType values for the numpy types the graphs use.
FLOAT, UINT8, INT8, INT32, INT64 = 1, 2, 3, 6, 7
_DTYPES = {FLOAT: "<f4", UINT8: "u1", INT8: "i1", INT32: "<i4", INT64: "<i8"}
_CODES = {"float32": FLOAT, "uint8": UINT8, "int8": INT8, "int32": INT32, "int64": INT64}
#: The IR version of opset 17, which every onnxruntime since 1.13 reads.
IR_VERSION = 8
_VARINT, _FIXED64, _BYTES, _FIXED32 = 0, 1, 2, 5
#: AttributeProto.AttributeType values.
_ATTR_FLOAT, _ATTR_INT, _ATTR_INTS = 1, 2, 7


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int64 values are written as their two's complement
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _key(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def _int(number: int, value: int) -> bytes:
    return _key(number, _VARINT) + _varint(value)


def _text(number: int, value: str) -> bytes:
    return _message(number, value.encode("utf-8"))


def _message(number: int, body: bytes) -> bytes:
    return _key(number, _BYTES) + _varint(len(body)) + body


def tensor(name: str, array: Any) -> list[bytes | memoryview]:
    """A TensorProto with raw little-endian bytes, as pieces: the array's own buffer is the
    last piece (no copy of a large weight matrix)."""
    import numpy as np

    data = np.ascontiguousarray(array)
    code = _CODES.get(data.dtype.name)
    if code is None:
        raise ValueError(f"tensor {name}: no ONNX type for {data.dtype}")
    head = b"".join(_int(1, dim) for dim in data.shape) + _int(2, code) + _text(8, name)
    raw = data.reshape(-1).view(np.uint8).data
    return [head + _key(9, _BYTES) + _varint(raw.nbytes), raw]


def node(op: str, inputs: Sequence[str], outputs: Sequence[str], domain: str, **attrs: Any) -> bytes:
    """A NodeProto named after its first output; attributes are ints, floats or lists of ints."""
    body = b"".join(_text(1, name) for name in inputs) + b"".join(_text(2, name) for name in outputs)
    body += _text(3, outputs[0]) + _text(4, op)
    for name, value in sorted(attrs.items()):
        body += _message(5, _attribute(name, value))
    if domain:
        body += _text(7, domain)
    return body


def _attribute(name: str, value: Any) -> bytes:
    if isinstance(value, float):
        return _text(1, name) + _key(2, _FIXED32) + struct.pack("<f", value) + _int(20, _ATTR_FLOAT)
    if isinstance(value, int):
        return _text(1, name) + _int(3, value) + _int(20, _ATTR_INT)
    if isinstance(value, list) and all(isinstance(item, int) for item in value):
        return _text(1, name) + b"".join(_int(8, item) for item in value) + _int(20, _ATTR_INTS)
    raise ValueError(f"attribute {name}: unsupported value {value!r}")


def value_info(name: str, elem_type: int, dims: Sequence[int | str]) -> bytes:
    """A ValueInfoProto: a graph input or output of ``elem_type`` with fixed or named dims."""
    shape = b"".join(_message(1, _int(1, dim) if isinstance(dim, int) else _text(2, dim)) for dim in dims)
    tensor_type = _int(1, elem_type) + _message(2, shape)
    return _text(1, name) + _message(2, _message(1, tensor_type))


def write_model(
    path: Path,
    graph_name: str,
    nodes: Iterable[bytes],
    initializers: Iterable[Sequence[bytes | memoryview]],
    inputs: Iterable[bytes],
    outputs: Iterable[bytes],
    opsets: dict[str, int],
) -> None:
    """Write a ModelProto to ``path``, streaming the initializers' pieces (the graph is never
    joined into one buffer)."""
    pieces: list[bytes | memoryview] = [b"".join(_message(1, item) for item in nodes), _text(2, graph_name)]
    for parts in initializers:
        size = sum(len(part) if isinstance(part, bytes) else part.nbytes for part in parts)
        pieces.append(_key(5, _BYTES) + _varint(size))
        pieces.extend(parts)
    pieces.append(b"".join(_message(11, item) for item in inputs))
    pieces.append(b"".join(_message(12, item) for item in outputs))
    graph_size = sum(len(part) if isinstance(part, bytes) else part.nbytes for part in pieces)
    opset_ids = b"".join(
        _message(8, _text(1, domain) + _int(2, version)) for domain, version in opsets.items()
    )
    with path.open("wb") as out:
        out.write(_int(1, IR_VERSION) + _text(2, "memwarden") + _key(7, _BYTES) + _varint(graph_size))
        for part in pieces:
            out.write(part)
        out.write(opset_ids)


@dataclass
class SourceNode:
    op: str
    inputs: list[str]
    outputs: list[str]


@dataclass
class SourceModel:
    """The graph of an ONNX file as far as a maker reads it: its nodes' wiring and its
    initializers as arrays over the memory-mapped file (read-only, no copy)."""

    nodes: list[SourceNode] = field(default_factory=list)
    initializers: dict[str, Any] = field(default_factory=dict)


def read_model(path: Path) -> SourceModel:
    """Read the nodes and raw-data initializers of the ONNX file at ``path``; ValueError on a
    file that is not one (the caller checked its SHA-256, so that means a changed release)."""
    import numpy as np

    data = np.memmap(path, dtype=np.uint8, mode="r")
    view = memoryview(data)  # type: ignore[arg-type]
    model = SourceModel()
    for number, start, end in _fields(view, 0, len(view)):
        if number == 7:
            for part, at, stop in _fields(view, start, end):
                if part == 1:
                    model.nodes.append(_read_node(view, at, stop))
                elif part == 5:
                    name, array = _read_tensor(data, view, at, stop)
                    model.initializers[name] = array
    if not model.nodes:
        raise ValueError(f"{path} holds no ONNX graph")
    return model


def _read_node(view: memoryview, start: int, end: int) -> SourceNode:
    found = SourceNode("", [], [])
    for number, at, stop in _fields(view, start, end):
        if number in (1, 2):
            (found.inputs if number == 1 else found.outputs).append(bytes(view[at:stop]).decode("utf-8"))
        elif number == 4:
            found.op = bytes(view[at:stop]).decode("utf-8")
    return found


def _read_tensor(data: Any, view: memoryview, start: int, end: int) -> tuple[str, Any]:
    dims: list[int] = []
    code, name, raw = 0, "", (0, 0)
    for number, at, stop in _fields(view, start, end):
        if number == 1:
            dims.append(_read_varint(view, at)[0])
        elif number == 2:
            code = _read_varint(view, at)[0]
        elif number == 8:
            name = bytes(view[at:stop]).decode("utf-8")
        elif number == 9:
            raw = (at, stop)
    dtype = _DTYPES.get(code)
    if dtype is None or raw[1] == 0:
        return name, None  # not a type or layout the makers read
    return name, data[raw[0] : raw[1]].view(dtype).reshape(dims)


def _fields(view: memoryview, start: int, end: int) -> Iterator[tuple[int, int, int]]:
    """(field number, start, end) of each field of the message at ``view[start:end]``; for a
    varint field the span is the varint itself."""
    at = start
    while at < end:
        key, at = _read_varint(view, at)
        number, wire = key >> 3, key & 7
        if wire == _VARINT:
            _, stop = _read_varint(view, at)
        elif wire == _BYTES:
            size, at = _read_varint(view, at)
            stop = at + size
        elif wire in (_FIXED64, _FIXED32):
            stop = at + (8 if wire == _FIXED64 else 4)
        else:
            raise ValueError(f"unsupported protobuf wire type {wire} at byte {at}")
        if stop > end:
            raise ValueError(f"protobuf field {number} runs past its message at byte {at}")
        yield number, at, stop
        at = stop


def _read_varint(view: memoryview, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = view[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7
