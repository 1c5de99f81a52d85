"""The daemon limits each actor's writes and searches (issue 33): its error frame names the limit
and the wait, ``memwarden add`` prints it as one line (exit 1), nothing is stored, and another
actor of the same daemon is not slowed."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from memwarden.daemon.client import DaemonClient
from memwarden.daemon.launch import attach_or_start
from memwarden.daemon.place import DaemonPlace
from memwarden.errors import MemwardenError
from memwarden.settings_reader import load_hot_settings


@pytest.fixture
def limited(place: DaemonPlace, monkeypatch: pytest.MonkeyPatch) -> DaemonPlace:
    monkeypatch.setenv("MEMWARDEN_RATE_WRITES_PER_MINUTE", "2")
    monkeypatch.setenv("MEMWARDEN_RATE_SEARCHES_PER_MINUTE", "3")
    return place


def test_calls_past_an_actors_limit_get_an_error_naming_it_and_other_actors_go_on(
    limited: DaemonPlace,
) -> None:
    with attach_or_start(limited, load_hot_settings()) as client:
        for n in range(2):
            client.call("add", {"content": f"release note {n} for the rate limit test"})
        with pytest.raises(MemwardenError) as refused:
            client.call("add", {"content": "one write too many"})
        assert refused.value.code == "rate_limited"
        assert (
            "MEMWARDEN_RATE_WRITES_PER_MINUTE" in refused.value.message
            and "retry in" in refused.value.message
        )
        for _ in range(3):
            client.call("search", {"query": "release note"})
        with pytest.raises(MemwardenError) as searched:
            client.call("recall", {"query": "release", "projects": [None], "limit": 3})
        assert "MEMWARDEN_RATE_SEARCHES_PER_MINUTE" in searched.value.message
    with DaemonClient.attach(limited, load_hot_settings(actor="someone-else")) as other:
        other.call("add", {"content": "another actor's write goes through"})


def test_the_cli_prints_the_limit_as_one_line_and_stores_nothing(limited: DaemonPlace) -> None:
    env = {**os.environ, "MEMWARDEN_DAEMON": "only", "MEMWARDEN_EMBEDDER": "none"}
    results = [
        subprocess.run(
            [sys.executable, "-m", "memwarden", "add", f"cli write number {n}"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        for n in range(3)
    ]
    assert [r.returncode for r in results] == [0, 0, 1], [r.stderr for r in results]
    line = results[2].stderr.strip()
    assert line.startswith("memwarden: actor ") and "\n" not in line
    assert "more than 2 writes in a minute (rate limit MEMWARDEN_RATE_WRITES_PER_MINUTE); retry in" in line
    listed = subprocess.run(
        [sys.executable, "-m", "memwarden", "list", "--json"],
        env={**env, "MEMWARDEN_DAEMON": "off"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 0 and "cli write number 2" not in listed.stdout
    assert "cli write number 1" in listed.stdout
