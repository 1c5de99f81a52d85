"""The vector snapshot's rows: picks read with pread, scans through the mapping, released after.

At 1M memories the rows HNSW candidates are rescored from are a different few hundred each
search; read through the mapping, their pages stayed in the server's resident memory (2.0 GB
after 200 searches, issue 21). These tests read the kernel's own account of the mapping
(``/proc/self/smaps``) to check that picks leave no page of the file in the process.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from memwarden.store.sqlite.vector_slots import BLOCK_ROWS, FileRows, SlotMatrix

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/smaps")

DIM = 384


def mapped_kib(path: Path) -> int:
    """Resident KiB of every mapping of ``path`` in this process."""
    total, inside = 0, False
    for line in Path("/proc/self/smaps").read_text().splitlines():
        head = line.split()
        if head and "-" in head[0] and len(head) >= 5 and ":" not in head[0]:
            inside = line.rstrip().endswith(str(path))
        elif inside and line.startswith("Rss:"):
            total += int(head[1])
    return total


@pytest.fixture
def matrix_file(tmp_path: Path) -> tuple[Path, np.ndarray]:
    rows = np.random.default_rng(3).standard_normal((BLOCK_ROWS + 5_000, DIM)).astype(np.float32)
    path = tmp_path / "matrix-test.f32"
    path.write_bytes(rows.tobytes())
    return path, rows


def test_picked_rows_are_exact_and_leave_no_page_of_the_file_in_the_process(
    matrix_file: tuple[Path, np.ndarray],
) -> None:
    path, rows = matrix_file
    base = FileRows(path, len(rows), DIM)
    matrix = SlotMatrix(DIM, base)
    matrix.append(np.ones((3, DIM), dtype=np.float32))
    rng = np.random.default_rng(5)
    for _ in range(200):
        slots = rng.integers(0, len(rows) + 3, size=400)
        got = matrix.rows(slots)
        in_base = slots < len(rows)
        assert np.array_equal(got[in_base], rows[slots[in_base]])
        assert np.all(got[~in_base] == 1.0)
    # 200 x 400 random rows touched about every page of the 110 MB file; none is resident here.
    assert mapped_kib(path) == 0


def test_a_one_off_pass_releases_the_pages_it_read_and_a_scan_sees_every_row(
    matrix_file: tuple[Path, np.ndarray],
) -> None:
    path, rows = matrix_file
    matrix = SlotMatrix(DIM, FileRows(path, len(rows), DIM))
    seen = 0
    for first, block in matrix.segments(0, len(rows), transient=True):
        assert np.array_equal(block, rows[first : first + len(block)])
        assert len(block) <= BLOCK_ROWS
        seen += len(block)
    assert seen == len(rows)
    assert mapped_kib(path) < 64  # at most a page at a block's edge
    query = rows[7]
    scores = matrix.scores(query, 0, len(rows))
    assert int(np.argmax(scores)) == 7
    assert mapped_kib(path) > 100_000  # a scan (exact search of a small space) maps what it reads


def test_a_matrix_file_shorter_than_its_rows_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "short.f32"
    path.write_bytes(np.zeros((10, DIM), dtype=np.float32).tobytes())
    with pytest.raises(ValueError, match="fewer than 11 rows"):
        FileRows(path, 11, DIM)
