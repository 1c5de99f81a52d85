"""The daemon's socket file appears only once the socket accepts connections: a client that
finds the file (the relay, the CLI, the hook, a test waiting for the daemon) is never refused by
a daemon that is still starting (server.listen_unix)."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from pathlib import Path
from typing import Any

import anyio
import pytest

from memwarden.daemon.place import SOCKET_FILE, DaemonPlace
from memwarden.daemon.server import listen_unix

pytestmark = pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="Unix sockets only")


def test_the_socket_file_appears_only_once_the_socket_listens(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tempfile.mkdtemp(prefix="mwl")  # short: a Unix socket path holds at most ~107 bytes
    place = DaemonPlace(folder)
    published_while_listening: list[bool] = []
    create = anyio.create_unix_listener

    async def listening_then_look(path: Any, **options: Any) -> Any:
        listener = await create(path, **options)  # bound, mode set and listening
        published_while_listening.append(os.path.exists(place.socket_file))
        return listener

    monkeypatch.setattr(anyio, "create_unix_listener", listening_then_look)

    async def main() -> None:
        listener = await listen_unix(place)
        try:
            assert published_while_listening == [False]
            with socket.socket(socket.AF_UNIX) as client:
                client.settimeout(5)
                client.connect(place.socket_file)  # queued by the kernel: listening, not refused
            assert os.listdir(folder) == [SOCKET_FILE]  # no temporary name left behind
            assert Path(place.socket_file).stat().st_mode & 0o077 == 0
        finally:
            await listener.aclose()

    try:
        anyio.run(main)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
