"""The prompt hook's recall, answered by whoever holds the service (HTTP route, daemon, hook).

Hits for a prompt over the session's projects, as one search (each project ranked on its own,
the hits merged by score); ``parse_recall_request`` checks the JSON body both transports receive.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from memwarden.errors import InvalidInput

if TYPE_CHECKING:  # pragma: no cover
    from memwarden.models import Caller
    from memwarden.search.searcher import Searcher


class HoldsSearcher(Protocol):
    """What recall needs of the service that holds it (the search layer names no service)."""

    @property
    def searcher(self) -> Searcher: ...


MAX_PROJECTS = 4
MAX_RECALL = 20


def recall(
    service: HoldsSearcher,
    query: str,
    projects: Sequence[str | None],
    limit: int,
    *,
    caller: Caller | None = None,
) -> list[dict[str, Any]]:
    """The best ``limit`` hits for ``query`` over these projects, merged by score (one search,
    one audit row: ``Searcher.recall``)."""
    result = service.searcher.recall(query, projects=projects, limit=limit, caller=caller)
    return [hit.to_dict() for hit in result.hits]


def parse_recall_request(body: object) -> tuple[str, list[str | None], int]:
    """``{"query": str, "projects": [str | null, …], "limit": int}`` checked, or InvalidInput."""
    if not isinstance(body, dict):
        raise InvalidInput(
            'send a JSON object: {"query": "...", "projects": ["..."], "limit": 5}', field="body"
        )
    query = body.get("query")
    if not isinstance(query, str):
        raise InvalidInput("query must be a string", field="query")
    projects = body.get("projects", [None])
    if (
        not isinstance(projects, list)
        or not 1 <= len(projects) <= MAX_PROJECTS
        or not all(p is None or isinstance(p, str) for p in projects)
    ):
        raise InvalidInput(
            f"projects must be a list of 1-{MAX_PROJECTS} project names (null: every project)",
            field="projects",
        )
    limit = body.get("limit", 5)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_RECALL:
        raise InvalidInput(f"limit must be a whole number from 1 to {MAX_RECALL}", field="limit")
    return query, projects, limit
