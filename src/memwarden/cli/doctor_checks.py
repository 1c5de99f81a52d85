"""The checks of ``memwarden doctor`` that try what a setting points at, rather than read it.

A setting that parses can still fail the first time it is used: an embedder endpoint nobody
answers at, a rule pack that does not exist or does not compile, a data folder this user cannot
create, a hook server that refuses the hook's token or answers slower than the hook waits. Each
check here uses the thing once, as memwarden would, and says what to do when it fails. None of
them writes: the embedder embeds one fixed sentence, the rule pack is compiled in memory, the
folder is tested with ``os.access``, and the hook server is sent a request its router rejects
before searching (so no audit row is written).
"""

from __future__ import annotations

import os
import time
from typing import Any

from memwarden.cli.doctor_finding import Check
from memwarden.errors import MemwardenError
from memwarden.settings_paths import is_postgres_url, sqlite_file_name

# How long the doctor waits for an embedder endpoint or the hook server.
PROBE_TIMEOUT_S = 5.0
# The hook's budget should hold this many measured round trips: a busy machine is slower than
# the one quiet request the doctor times.
HOOK_TIMEOUT_HEADROOM = 3


def check_unknown_settings() -> Check:
    from memwarden.settings_reader import unknown_setting_names

    unknown = unknown_setting_names()
    if not unknown:
        return Check("unknown names", "ok", "every MEMWARDEN_* variable is a memwarden setting")
    return Check(
        "unknown names",
        "warn",
        f"ignored, not memwarden settings: {', '.join(unknown)}",
        "rename each to the setting you meant (docs/configuration.md lists them) or unset it",
    )


def blocking_folder(path: str) -> str | None:
    """The folder that keeps this user from creating ``path`` (its nearest existing ancestor,
    when this user may not write there), or None when it can be created."""
    existing = os.path.dirname(os.path.abspath(path))
    while not os.path.isdir(existing):
        parent = os.path.dirname(existing)
        if os.path.exists(existing) or parent == existing:
            return existing
        existing = parent
    return None if os.access(existing, os.W_OK | os.X_OK) else existing


def check_data_folder(settings: Any) -> Check:
    """The folder of the SQLite database (and of the log, backups and exports by default)."""
    url = settings.database_url()
    if is_postgres_url(url):
        return Check("data folder", "ok", "PostgreSQL: no local database folder")
    path = sqlite_file_name(url)
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(folder):
        if os.access(folder, os.W_OK | os.X_OK):
            return Check("data folder", "ok", f"{folder}: writable")
        return Check(
            "data folder",
            "fail",
            f"{folder}: not writable by this user (SQLite writes its -wal and -shm files there)",
            f"make it writable (chmod u+w {folder}) or set MEMWARDEN_DB to a file in a folder you can write",
        )
    blocked = blocking_folder(path)
    if blocked is None:
        return Check("data folder", "ok", f"{folder}: not created yet; the first write creates it")
    return Check(
        "data folder",
        "fail",
        f"{folder} cannot be created: this user may not write in {blocked}",
        "set MEMWARDEN_DB to a file in a folder you can write (or make that folder writable; "
        "for the default folder, HOME or XDG_DATA_HOME must be writable)",
    )


def check_embedder_endpoint(settings: Any) -> Check:
    """An ``ollama`` or ``openai`` embedder: one sentence embedded through the configured URL."""
    from memwarden.embed.factory import open_embedder

    where = f"{settings.embedder} at {settings.embed_url or 'its default URL'}"
    fix = (
        f"start {settings.embedder} there, or fix MEMWARDEN_EMBED_URL / MEMWARDEN_EMBED_MODEL, "
        "or set MEMWARDEN_EMBEDDER=none (keyword search only)"
    )
    started = time.monotonic()
    try:
        embedder = open_embedder(settings)
        if embedder is None:  # pragma: no cover - the caller handles "none"
            return Check("model", "ok", "MEMWARDEN_EMBEDDER=none: keyword search only")
        try:
            embedder.load()
            vector = embedder.embed_query("memwarden doctor", timeout=PROBE_TIMEOUT_S)
        finally:
            embedder.close()
    except MemwardenError as exc:
        return Check("model", "fail", f"{where} ({settings.embed_model or 'no model'}): {exc.message}", fix)
    elapsed = (time.monotonic() - started) * 1000
    return Check(
        "model",
        "ok",
        f"{where}: model {settings.embed_model} answered a {len(vector)}-dimension vector in {elapsed:.0f} ms",
    )


def check_rule_pack(settings: Any) -> Check:
    """MEMWARDEN_REDACTION_RULES read and compiled, as every write would."""
    if not settings.redaction_rules:
        return Check(
            "rule pack", "ok", f"the built-in redaction rules (MEMWARDEN_REDACTION={settings.redaction})"
        )
    from memwarden.app import build_redactor

    try:
        build_redactor(settings)
    except MemwardenError as exc:
        return Check(
            "rule pack",
            "fail",
            exc.message,
            "fix or remove the file MEMWARDEN_REDACTION_RULES names: every add is refused until it compiles",
        )
    return Check("rule pack", "ok", f"{settings.redaction_rules}: read and compiled")


def check_hook_server(settings: Any) -> Check:
    """MEMWARDEN_HOOK_SERVER: the hook's token is accepted, and a round trip fits its timeout."""
    from memwarden.hooks.loopback import HttpStatusError, post_json
    from memwarden.hooks.paths import PROMPT_PATH
    from memwarden.net import LoopbackError

    budget_ms = settings.hook_timeout_ms
    if not settings.hook_server:
        return Check(
            "hooks",
            "ok",
            f"limit {settings.hook_limit}, {settings.hook_max_tokens} tokens, timeout {budget_ms} ms; "
            "no MEMWARDEN_HOOK_SERVER (the daemon or the database answers)",
        )
    token = settings.http_token
    secret = token.get_secret_value() if hasattr(token, "get_secret_value") else token
    started = time.monotonic()
    try:
        # Not a hook request: the route refuses it (HTTP 400) after the token was checked,
        # without searching or writing an audit row.
        post_json(settings.hook_server, PROMPT_PATH, {}, token=secret or None, timeout=PROBE_TIMEOUT_S)
    except HttpStatusError as exc:
        if exc.status == "401":
            return Check(
                "hooks",
                "fail",
                f"{settings.hook_server} refused the hook's token: {exc}",
                "set MEMWARDEN_HTTP_TOKEN in the hook's environment to the server's token",
            )
        if exc.status == "429":
            return Check(
                "hooks",
                "fail",
                f"{settings.hook_server} refuses this user's requests for a minute: too many wrong tokens",
                "set MEMWARDEN_HTTP_TOKEN in the hook's environment to the server's token, then wait a minute",
            )
        if exc.status not in ("400", "422"):
            return Check("hooks", "fail", f"{settings.hook_server}: {exc}", "check MEMWARDEN_HOOK_SERVER")
    except LoopbackError as exc:
        return Check(
            "hooks",
            "warn",
            f"{settings.hook_server}: {exc}; the hooks search the database themselves meanwhile",
            "start `memwarden serve --http` there, or unset MEMWARDEN_HOOK_SERVER",
        )
    elapsed_ms = (time.monotonic() - started) * 1000
    needed = int(elapsed_ms * HOOK_TIMEOUT_HEADROOM) + 1
    if needed > budget_ms:
        return Check(
            "hooks",
            "warn",
            f"{settings.hook_server} answered in {elapsed_ms:.0f} ms; MEMWARDEN_HOOK_TIMEOUT_MS={budget_ms} "
            "is too tight for a busy machine (the hook gives up and searches the database itself)",
            f"set MEMWARDEN_HOOK_TIMEOUT_MS={max(needed, budget_ms * 2)} or more",
        )
    return Check(
        "hooks",
        "ok",
        f"{settings.hook_server} accepts the hook's token; round trip {elapsed_ms:.0f} ms "
        f"within the {budget_ms} ms timeout",
    )


def check_vector_backlog(settings: Any, space: Any) -> Check | None:
    """How many live memories of the SQLite database still lack a vector of ``space`` (the
    configured model's): after a change of model (the default became multilingual-e5-small) the
    server embeds them again in the background, and until then keyword search finds them. None
    when there is nothing to say (no database yet, PostgreSQL, which ``memwarden health``
    counts)."""
    import sqlite3

    from memwarden.settings_paths import sqlite_path

    url = settings.database_url()
    if is_postgres_url(url):
        return None
    path = sqlite_path(url).expanduser()
    if not path.is_file():
        return None
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            live, embedded, elsewhere = conn.execute(
                "SELECT COUNT(*), SUM(v.memory_rowid IS NOT NULL),"
                " EXISTS (SELECT 1 FROM memory_vectors WHERE model != ? OR dim != ?)"
                " FROM memories m LEFT JOIN memory_vectors v"
                "  ON v.memory_rowid = m.rowid AND v.model = ? AND v.dim = ?"
                " WHERE m.deleted_at IS NULL",
                (space.model_id, space.dimension, space.model_id, space.dimension),
            ).fetchone()
        finally:
            conn.close()
    except sqlite3.Error:
        return None  # the database check above names what is wrong with the file
    missing = (live or 0) - (embedded or 0)
    if missing <= 0:
        return Check("vectors", "ok", f"all {live:,} memories have a vector of {space.model_id}")
    detail = f"{missing:,} of {live:,} memories have no vector of {space.model_id} yet"
    if elsewhere:
        detail += " (they have one of an earlier model)"
    return Check(
        "vectors",
        "warn" if elsewhere else "ok",
        detail + ": a running server embeds them in the background; keyword search finds them meanwhile",
        "`memwarden reindex --embeddings` embeds them now" if elsewhere else "",
    )
