"""The dashboard's writes (POST): edit, pin, tag, move, delete, review actions, audit verify,
the deep health check. Each runs through the service (validated, redacted, audited), after the
same-origin, session and CSRF checks of ``app.action``; a refused or failed one changes nothing
and says why on the page."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from memwarden.audit.base import ACTIONS
from memwarden.errors import Conflict, InvalidInput, MemwardenError
from memwarden.models import KINDS
from memwarden.ui import forms, security
from memwarden.ui.audit_timeline import AUDIT_ROUTES
from memwarden.ui.context import Handler, UiContext
from memwarden.ui.sessions import Session


def _fields(form: FormData) -> dict[str, Any]:
    return {k: v for k, v in form.items() if isinstance(v, str) and k != security.CSRF_FIELD}


def _back(path: str, notice: str, **ids: str) -> Response:
    """Back to ``path``, which then says the notice ``context.NOTICES[notice]``."""
    query = urlencode({"done": notice, **ids})
    return security.secure(RedirectResponse(f"{path}?{query}", status_code=303))


async def edit(request: Request, ui: UiContext, session: Session) -> Response:
    """Save the edit form; a stale ``if_version`` shows the current memory beside the draft."""
    memory_id = forms.memory_id(request.path_params["memory_id"])
    fields = _fields(await request.form())
    try:
        changes, version = forms.memory_changes(fields)
        await run_in_threadpool(ui.dashboard.update, session, memory_id, changes, version)
    except MemwardenError as exc:
        view = await run_in_threadpool(ui.dashboard.memory_view, session, memory_id)
        current = view.memory
        projects = await run_in_threadpool(ui.dashboard.projects, session)
        conflict = isinstance(exc, Conflict) and "version" in exc.message
        message = (
            f"Not saved: this memory was changed elsewhere since you opened it (it is now at version "
            f"{current.version}). The current text is shown first; your draft is in the form below, and saving it "
            f"now replaces version {current.version}."
            if conflict
            else f"Not saved: {exc.message}"
        )
        status = 409 if isinstance(exc, Conflict) else 400
        return ui.render(
            request,
            "memory.html",
            session,
            status=status,
            error=message,
            memory=current,
            view=view,
            kinds=KINDS,
            projects=projects,
            draft=fields if conflict else None,
            title="Memory",
        )
    return _back(f"/ui/memories/{memory_id}", "saved")


async def delete(request: Request, ui: UiContext, session: Session) -> Response:
    memory_id = forms.memory_id(request.path_params["memory_id"])
    form = await request.form()
    if form.get("confirm") != "yes":
        raise InvalidInput("deleting needs the confirmation: tick the box and press Delete", field="confirm")
    await run_in_threadpool(ui.dashboard.delete, session, memory_id)
    return _back("/ui/memories", "deleted", id=memory_id)


async def review_delete(request: Request, ui: UiContext, session: Session) -> Response:
    form = await request.form()
    memory_id = forms.memory_id(str(form.get("id", "")))
    await run_in_threadpool(ui.dashboard.delete, session, memory_id)
    return _back("/ui/review", "deleted", id=memory_id)


async def review_merge(request: Request, ui: UiContext, session: Session) -> Response:
    form = await request.form()
    keep, drop = forms.memory_id(str(form.get("keep", ""))), forms.memory_id(str(form.get("drop", "")))
    await run_in_threadpool(ui.dashboard.merge, session, keep, drop)
    return _back("/ui/review", "merged", drop=drop, keep=keep)


async def review_pin(request: Request, ui: UiContext, session: Session) -> Response:
    """Keep a memory the review proposes to remove: pin it (pinned memories are not proposed)."""
    form = await request.form()
    memory_id = forms.memory_id(str(form.get("id", "")))
    current = await run_in_threadpool(ui.dashboard.memory, session, memory_id)
    await run_in_threadpool(ui.dashboard.update, session, memory_id, {"pinned": True}, current.version)
    return _back("/ui/review", "pinned", id=memory_id)


async def review_clear_flags(request: Request, ui: UiContext, session: Session) -> Response:
    """Clear a flagged memory's injection flags: the user read it and vouches for it (audited,
    undone by the next change of its text, which is screened again)."""
    form = await request.form()
    memory_id = forms.memory_id(str(form.get("id", "")))
    await run_in_threadpool(ui.dashboard.clear_flags, session, memory_id)
    return _back("/ui/review", "cleared", id=memory_id)


async def verify(request: Request, ui: UiContext, session: Session) -> Response:
    if not session.operator:
        raise InvalidInput("verifying the whole chain is for the local operator")
    report = await run_in_threadpool(ui.dashboard.verify)
    return ui.render(
        request,
        "audit.html",
        session,
        entries=[],
        timeline=None,
        routes=AUDIT_ROUTES,
        verify=report,
        params=request.query_params,
        actions=ACTIONS,
        title="Audit",
    )


async def deep_health(request: Request, ui: UiContext, session: Session) -> Response:
    """Run the deep check for the session's tenant, at most once per ``health_interval_s`` (it
    runs the integrity check and a probe write, as ``/healthz?deep=1``, which is limited the
    same way). Only the local operator sees absolute paths (database, backups, vault)."""
    tenant = session.caller.tenant
    now = ui.dashboard.service.clock()
    last = ui.health_reports.get(tenant)
    if last is None or (now - last[1]).total_seconds() >= ui.health_interval_s:
        report = await run_in_threadpool(ui.dashboard.health, session)
        ui.health_reports[tenant] = (report, ui.dashboard.service.clock())
    return _back("/ui/health", "checked")


ROUTES: list[tuple[str, Handler]] = [
    ("/ui/memories/{memory_id}/edit", edit),
    ("/ui/memories/{memory_id}/delete", delete),
    ("/ui/review/delete", review_delete),
    ("/ui/review/merge", review_merge),
    ("/ui/review/pin", review_pin),
    ("/ui/review/clear-flags", review_clear_flags),
    ("/ui/audit/verify", verify),
    ("/ui/health/check", deep_health),
]
