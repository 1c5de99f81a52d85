"""Every stdio request gets an answer (issue 14): raw bytes to a real ``memwarden serve``."""

from __future__ import annotations

import json
import select
import subprocess
import sys
import time
from typing import Any

import pytest

from memwarden.json_limits import read_request_id
from memwarden.mcp.stdio import triage

ANSWER_TIMEOUT = 30.0


class StdioPeer:
    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "memwarden", "serve"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.buffer = b""

    def send(self, raw: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(raw + b"\n")
        self.process.stdin.flush()

    def answer(self) -> dict[str, Any]:
        """The next line the server writes, within a bounded wait."""
        assert self.process.stdout is not None
        deadline = time.monotonic() + ANSWER_TIMEOUT
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.process.stdout], [], [], max(left, 0))
            if not ready:
                raise AssertionError(
                    f"no answer within {ANSWER_TIMEOUT} s (server alive: {self.process.poll() is None})"
                )
            chunk = self.process.stdout.read1(65536)  # type: ignore[attr-defined]
            if not chunk:
                raise AssertionError(f"the server closed stdout; stderr: {self.process.stderr.read()!r}")  # type: ignore[union-attr]
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return dict(json.loads(line))

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        code = self.process.wait(timeout=30)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        return code


def _request(id_: int, method: str, params: dict[str, Any] | None = None) -> bytes:
    return json.dumps(
        {"jsonrpc": "2.0", "id": id_, "method": method, **({"params": params} if params else {})}
    ).encode()


@pytest.fixture
def peer(cli_env: dict[str, str]):  # type: ignore[no-untyped-def]
    server = StdioPeer(cli_env)
    server.send(
        _request(
            1,
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        )
    )
    assert server.answer()["id"] == 1
    server.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
    yield server
    if server.process.poll() is None:
        server.process.kill()
        server.close()


def test_unparseable_requests_get_errors_with_their_ids_and_the_server_keeps_serving(peer: StdioPeer) -> None:
    call = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "memory_add", "arguments": {}}}
    surrogate = json.dumps({**call, "id": 10}).replace("{}", '{"content": "x \\ud800 y"}').encode()
    deep = json.dumps({**call, "id": 11}).replace("{}", '{"content": ' + "[" * 300 + "]" * 300 + "}").encode()
    cases: list[tuple[bytes, Any, int]] = [
        (surrogate, 10, -32700),
        (deep, 11, -32700),
        (
            b'{"jsonrpc": "2.0", "id": "s-12", "method": "tools/call", "params": {"x": "\xff"}}',
            "s-12",
            -32700,
        ),
        (b"this is not json", None, -32700),
        (b'{"jsonrpc": "2.0", "id": 13, "method": ', 13, -32700),  # cut off mid-line
        (b'{"jsonrpc": "2.0", "id": 14, "method": 7}', 14, -32600),
        (b"[1, 2, 3]", None, -32600),
    ]
    for raw, expected_id, code in cases:
        peer.send(raw)
        answer = peer.answer()
        assert answer["id"] == expected_id and answer["error"]["code"] == code, (raw[:60], answer)
        assert answer["error"]["message"]
    assert "lone surrogate" in _answer_to(peer, surrogate)["error"]["message"]
    assert "nested deeper" in _answer_to(peer, deep)["error"]["message"]
    peer.send(
        _request(
            20,
            "tools/call",
            {"name": "memory_add", "arguments": {"content": "still serving after bad input"}},
        )
    )
    added = peer.answer()
    assert added["id"] == 20 and added["result"]["isError"] is False
    peer.send(_request(21, "tools/call", {"name": "memory_search", "arguments": {"query": "x \\ud800 y"}}))
    assert peer.answer()["id"] == 21
    assert peer.close() == 0


def _answer_to(peer: StdioPeer, raw: bytes) -> dict[str, Any]:
    peer.send(raw)
    return peer.answer()


def test_a_well_formed_error_response_from_the_client_is_not_answered(peer: StdioPeer) -> None:
    peer.send(b'{"id": 99, "result": "no jsonrpc field"}')
    peer.send(_request(30, "ping"))
    assert peer.answer() == {"jsonrpc": "2.0", "id": 30, "result": {}}
    assert peer.close() == 0


def test_request_ids_are_read_from_text_no_parser_accepts() -> None:
    assert read_request_id(b'{"jsonrpc": "2.0", "params": {"id": 9}, "id": 7, "x": ' + b"[" * 5000) == 7
    assert read_request_id(b'{"a": "\\"id\\": 5", "id": "real"}') == "real"
    assert read_request_id(b'{"id": 1.5}') is None and read_request_id(b'{"id": "\\udc00"}') is None
    assert read_request_id(b'[{"id": 3}]') is None  # a batch is not one request


def test_triage_passes_good_messages_through_unchanged() -> None:
    triaged = triage(_request(5, "ping"))
    assert triaged is not None and triaged[0] is False
    assert triaged[1].message.model_dump(exclude_unset=True) == {"jsonrpc": "2.0", "id": 5, "method": "ping"}
