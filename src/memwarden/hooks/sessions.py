"""What the hooks remember about a Claude Code session, and the service they read through.

A session's state is two small files in ``<data dir>/hook-sessions``, named by a hash of the
session id: ``.start`` (when the session started, written by SessionStart) and ``.asked``
(created once, atomically, when the Stop hook has asked about durable facts). Files older
than ``KEEP_DAYS`` are removed at the next session start.
"""

from __future__ import annotations

import os
import time
from datetime import datetime
from typing import TYPE_CHECKING

from memwarden.digests import sha256
from memwarden.models import format_time, parse_time
from memwarden.settings_paths import is_postgres_url, sqlite_file_name

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path

    from memwarden.service import MemoryService
    from memwarden.settings_reader import HotSettings

KEEP_DAYS = 30


def open_existing_service(settings: HotSettings) -> MemoryService:
    """The service on the configured database, without an embedder; FileNotFoundError when the
    SQLite file does not exist (a hook never creates a database)."""
    from memwarden.app import build_service

    url = settings.database_url()
    if not is_postgres_url(url):
        path = sqlite_file_name(url)  # a string: the prompt hook does not import pathlib
        if not os.path.isfile(path):
            raise FileNotFoundError(
                f"no memwarden database at {path}: nothing to recall until a memory is stored there "
                "(`memwarden add`, or an MCP client's memory_add); if your memories are elsewhere, set "
                "MEMWARDEN_DB in the hook's environment"
            )
    from memwarden.clean_identifiers import CleanIdentifiers

    service = build_service(settings, embeddings=False, source="hook")
    # Project names the rules found clean in an earlier hook are not checked again: a hook
    # whose project is known loads no redaction rules (memwarden.clean_identifiers).
    service.intake.clean_identifiers = CleanIdentifiers.for_settings(settings)
    return service


# A transcript larger than this is not read to the end: the count only has to reach a threshold.
TRANSCRIPT_MAX_BYTES = 64 * 1024 * 1024


def user_turns(transcript_path: str) -> int:
    """How many messages the user typed in a Claude Code transcript (JSON lines): entries of
    type ``user`` whose content is text, not a tool result, a meta entry or an acknowledgement
    ("ok", "thanks"). 0 when the file cannot be read: the Stop hook then does not ask."""
    import json

    from memwarden.hooks.payload import is_trivial

    count = 0
    try:
        with open(transcript_path, encoding="utf-8", errors="replace") as transcript:
            read = 0
            for line in transcript:
                read += len(line)
                if read > TRANSCRIPT_MAX_BYTES:
                    break
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                text = _typed_text(entry)
                if text and not is_trivial(text):
                    count += 1
    except OSError:
        return 0
    return count


def _typed_text(entry: object) -> str:
    """The text a person typed in one transcript entry, or "" for anything else."""
    if not isinstance(entry, dict) or entry.get("type") != "user" or entry.get("isMeta"):
        return ""
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        # Slash commands and their output are logged as user entries too, wrapped in tags.
        return "" if content.lstrip().startswith(("<command-", "<local-command-")) else content
    if isinstance(content, list):  # tool results come back as user entries: not typed text
        parts = [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        return " ".join(part for part in parts if isinstance(part, str))
    return ""


class SessionState:
    """Start time and the one-time Stop question of one Claude Code session."""

    def __init__(self, settings: HotSettings, session_id: str) -> None:
        if not session_id:
            raise ValueError("hook input has no session_id")
        self.folder: Path = settings.data_dir() / "hook-sessions"
        self.key = sha256(session_id.encode("utf-8")).hexdigest()[:32]

    def _path(self, suffix: str) -> Path:
        return self.folder / f"{self.key}.{suffix}"

    def mark_started(self, now: datetime) -> None:
        """Record the start (the first one wins: a resumed session keeps its start)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(self._path("start"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(format_time(now) or "")

    def started_at(self) -> datetime | None:
        try:
            return parse_time(self._path("start").read_text(encoding="utf-8").strip() or None)
        except (FileNotFoundError, ValueError):
            return None

    def claim_question(self) -> bool:
        """True exactly once per session: the caller may ask its question now."""
        self.folder.mkdir(parents=True, exist_ok=True)
        try:
            os.close(os.open(self._path("asked"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            return False
        return True

    def prune(self, now: float | None = None) -> int:
        """Remove state of sessions older than KEEP_DAYS; returns how many files went."""
        cutoff = (time.time() if now is None else now) - KEEP_DAYS * 86400
        removed = 0
        try:
            entries = list(os.scandir(self.folder))
        except FileNotFoundError:
            return 0
        for entry in entries:
            try:
                if entry.is_file() and entry.stat().st_mtime < cutoff:
                    os.unlink(entry.path)
                    removed += 1
            except OSError:
                continue
        return removed
