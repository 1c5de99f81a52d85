"""The dashboard's pages (GET): overview, memories, one memory, review, audit, health, backups.

Each reads through ``Dashboard`` in a worker thread (the service is synchronous) and renders a
template; bad query parameters raise ``InvalidInput``, shown on the page with status 400.
"""

from __future__ import annotations

import io
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from memwarden.audit.base import ACTIONS
from memwarden.errors import InvalidInput, MemwardenError
from memwarden.hidden_paths import hide_paths
from memwarden.models import KINDS, format_time
from memwarden.ui import forms, security
from memwarden.ui.audit_timeline import AUDIT_ROUTES, fold_visits
from memwarden.ui.context import Handler, UiContext
from memwarden.ui.dashboard import PAGE_SIZE
from memwarden.ui.display import WHY_ORDER
from memwarden.ui.health_summary import summarize
from memwarden.ui.live import change_marker
from memwarden.ui.sessions import Session


def short_time(value: datetime | str | None) -> str:
    """``2026-03-01 12:00`` (UTC) for tables; empty for None."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else format_time(value) or ""
    return text[:16].replace("T", " ")


def chart_data(overview: Any) -> dict[str, Any]:
    """The overview's series for ``static/app.js``. The template writes them with ``|tojson``
    into a ``<script type="application/json">`` block (read with JSON.parse, never run), which
    escapes ``<``, ``>``, ``&`` and ``'``: a project or action named ``</script>…`` stays data."""
    return {
        "weeks": overview.weeks,
        "added": overview.added,
        "days": overview.days,
        "searches": overview.searches,
        "degraded": overview.degraded,
        "actions": overview.actions,
    }


async def overview(request: Request, ui: UiContext, session: Session) -> Response:
    view = await run_in_threadpool(ui.dashboard.overview, session)
    chain = await run_in_threadpool(ui.dashboard.chain_status)
    live = await run_in_threadpool(change_marker, ui.dashboard.service, session.caller.tenant)
    return ui.render(
        request,
        "overview.html",
        session,
        view=view,
        chain=chain,
        charts=chart_data(view),
        live_marker=live,
        title="Overview",
    )


async def memories(request: Request, ui: UiContext, session: Session) -> Response:
    projects = await run_in_threadpool(ui.dashboard.projects, session)
    params = request.query_params
    values: dict[str, Any] = {"params": params, "projects": projects, "kinds": KINDS, "title": "Memories"}
    try:
        query, after, before, text = forms.memory_query(params)
    except InvalidInput as exc:
        return ui.render(
            request, "memories.html", session, status=400, error=exc.message, page=None, result=None, **values
        )
    if text:
        result = await run_in_threadpool(ui.dashboard.search, session, text, query)
        return ui.render(
            request,
            "memories.html",
            session,
            result=result,
            page=None,
            why_order=WHY_ORDER,
            query=text,
            **values,
        )
    found = await run_in_threadpool(ui.dashboard.browse, session, query, after, before)
    values["live_marker"] = await run_in_threadpool(
        change_marker, ui.dashboard.service, session.caller.tenant
    )
    kept = [(k, val) for k, val in params.multi_items() if k not in ("after", "before")]
    links = {}
    if found.memories and found.newer:
        links["prev"] = urlencode([*kept, ("before", forms.cursor_text(found.memories[0]))])
    if found.memories and found.older:
        links["next"] = urlencode([*kept, ("after", forms.cursor_text(found.memories[-1]))])
    if after is not None or before is not None:
        links["first"] = urlencode(kept)
    return ui.render(
        request, "memories.html", session, page=found, links=links, result=None, page_size=PAGE_SIZE, **values
    )


async def memory(request: Request, ui: UiContext, session: Session) -> Response:
    memory_id = forms.memory_id(request.path_params["memory_id"])
    view = await run_in_threadpool(ui.dashboard.memory_view, session, memory_id)
    found = view.memory
    projects = await run_in_threadpool(ui.dashboard.projects, session)
    return ui.render(
        request,
        "memory.html",
        session,
        memory=found,
        view=view,
        kinds=KINDS,
        projects=projects,
        title=found.title or "Memory",
        draft=None,
    )


async def confirm_delete(request: Request, ui: UiContext, session: Session) -> Response:
    memory_id = forms.memory_id(request.path_params["memory_id"])
    found = await run_in_threadpool(ui.dashboard.memory, session, memory_id)
    return ui.render(request, "delete.html", session, memory=found, title="Delete a memory")


async def review(request: Request, ui: UiContext, session: Session) -> Response:
    projects = await run_in_threadpool(ui.dashboard.projects, session)
    project = request.query_params.get("project") or None
    values: dict[str, Any] = {"projects": projects, "project": project, "title": "Review"}
    if project is not None and project not in projects:
        return ui.render(
            request,
            "review.html",
            session,
            status=400,
            report=None,
            error=f"no project {project[:100]!r} in this tenant; pick one from the list",
            **values,
        )
    report = await run_in_threadpool(ui.dashboard.review, session, project)
    return ui.render(request, "review.html", session, report=report, **values)


async def audit(request: Request, ui: UiContext, session: Session) -> Response:
    values: dict[str, Any] = {
        "params": request.query_params,
        "actions": ACTIONS,
        "routes": AUDIT_ROUTES,
        "title": "Audit",
    }
    try:
        query, before = forms.audit_query(request.query_params)
        route, memory = forms.audit_scope(request.query_params)
    except InvalidInput as exc:
        return ui.render(
            request, "audit.html", session, status=400, error=exc.message, entries=[], timeline=None, **values
        )
    timeline = await run_in_threadpool(
        ui.dashboard.audit_page, session, query, before, route=route, memory=memory
    )
    values["live_marker"] = await run_in_threadpool(
        change_marker, ui.dashboard.service, session.caller.tenant
    )
    return ui.render(
        request,
        "audit.html",
        session,
        entries=fold_visits(timeline.rows),
        timeline=timeline,
        route=route,
        verify=None,
        **values,
    )


async def audit_export(request: Request, ui: UiContext, session: Session) -> Response:
    fmt = request.query_params.get("format", "")
    if fmt not in ("csv", "json"):
        raise InvalidInput(f"format must be csv or json; got {fmt[:20]!r}", field="format")
    query, _ = forms.audit_query(request.query_params)
    out = io.StringIO()
    await run_in_threadpool(ui.dashboard.export, session, out, fmt, query)
    media = "text/csv" if fmt == "csv" else "application/json"
    response = Response(
        out.getvalue(),
        media_type=f"{media}; charset=utf-8",
        headers={"content-disposition": f'attachment; filename="memwarden-audit.{fmt}"'},
    )
    return security.secure(response)


async def health(request: Request, ui: UiContext, session: Session) -> Response:
    report, at = ui.health_reports.get(session.caller.tenant, (None, None))
    if report is not None and not session.operator:
        report = hide_paths(report)
    checks = summarize(report) if report is not None else []
    return ui.render(
        request, "health.html", session, report=report, report_at=at, checks=checks, title="Health"
    )


async def backups(request: Request, ui: UiContext, session: Session) -> Response:
    if not session.operator:
        raise InvalidInput(
            "backups are for the local operator: log in with the one-time link or the server token"
        )
    listed = await run_in_threadpool(ui.dashboard.backups)
    plan, plan_error = None, None
    name = request.query_params.get("plan")
    if name:
        try:
            plan = await run_in_threadpool(ui.dashboard.restore_plan, name)
        except MemwardenError as exc:
            plan_error = exc.message
    status = 200 if plan_error is None else 400
    return ui.render(
        request,
        "backups.html",
        session,
        status=status,
        backups=listed,
        plan=plan,
        plan_name=name,
        error=plan_error,
        title="Backups",
    )


ROUTES: list[tuple[str, Handler]] = [
    ("/ui/", overview),
    ("/ui/memories", memories),
    ("/ui/memories/{memory_id}", memory),
    ("/ui/memories/{memory_id}/delete", confirm_delete),
    ("/ui/review", review),
    ("/ui/audit", audit),
    ("/ui/audit/export", audit_export),
    ("/ui/health", health),
    ("/ui/backups", backups),
]
