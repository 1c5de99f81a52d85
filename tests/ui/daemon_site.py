"""The dashboard as the user's daemon serves it (``memwarden ui`` with ``MEMWARDEN_DAEMON=auto``),
for running the dashboard's attack tests through that path too: a real daemon process on a real
loopback port, logged in by the one-time link ``memwarden ui --no-browser`` prints."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from memwarden.ui.launcher import read_state, state_path


class DaemonSite:
    """Same surface as ``ui_helpers.Server`` (``url``, ``link()``, ``stop()``), served by a daemon."""

    def __init__(self, db: Path, folder: Path, **settings: str) -> None:
        self.runtime = tempfile.mkdtemp(prefix="mwd")  # short: a Unix socket path holds ~107 bytes
        env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMWARDEN_", "XDG_"))}
        env.update(
            MEMWARDEN_DB=str(db),
            MEMWARDEN_LOG_FILE=str(folder / "memwarden.log"),
            MEMWARDEN_BACKUP_DIR=str(folder / "backups"),
            MEMWARDEN_EMBEDDER="none",
            MEMWARDEN_DAEMON="auto",
            MEMWARDEN_DAEMON_IDLE_S="300",
            XDG_RUNTIME_DIR=self.runtime,
            **settings,
        )
        self.env = env
        first = self.link()
        self.url = first.split("/ui/", 1)[0]
        self.state = Path(self.runtime) / "memwarden" / state_path(str(db), Path(".")).name
        server = read_state(self.state)
        assert server is not None and first.startswith(server.url), first
        cmdline = Path(f"/proc/{server.pid}/cmdline").read_bytes()
        assert b"memwarden.daemon" in cmdline, cmdline  # the daemon, not a server of its own
        self.pid = server.pid
        self._first: str | None = first

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "memwarden", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def link(self) -> str:
        """A fresh one-time login link, from ``memwarden ui --no-browser`` (the first one once)."""
        if getattr(self, "_first", None):
            first, self._first = self._first, None
            return str(first)
        done = self.run("ui", "--no-browser")
        assert done.returncode == 0, done.stderr
        assert "served by the memwarden daemon" in done.stdout or "reusing" in done.stdout, done.stdout
        return done.stdout.strip().rsplit(" ", 1)[-1]

    def stop(self) -> None:
        os.kill(self.pid, signal.SIGTERM)
        deadline = time.monotonic() + 20
        while self.state.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        stopped = self.run("daemon", "stop")
        assert stopped.returncode == 0, stopped.stderr
