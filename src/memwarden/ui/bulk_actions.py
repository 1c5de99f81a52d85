"""The dashboard's add form and bulk actions (issue 37, item 2): the handlers behind
``/ui/memories/new`` and ``/ui/memories/bulk``. The checks of ``app.page`` / ``app.action``
(session, same origin, CSRF, rate limits) wrap each; ``bulk.py`` does the work through the service.

A bulk action takes two POSTs: the first (from the memories table) shows what would change and
asks to confirm; the second (``confirm=yes``, from that page) writes, then shows what was done,
what failed and, where the page knows the fields before, an Undo button.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from memwarden.errors import MemwardenError
from memwarden.models import KINDS
from memwarden.ui import bulk, security
from memwarden.ui.context import Handler, UiContext
from memwarden.ui.sessions import Session


async def new_form(request: Request, ui: UiContext, session: Session) -> Response:
    projects = await run_in_threadpool(ui.dashboard.projects, session)
    return ui.render(
        request,
        "new.html",
        session,
        kinds=KINDS,
        projects=projects,
        draft={},
        result=None,
        title="Add a memory",
    )


async def new_submit(request: Request, ui: UiContext, session: Session) -> Response:
    form = await request.form()
    draft = {k: v for k, v in form.items() if isinstance(v, str) and k != security.CSRF_FIELD}
    projects = await run_in_threadpool(ui.dashboard.projects, session)
    values: dict[str, Any] = {"kinds": KINDS, "projects": projects, "title": "Add a memory"}
    try:
        fields = bulk.parse_new(draft)
        result = await run_in_threadpool(bulk.add, ui.dashboard.service, session, fields)
    except MemwardenError as exc:
        # Nothing was stored: the form comes back with what was typed and the reason.
        return ui.render(
            request,
            "new.html",
            session,
            status=400,
            error=f"Not stored: {exc.message}",
            draft=draft,
            result=None,
            **values,
        )
    return ui.render(request, "new.html", session, draft={}, result=result, **values)


async def bulk_submit(request: Request, ui: UiContext, session: Session) -> Response:
    form = await request.form()
    ids = [i for i in form.getlist("id") if isinstance(i, str)]
    fields = {k: v for k, v in form.items() if isinstance(v, str)}
    try:
        parsed = bulk.parse_bulk(fields, ids)
        if form.get("confirm") != "yes" and parsed.action != "restore":
            memories = await run_in_threadpool(bulk.selected, ui.dashboard.service, session, parsed)
            return ui.render(
                request,
                "bulk.html",
                session,
                request_=parsed,
                memories=memories,
                outcome=None,
                actions=bulk.ACTIONS,
                title="Confirm",
            )
        outcome = await run_in_threadpool(bulk.apply, ui.dashboard.service, session, parsed)
    except MemwardenError as exc:
        return ui.render(
            request,
            "bulk.html",
            session,
            status=400,
            error=f"Nothing was changed: {exc.message}",
            request_=None,
            memories=[],
            outcome=None,
            actions=bulk.ACTIONS,
            title="Confirm",
        )
    undo = json.dumps(outcome.undo) if outcome.undo else None
    return ui.render(
        request,
        "bulk.html",
        session,
        request_=parsed,
        memories=[],
        outcome=outcome,
        undo=undo,
        actions=bulk.ACTIONS,
        title="Done",
    )


# Registered before the pages' routes: "/ui/memories/new" must not be read as a memory id.
PAGES: list[tuple[str, Handler]] = [("/ui/memories/new", new_form)]
ACTIONS: list[tuple[str, Handler]] = [("/ui/memories/new", new_submit), ("/ui/memories/bulk", bulk_submit)]
