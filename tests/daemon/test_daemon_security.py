"""Who may talk to the daemon, and what a bad client gets: a clear error, and the daemon stays up."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest
from conftest import raw_exchange

from memwarden import __version__
from memwarden.daemon.client import AttachRefused, DaemonClient, DaemonUnavailable
from memwarden.daemon.launch import attach_or_start
from memwarden.daemon.place import DaemonPlace, PlaceError
from memwarden.daemon.protocol import MAX_HELLO_BYTES, hello_frame
from memwarden.settings_reader import HotSettings, load_hot_settings

NOBODY = 65534
# The other user runs a standard-library script with an interpreter it may execute (this
# virtual environment's may sit under root's home).
OTHER_PYTHON = next(
    (p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if os.access(p, os.X_OK)), None
)
as_root = pytest.mark.skipif(
    not hasattr(os, "getuid") or os.getuid() != 0 or OTHER_PYTHON is None,
    reason="switching to another user needs root and a system python3",
)


def good_hello(settings: HotSettings) -> bytes:
    return json.dumps(hello_frame(settings, mode="call")).encode() + b"\n"


BAD_HELLOS = [
    (b"hello daemon\n", "bad_frame", "not a JSON line"),
    (b"[1, 2]\n", "bad_hello", "JSON object"),
    (b'{"memwarden": 99}\n', "protocol", "protocol 1"),
    (b'{"memwarden": 1, "version": "0.0.1"}\n', "version_differs", "memwarden daemon stop"),
    (
        json.dumps({"memwarden": 1, "version": __version__, "mode": "shell"}).encode() + b"\n",
        "bad_hello",
        "mode",
    ),
    (
        json.dumps(
            {
                "memwarden": 1,
                "version": __version__,
                "mode": "call",
                "tenant": "",
                "actor": "me",
                "settings": {},
            }
        ).encode()
        + b"\n",
        "bad_hello",
        "tenant",
    ),
    (
        json.dumps(
            {
                "memwarden": 1,
                "version": __version__,
                "mode": "call",
                "tenant": "t",
                "actor": "me",
                "settings": {"rm": "x"},
            }
        ).encode()
        + b"\n",
        "bad_hello",
        "unknown rm",
    ),
    (b"x" * (MAX_HELLO_BYTES + 10), "bad_hello", "longer than"),
]


def test_a_bad_hello_gets_a_clear_error_and_the_daemon_stays_up(
    client: DaemonClient, place: DaemonPlace
) -> None:
    for frame, code, says in BAD_HELLOS:
        [answer] = raw_exchange(place, frame)
        assert answer["ok"] is False
        error = answer["error"]
        assert isinstance(error, dict) and error["code"] == code and says in str(error["message"]), frame[:80]
        assert client.call("ping")["pid"]  # everyone else is still served


def test_bad_requests_after_the_hello_get_errors_on_the_same_connection(
    client: DaemonClient, place: DaemonPlace, settings: HotSettings
) -> None:
    answers = raw_exchange(
        place,
        good_hello(settings),
        b"{not json\n",
        b'{"id": 1, "op": "format_disk"}\n',
        b'{"id": 2, "op": "search", "args": []}\n',
        b'{"id": 3, "op": "recall", "args": {"query": 7}}\n',
        b'{"id": 4, "op": "ping"}\n',
    )
    assert answers[0]["ok"] is True
    codes = [a["error"]["code"] if not a["ok"] else "ok" for a in answers[1:]]  # type: ignore[index]
    assert codes == ["bad_frame", "unknown_op", "bad_call", "invalid_input", "ok"]
    assert answers[3]["id"] == 3 - 1 and answers[5]["id"] == 4
    assert client.call("ping")["pid"]


def test_a_client_that_hangs_up_mid_frame_does_not_disturb_the_daemon(
    client: DaemonClient, place: DaemonPlace
) -> None:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(str(place.socket_path))
        sock.sendall(b'{"memwarden": 1, "mo')
    assert client.call("ping")["pid"]


def test_the_socket_and_its_folder_are_closed_to_other_users(
    client: DaemonClient, place: DaemonPlace
) -> None:
    assert (place.folder.stat().st_mode & 0o777) == 0o700
    assert (place.socket_path.stat().st_mode & 0o077) == 0


CONNECT_AS_OTHER_USER = """
import socket, sys
sock = socket.socket(socket.AF_UNIX)
sock.settimeout(10)
try:
    sock.connect(sys.argv[1])
except PermissionError:
    print("refused: permission"); sys.exit(0)
# The daemon answers a stranger before reading anything: read its answer first.
print(sock.recv(65536).decode())
"""


@as_root
def test_the_daemon_refuses_connections_from_other_users(client: DaemonClient, place: DaemonPlace) -> None:
    def as_nobody() -> str:
        return subprocess.run(
            [str(OTHER_PYTHON), "-I", "-c", CONNECT_AS_OTHER_USER, str(place.socket_path)],
            user=NOBODY,
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout.strip()

    # The folder's mode keeps other users away from the socket file...
    assert as_nobody() == "refused: permission"
    # ...and should it be opened anyway, the daemon checks the peer's user id itself.
    place.folder.parent.chmod(0o755)  # the test's runtime folder (mkdtemp made it 0700)
    place.folder.chmod(0o755)
    place.socket_path.chmod(0o666)
    try:
        answer = json.loads(as_nobody())
    finally:
        place.folder.chmod(0o700)
        place.socket_path.chmod(0o600)
    assert answer["ok"] is False and answer["error"]["code"] == "wrong_user"
    assert f"not {NOBODY}" in answer["error"]["message"]
    assert client.call("ping")["pid"]


def test_a_client_will_not_use_a_folder_other_users_can_open(
    client: DaemonClient, place: DaemonPlace, settings: HotSettings
) -> None:
    place.folder.chmod(0o777)
    try:
        with pytest.raises(DaemonUnavailable, match="open to other users"):
            DaemonClient.attach(place, settings)
        with pytest.raises(PlaceError, match="chmod 700"):
            place.prepare()
    finally:
        place.folder.chmod(0o700)


@pytest.fixture
def tcp_client(place: DaemonPlace, settings: HotSettings) -> DaemonClient:
    return attach_or_start(place, settings, transport="tcp")


def test_the_tcp_transport_keeps_its_token_in_a_private_file(
    tcp_client: DaemonClient, place: DaemonPlace, settings: HotSettings
) -> None:
    with tcp_client:
        assert not place.socket_path.exists()
        assert (place.token_path.stat().st_mode & 0o777) == 0o600
        port, token = place.read_token()
        assert tcp_client.sock.getpeername() == ("127.0.0.1", port)
        for wrong in ("", "x" * len(token)):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                frame = hello_frame(settings, mode="call", token=wrong)
                sock.sendall(json.dumps(frame).encode() + b"\n")
                answer = json.loads(sock.makefile().readline())
            assert answer["ok"] is False and answer["error"]["code"] == "bad_token"
        assert tcp_client.call("ping")["pid"]
        # A token file others could read is not trusted.
        place.token_path.chmod(0o644)
        with pytest.raises(DaemonUnavailable, match="not private"):
            DaemonClient.attach(place, settings)
        place.token_path.chmod(0o600)
        with DaemonClient.attach(place, settings) as again:
            assert again.call("ping")["pid"] == tcp_client.call("ping")["pid"]


READ_AS_OTHER_USER = """
import sys
try:
    open(sys.argv[1]).read()
except PermissionError:
    print("refused: permission")
"""


@as_root
def test_other_users_cannot_read_the_token(tcp_client: DaemonClient, place: DaemonPlace) -> None:
    with tcp_client:
        for target in (place.token_path, place.folder):
            result = subprocess.run(
                [str(OTHER_PYTHON), "-I", "-c", READ_AS_OTHER_USER, str(place.token_path)],
                user=NOBODY,
                capture_output=True,
                text=True,
                timeout=30,
                check=True,
            )
            assert result.stdout.strip() == "refused: permission", target
        place.folder.parent.chmod(0o755)
        place.folder.chmod(0o755)  # even with the folder open, the 0600 file stays closed
        try:
            result = subprocess.run(
                [str(OTHER_PYTHON), "-I", "-c", READ_AS_OTHER_USER, str(place.token_path)],
                user=NOBODY,
                capture_output=True,
                text=True,
                timeout=30,
                check=True,
            )
        finally:
            place.folder.chmod(0o700)
        assert result.stdout.strip() == "refused: permission"


def test_refused_settings_name_the_setting_and_never_its_value(
    client: DaemonClient, place: DaemonPlace, tmp_path: Path
) -> None:
    secret_db = str(tmp_path / "s3cret-location.db")
    with pytest.raises(AttachRefused) as refused:
        DaemonClient.attach(place, load_hot_settings(db=secret_db))
    assert "MEMWARDEN_DB" in refused.value.reason and "s3cret" not in refused.value.reason
