"""The daemon's attach protocol with input past Python's parsing limits (JSON nested thousands
deep, a number of 5,001 digits): ``bad_frame`` or ``invalid_input`` naming what is wrong, on the
same connection, and the daemon stays up."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import raw_exchange

from memwarden.daemon.client import DaemonClient
from memwarden.daemon.launch import attach_or_start
from memwarden.daemon.place import DaemonPlace
from memwarden.daemon.protocol import hello_frame
from memwarden.settings_reader import load_hot_settings

DEEP = "[" * 100_000 + "]" * 100_000


def _prompt_body(hook_input: str) -> dict[str, Any]:
    return {"input": hook_input, "project": None, "limit": 5, "max_tokens": 600}


@pytest.fixture
def daemon(place: DaemonPlace) -> Iterator[tuple[DaemonPlace, DaemonClient]]:
    """A real daemon process (stopped by ``place``), and a call-mode client of it."""
    client = attach_or_start(place, load_hot_settings())
    try:
        yield place, client
    finally:
        client.close()


@pytest.mark.parametrize(
    ("hello", "says"),
    [
        (b"[" * 30_000 + b"]" * 30_000 + b"\n", "nested"),
        (b'{"memwarden":' + b"[" * 20_000 + b"]" * 20_000 + b"}\n", "nested"),
        (b'{"memwarden":1' + b"0" * 5000 + b"}\n", "digits"),
    ],
    ids=["deep", "deep-in-object", "huge-number"],
)
def test_a_hello_past_the_parser_limits_gets_bad_frame_and_the_daemon_stays_up(
    daemon: tuple[DaemonPlace, DaemonClient], hello: bytes, says: str
) -> None:
    place, client = daemon
    [answer] = raw_exchange(place, hello)
    assert answer["ok"] is False and answer["error"]["code"] == "bad_frame"
    assert says in answer["error"]["message"]
    assert client.call("ping")["pid"]
    log = Path(os.environ["MEMWARDEN_LOG_FILE"])
    assert "RecursionError" not in (log.read_text(encoding="utf-8") if log.exists() else "")


def test_calls_past_the_parser_limits_get_clear_errors_on_the_same_connection(
    daemon: tuple[DaemonPlace, DaemonClient],
) -> None:
    place, client = daemon
    hello = json.dumps(hello_frame(load_hot_settings(), mode="call")).encode() + b"\n"

    def hook_prompt(request_id: int, hook_input: str) -> bytes:
        return (
            json.dumps({"id": request_id, "op": "hook_prompt", "args": _prompt_body(hook_input)}).encode()
            + b"\n"
        )

    answers = raw_exchange(
        place,
        hello,
        b'{"id":2,"op":"search","args":' + b"[" * 30_000 + b"]" * 30_000 + b"}\n",
        b'{"id":1' + b"0" * 5000 + b',"op":"ping"}\n',
        hook_prompt(8, DEEP),
        hook_prompt(9, '{"prompt":1' + "0" * 5000 + "}"),
        b'{"id":10,"op":"ping","args":{}}\n',
    )
    assert answers[0]["ok"] is True
    errors = [(a.get("id"), a["error"]["code"], a["error"]["message"]) for a in answers[1:5]]
    assert [e[:2] for e in errors] == [
        (None, "bad_frame"),
        (None, "bad_frame"),
        (8, "invalid_input"),
        (9, "invalid_input"),
    ]
    assert "nested" in errors[0][2] and "digits" in errors[1][2]
    assert "input" in errors[2][2] and "nested" in errors[2][2] and "digits" in errors[3][2]
    assert answers[5]["ok"] is True and answers[5]["id"] == 10
    assert client.call("ping")["pid"]
