"""The Claude Desktop bundle's icon: a small PNG drawn here, pixel by pixel, with the standard
library (no image file to keep in step, nothing downloaded).

A rounded square in memwarden's dark teal with a white ring (the "memory") around a solid dot,
at ``SIZE`` pixels a side, RGBA so that the corners are transparent.
"""

from __future__ import annotations

import struct
import zlib

SIZE = 128
_TEAL = (18, 94, 99, 255)
_WHITE = (250, 250, 245, 255)
_CLEAR = (0, 0, 0, 0)


def _pixel(x: float, y: float) -> tuple[int, int, int, int]:
    half = SIZE / 2
    dx, dy = abs(x - half), abs(y - half)
    corner = SIZE * 0.22  # radius of the square's rounded corners
    inner = half - corner
    if dx > inner and dy > inner and (dx - inner) ** 2 + (dy - inner) ** 2 > corner**2:
        return _CLEAR
    distance = (dx * dx + dy * dy) ** 0.5
    if distance < SIZE * 0.14 or SIZE * 0.26 < distance < SIZE * 0.34:
        return _WHITE
    return _TEAL


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def icon_png() -> bytes:
    """The icon as PNG bytes (8-bit RGBA, no interlace)."""
    rows = b"".join(
        b"\x00" + b"".join(bytes(_pixel(x + 0.5, y + 0.5)) for x in range(SIZE)) for y in range(SIZE)
    )
    header = struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(rows, 9))
        + _chunk(b"IEND", b"")
    )
