"""The prompt hook's search: the session's project and ``default``, merged, best first.

Three ways to run it, same answer: through a memwarden HTTP server on loopback
(``POST /hooks/recall``; warm, so it can use the vector path too), through the user's memwarden
daemon (``recall`` call over its socket; warm too, see memwarden.daemon), or in the hook
process on the database itself (keyword search, no model load). ``recall`` is the one
implementation (``search/recall.py``): the server's route and the daemon call it, and so does
the hook when it reads the database.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memwarden.search.recall import recall

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.settings_reader import HotSettings


def recall_from_server(settings: HotSettings, query: str, projects: list[str | None]) -> list[dict[str, Any]]:
    """Ask the configured loopback server; LoopbackError when it cannot answer within budget."""
    from memwarden.hooks.loopback import post_json
    from memwarden.hooks.paths import RECALL_PATH
    from memwarden.net import LoopbackError

    answer = post_json(
        settings.hook_server,
        RECALL_PATH,
        {"query": query, "projects": projects, "limit": settings.hook_limit},
        token=settings.http_token,
        timeout=settings.hook_timeout_ms / 1000,
    )
    hits = answer.get("hits") if isinstance(answer, dict) else None
    if not isinstance(hits, list) or not all(
        isinstance(h, dict) and "id" in h and "content" in h for h in hits
    ):
        raise LoopbackError("server answer has no hits list")
    return hits


def recall_from_daemon(
    settings: HotSettings, query: str, projects: list[str | None]
) -> list[dict[str, Any]] | None:
    """Ask the user's daemon when it is up (never starting it); None when it is not there."""
    from memwarden.daemon.attach import call_daemon
    from memwarden.net import LoopbackError

    answer = call_daemon(
        settings,
        "recall",
        {"query": query, "projects": projects, "limit": settings.hook_limit},
        timeout=settings.hook_timeout_ms / 1000,
        start=False,
    )
    if answer is None:
        return None
    hits = answer.get("hits") if isinstance(answer, dict) else None
    if not isinstance(hits, list) or not all(
        isinstance(h, dict) and "id" in h and "content" in h for h in hits
    ):
        raise LoopbackError("daemon answer has no hits list")
    return hits


def recall_from_database(
    settings: HotSettings, query: str, projects: list[str | None]
) -> list[dict[str, Any]]:
    """Search the database in this process (keyword search; the embedder is never loaded)."""
    from memwarden.hooks.sessions import open_existing_service

    service = open_existing_service(settings)
    try:
        return recall(service, query, projects, settings.hook_limit)
    finally:
        service.close()
