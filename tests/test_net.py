"""One loopback check for every part (issue 34): which hosts are loopback, read the same way by the
HTTP server's start-up, the prompt hook's server URL, the dashboard launcher and ``/healthz``."""

from __future__ import annotations

import _socket
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memwarden.config import load_settings
from memwarden.errors import ConfigError
from memwarden.hooks.loopback import loopback_address
from memwarden.http.guard import client_is_loopback
from memwarden.net import LoopbackError, connected, is_loopback, parse_bind, read_line

LOOPBACK = [
    "localhost",
    "LocalHost",
    "127.0.0.1",
    "127.0.0.2",
    "127.255.255.254",
    "127.1.2.3",
    "::1",
    "[::1]",
    "0:0:0:0:0:0:0:1",
    "0000:0000:0000:0000:0000:0000:0000:0001",
    "::0:1",
    "::1%lo",
    "::ffff:127.0.0.1",
    "::FFFF:127.9.8.7",
    "::ffff:7f00:1",
    "[::ffff:127.0.0.1]",
]

NOT_LOOPBACK = [
    "",
    "0.0.0.0",
    "::",
    "[::]",
    "10.0.0.1",
    "128.0.0.1",
    "126.255.255.255",
    "192.168.1.127",
    "example.com",
    "localhost.example.com",
    "evil-localhost",
    "127.0.0.1.example.com",
    "127.0.0.256",
    "127.0.0",
    "127.1",
    "127.0.0.01",
    "0177.0.0.1",
    "127.0.0.1 ",
    "127.0.0.\u0661",
    "::2",
    "::ffff:10.0.0.1",
    "::127.0.0.1",
    "fe80::1%eth0",
    "[::1",
    "::1]",
    ":::1",
    "2001:db8::1",
]


@pytest.mark.parametrize("host", LOOPBACK)
def test_loopback_hosts_are_loopback(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", NOT_LOOPBACK)
def test_other_hosts_are_not_loopback(host: str) -> None:
    assert not is_loopback(host)


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("http://127.0.0.1:8765", "127.0.0.1"),
        ("http://localhost:8765", "localhost"),
        ("http://[::1]:8765", "::1"),
        ("http://[::ffff:127.0.0.1]:8765", "::ffff:127.0.0.1"),
    ],
)
def test_the_hook_sends_prompts_to_every_loopback_spelling(url: str, host: str) -> None:
    assert loopback_address(url) == (host, 8765, "")


@pytest.mark.parametrize(
    "url", ["http://[::ffff:10.0.0.1]:8765", "http://127.0.0.1.example.com:8765", "http://0.0.0.0:8765"]
)
def test_the_hook_sends_no_prompt_off_loopback(url: str) -> None:
    with pytest.raises(LoopbackError, match="not a loopback address"):
        loopback_address(url)


@pytest.mark.parametrize(
    ("client", "expected"),
    [
        (("127.0.0.1", 5000), True),
        (("::ffff:127.0.0.1", 5000), True),
        (("10.1.2.3", 5000), False),
        (None, False),
    ],
)
def test_healthz_reads_the_connecting_address_with_the_same_check(
    client: tuple[str, int] | None, expected: bool
) -> None:
    assert client_is_loopback({"type": "http", "client": client}) is expected


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("127.0.0.1:8765", ("127.0.0.1", 8765)),
        (" localhost:1 ", ("localhost", 1)),
        ("[::1]:65535", ("::1", 65535)),
        ("0.0.0.0:80", ("0.0.0.0", 80)),
        ("127.0.0.1:0", ("127.0.0.1", 0)),  # a free port, picked at start
    ],
)
def test_a_bind_address_is_read_as_host_and_port(address: str, expected: tuple[str, int]) -> None:
    assert parse_bind(address) == expected


@pytest.mark.parametrize(
    "address", ["", "8765", ":8765", "127.0.0.1", "127.0.0.1:-1", "127.0.0.1:65536", "h:x"]
)
def test_a_bad_bind_address_is_refused_naming_the_setting(address: str) -> None:
    with pytest.raises(ConfigError, match=r"--http / MEMWARDEN_HTTP .* is not HOST:PORT"):
        parse_bind(address)


def test_the_server_starts_without_a_token_on_mapped_loopback_only(tmp_path: Path) -> None:
    from memwarden.http.app import check_bind

    settings = load_settings(db=str(tmp_path / "m.db"))
    assert check_bind(settings, "[::ffff:127.0.0.1]:8765") == ("::ffff:127.0.0.1", 8765)
    with pytest.raises(ConfigError, match="not a loopback address"):
        check_bind(settings, "[::ffff:10.0.0.1]:8765")


def test_the_check_imports_ipaddress_only_for_hosts_with_a_colon() -> None:
    probe = (
        "import sys; from memwarden.net import is_loopback; "
        "assert is_loopback('127.0.0.1') and not is_loopback('example.com'); "
        "first = 'ipaddress' in sys.modules; is_loopback('::1'); "
        "print(first, 'ipaddress' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.split() == ["False", "True"]


def test_lines_are_read_in_order_and_what_follows_is_kept() -> None:
    left, right = socket.socketpair()
    try:
        left.sendall(b"first\nsecond\npart")
        pending = bytearray()
        deadline = time.monotonic() + 5.0
        assert read_line(right, pending, deadline, 1024) == b"first"
        assert pending == bytearray(b"second\npart")
        assert read_line(right, pending, deadline, 1024) == b"second"
        left.sendall(b"ial\nno end")
        assert read_line(right, pending, deadline, 1024) == b"partial"
        left.close()
        with pytest.raises(LoopbackError, match="closed before a full answer"):
            read_line(right, pending, deadline, 1024)
    finally:
        left.close()
        right.close()


def test_a_line_is_not_waited_for_past_its_deadline() -> None:
    left, right = socket.socketpair()
    try:
        left.sendall(b"no end")
        with pytest.raises(TimeoutError):
            read_line(right, bytearray(), time.monotonic() + 0.05, 1024)
    finally:
        left.close()
        right.close()


def test_a_line_past_its_limit_is_refused() -> None:
    left, right = socket.socketpair()
    try:
        left.sendall(b"x" * 100)
        with pytest.raises(LoopbackError, match="answer too large"):
            read_line(right, bytearray(), time.monotonic() + 5.0, 10)
    finally:
        left.close()
        right.close()


def test_a_connection_is_made_within_its_timeout() -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        sock = connected(_socket.AF_INET, ("127.0.0.1", listener.getsockname()[1]), 5.0)
        try:
            accepted, _ = listener.accept()
            accepted.sendall(b"hello\n")
            assert read_line(sock, bytearray(), time.monotonic() + 5.0, 64) == b"hello"
            accepted.close()
        finally:
            sock.close()


def test_connecting_to_a_closed_port_fails_and_leaves_no_socket_open() -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    with pytest.raises(ConnectionRefusedError):
        connected(_socket.AF_INET, ("127.0.0.1", port), 2.0)
