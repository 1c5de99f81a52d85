"""The user's daemon for a bench: started on the bench's settings, warm, every memory embedded.

``warm_daemon(env)`` starts ``memwarden.daemon`` the way an MCP client's ``memwarden serve``
does (``MEMWARDEN_DAEMON=auto``, the builtin model, a runtime folder of its own), waits until it
has embedded every memory of the database (a backfill would otherwise share the CPU with what
is timed), yields the environment the commands under test must run with and the daemon's pid,
and stops the daemon afterwards. Used by bench/core.py and bench/hooks.py.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memwarden.daemon.client import DaemonClient
from memwarden.daemon.launch import attach_or_start
from memwarden.daemon.place import DaemonPlace
from memwarden.settings_reader import load_hot_settings

EMBED_TIMEOUT_S = 1800.0


@contextmanager
def warm_daemon(env: dict[str, str]) -> Iterator[tuple[dict[str, str], int]]:
    """``(the commands' environment, the daemon's pid)`` while a warm daemon serves ``env``'s database."""
    run = Path(tempfile.mkdtemp(prefix="mwb"))  # short: a Unix socket path holds ~107 bytes
    daemon_env = {
        **env,
        "MEMWARDEN_EMBEDDER": "builtin",
        "MEMWARDEN_DAEMON": "auto",
        "XDG_RUNTIME_DIR": str(run),
        "MEMWARDEN_HOOK_TIMEOUT_MS": "2000",
    }
    saved = dict(os.environ)
    os.environ.update(daemon_env)  # the launcher and the client read the same settings as the commands
    try:
        place = DaemonPlace(run / "memwarden")
        settings = load_hot_settings()
        with attach_or_start(place, settings) as client:
            deadline = time.monotonic() + EMBED_TIMEOUT_S
            while True:
                vectors = client.call("ping")["vectors"]
                if vectors["state"] == "ready" and vectors["missing"] == 0:
                    break
                if time.monotonic() > deadline or vectors["state"] == "failed":
                    raise SystemExit(f"the daemon did not embed the memories: {vectors}")
                time.sleep(0.5)
            yield daemon_env, int(client.info["pid"])
            with DaemonClient.attach(place, settings) as stopper:
                stopper.call("stop")
    finally:
        os.environ.clear()
        os.environ.update(saved)
