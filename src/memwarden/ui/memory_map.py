"""The memory map (issue 37, item 3): how memories connect, as a graph drawn by Cytoscape.js
(vendored in ``static/``, see LICENSES.md). Nodes are memories, their projects, tags and
threads; edges join a memory to each, and near-duplicate memories to each other (the review's
own test: term sets that overlap by ``DUPLICATE_JACCARD``, in one project).

A graph of 10,000 memories is unreadable and slow to lay out in a browser, so the map shows the
newest ``cap`` memories of its scope (one indexed page, as the review does) and says when it is
a sample: narrow it with the project and tag filters to see the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from memwarden.browsing import MemoryQuery
from memwarden.ops.review import likely_duplicates
from memwarden.service import MemoryService
from memwarden.ui import forms
from memwarden.ui.context import Handler, UiContext
from memwarden.ui.display import clip
from memwarden.ui.sessions import Session

DEFAULT_CAP = 300
MAX_CAP = 500  # past this the page outgrows the time budget every page keeps (docs/ui.md, Speed)
COUNT_LIMIT = 10_000


@dataclass(frozen=True)
class MemoryMap:
    elements: list[dict[str, Any]]  # Cytoscape's element JSON (nodes, then edges)
    shown: int
    total: int
    total_is_lower_bound: bool
    duplicates: int

    @property
    def sampled(self) -> bool:
        return self.total > self.shown or self.total_is_lower_bound


def build_map(
    service: MemoryService, session: Session, *, project: str | None, tag: str | None, cap: int
) -> MemoryMap:
    """The graph of the newest ``cap`` live memories of the session's tenant in scope."""
    who = session.caller
    page = service.store.browse(
        who.tenant,
        MemoryQuery(project=project, tag=tag),
        now=service.clock(),
        limit=cap,
        count_limit=COUNT_LIMIT,
    )
    memories = page.memories
    indexed = service.store.indexed_memories(who.tenant, [m.id for m in memories])
    known = {
        c.memory.id: frozenset(c.indexed.body.split())  # similar.duplicate_terms, as review
        for c in indexed
        if c.indexed is not None
    }
    pairs = likely_duplicates(service.operations.intake.analyzer, list(memories), known)
    nodes: dict[str, dict[str, Any]] = {}
    edges: list[dict[str, Any]] = []

    def group(kind: str, name: str) -> str:
        key = f"{kind}:{name}"
        if key not in nodes:
            nodes[key] = {"data": {"id": key, "label": clip(name, 30), "kind": kind, "name": name}}
        return key

    for m in memories:
        key = f"memory:{m.id}"
        nodes[key] = {
            "data": {
                "id": key,
                "label": clip(m.title or m.content, 40),
                "kind": "memory",
                "memory": m.id,
                "pinned": m.pinned,
                "flagged": bool(m.injection_flags),
            }
        }
        edges.append(
            {
                "data": {
                    "id": f"p:{m.id}",
                    "source": key,
                    "target": group("project", m.project),
                    "kind": "project",
                }
            }
        )
        for t in m.tags:
            edges.append(
                {"data": {"id": f"t:{m.id}:{t}", "source": key, "target": group("tag", t), "kind": "tag"}}
            )
        if m.thread:
            edges.append(
                {
                    "data": {
                        "id": f"h:{m.id}",
                        "source": key,
                        "target": group("thread", m.thread),
                        "kind": "thread",
                    }
                }
            )
    for n, pair in enumerate(pairs):
        edges.append(
            {
                "data": {
                    "id": f"d:{n}",
                    "source": f"memory:{pair['keep']['id']}",
                    "target": f"memory:{pair['candidate']['id']}",
                    "kind": "duplicate",
                    "label": f"{round(pair['similarity'] * 100)}% alike",
                }
            }
        )
    service.operations.audit(
        "list",
        caller=who,
        project=project,
        memory_ids=[m.id for m in memories],
        result_count=len(memories),
        detail={"via": "ui", "what": "map"},
    )
    return MemoryMap(
        [*nodes.values(), *edges], len(memories), page.total, page.total_is_lower_bound, len(pairs)
    )


async def map_page(request: Request, ui: UiContext, session: Session) -> Response:
    """``/ui/map``: the filters (project, tag, how many memories) and the graph."""
    params = request.query_params
    projects = await run_in_threadpool(ui.dashboard.projects, session)
    values: dict[str, Any] = {
        "params": params,
        "projects": projects,
        "title": "Map",
        "cap_default": DEFAULT_CAP,
    }
    query, _, _, _ = forms.memory_query({k: params.get(k, "") for k in ("project", "tag")})
    cap = forms.whole(params, "cap", "memories shown", default=DEFAULT_CAP, low=10, high=MAX_CAP)
    assert cap is not None
    graph = await run_in_threadpool(
        build_map, ui.dashboard.service, session, project=query.project, tag=query.tag, cap=cap
    )
    return ui.render(request, "map.html", session, graph=graph, cap=cap, **values)


PAGES: list[tuple[str, Handler]] = [("/ui/map", map_page)]
