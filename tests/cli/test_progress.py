"""The progress bar of long CLI work: rate and time left, quiet when stderr is not a terminal."""

from __future__ import annotations

import io

from memwarden.progress import ProgressBar


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_bar_shows_rate_and_time_left_then_the_total_time() -> None:
    out, clock = Terminal(), Clock()
    bar = ProgressBar("importing", stream=out, clock=clock, width=10)
    clock.now += 10
    bar(1_000, 4_000)  # 100 per second, 3,000 to go: 30 s left
    assert out.getvalue() == "\rimporting [##........] 1000/4000 25% 100/s, 0:30 left\x1b[K"
    clock.now += 0.05
    bar(1_010, 4_000)  # within 0.1 s of the last redraw: not drawn
    assert out.getvalue().count("\r") == 1
    clock.now += 29.95
    bar(4_000, 4_000)
    assert out.getvalue().endswith("\rimporting [##########] 4000/4000 100% 100/s, took 0:40\x1b[K\n")
    bar(4_000, 4_000)  # finished: nothing more
    assert out.getvalue().count("\n") == 1


def test_hours_are_shown_when_the_work_is_long() -> None:
    out, clock = Terminal(), Clock()
    bar = ProgressBar("embedding", stream=out, clock=clock, width=4)
    clock.now += 60
    bar(60, 10_000)  # 1 per second: 9,940 s left
    assert out.getvalue().endswith("1/s, 2:45:40 left\x1b[K")


def test_quiet_when_not_a_terminal_unless_forced_and_below_the_minimum() -> None:
    piped = io.StringIO()
    ProgressBar("importing", stream=piped)(5, 5)
    assert piped.getvalue() == ""
    forced = io.StringIO()
    ProgressBar("importing", stream=forced, show=True)(5, 5)
    assert "5/5 100%" in forced.getvalue()
    small = Terminal()
    ProgressBar("importing", stream=small, min_total=1000)(5, 5)
    assert small.getvalue() == ""


def test_a_count_without_a_total_shows_the_rate_and_ends_its_line() -> None:
    out, clock = Terminal(), Clock()
    bar = ProgressBar("migrating", stream=out, clock=clock)
    clock.now += 2
    bar.count("memories", 500)
    bar.finish()
    assert out.getvalue() == "\rmigrating: memories 500 (250/s, 0:02)\x1b[K\n"
