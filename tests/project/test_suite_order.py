"""The suite's own scheduling: the files handed out first exist, so a rename cannot quietly
send a long file to the back of the queue."""

from __future__ import annotations

from pathlib import Path

from suite_order import LONGEST_FIRST

TESTS = Path(__file__).resolve().parents[1]


def test_every_file_named_longest_first_exists_once() -> None:
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)
    assert [name for name in LONGEST_FIRST if not (TESTS / name).is_file()] == []
