"""The prompt hook's search: the session's project and ``default``, merged, best first.

Three ways to run it, same answer: through a memwarden HTTP server on loopback
(``POST /hooks/recall``; warm, so it can use the vector path too), through the user's memwarden
daemon (``recall`` call over its socket; warm too, see memwarden.daemon), or in the hook
process on the database itself (keyword search, no model load). ``recall`` is the one
implementation: the server's route and the daemon call it, and so does the hook when it reads
the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memwarden.errors import InvalidInput
from memwarden.hooks.loopback import LoopbackError

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.config_hot import HotSettings
    from memwarden.models import Caller
    from memwarden.service import MemoryService

RECALL_PATH = "/hooks/recall"
MAX_PROJECTS = 4
MAX_RECALL = 20


def recall(
    service: MemoryService, query: str, projects: Sequence[str | None], limit: int, *, caller: Caller | None = None
) -> list[dict[str, Any]]:
    """Hits for ``query`` in each project, merged by score, one per memory, best first."""
    best: dict[str, dict[str, Any]] = {}
    for project in projects:
        for hit in service.searcher.search(query, project=project, limit=limit, caller=caller).hits:
            found = hit.to_dict()
            if found["id"] not in best or found["score"] > best[found["id"]]["score"]:
                best[found["id"]] = found
    return sorted(best.values(), key=lambda h: h["score"], reverse=True)[:limit]


def parse_recall_request(body: object) -> tuple[str, list[str | None], int]:
    """``{"query": str, "projects": [str | null, …], "limit": int}`` checked, or InvalidInput."""
    if not isinstance(body, dict):
        raise InvalidInput('send a JSON object: {"query": "...", "projects": ["..."], "limit": 5}', field="body")
    query = body.get("query")
    if not isinstance(query, str):
        raise InvalidInput("query must be a string", field="query")
    projects = body.get("projects", [None])
    if (
        not isinstance(projects, list)
        or not 1 <= len(projects) <= MAX_PROJECTS
        or not all(p is None or isinstance(p, str) for p in projects)
    ):
        raise InvalidInput(f"projects must be a list of 1-{MAX_PROJECTS} project names (null: every project)",
                           field="projects")
    limit = body.get("limit", 5)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RECALL:
        raise InvalidInput(f"limit must be a whole number from 1 to {MAX_RECALL}", field="limit")
    return query, projects, limit


def recall_from_server(settings: HotSettings, query: str, projects: list[str | None]) -> list[dict[str, Any]]:
    """Ask the configured loopback server; LoopbackError when it cannot answer within budget."""
    from memwarden.hooks.loopback import post_json

    answer = post_json(
        settings.hook_server,
        RECALL_PATH,
        {"query": query, "projects": projects, "limit": settings.hook_limit},
        token=settings.http_token,
        timeout=settings.hook_timeout_ms / 1000,
    )
    hits = answer.get("hits") if isinstance(answer, dict) else None
    if not isinstance(hits, list) or not all(isinstance(h, dict) and "id" in h and "content" in h for h in hits):
        raise LoopbackError("server answer has no hits list")
    return hits


def recall_from_daemon(settings: HotSettings, query: str, projects: list[str | None]) -> list[dict[str, Any]] | None:
    """Ask the user's daemon when it is up (never starting it); None when it is not there."""
    from memwarden.daemon.attach import call_daemon

    answer = call_daemon(settings, "recall", {"query": query, "projects": projects, "limit": settings.hook_limit},
                         timeout=settings.hook_timeout_ms / 1000, start=False)
    if answer is None:
        return None
    hits = answer.get("hits") if isinstance(answer, dict) else None
    if not isinstance(hits, list) or not all(isinstance(h, dict) and "id" in h and "content" in h for h in hits):
        raise LoopbackError("daemon answer has no hits list")
    return hits


def recall_from_database(settings: HotSettings, query: str, projects: list[str | None]) -> list[dict[str, Any]]:
    """Search the database in this process (keyword search; the embedder is never loaded)."""
    from memwarden.hooks.sessions import open_existing_service

    service = open_existing_service(settings)
    try:
        return recall(service, query, projects, settings.hook_limit)
    finally:
        service.close()
