"""Live pages (issue 37, item 4): a page that lists memories or audit rows says, in a ``<meta>``
tag, a marker of the tenant's memories when it was rendered; ``static/live.js`` asks
``/ui/live`` for the current marker at the interval the user picked (off, 10, 30 or 60 s; kept
in the browser) and, when it changed, fetches the page again and swaps its live regions in
place, keeping the scroll position, ticked checkboxes and anything being typed.

The marker changes on any write and on nothing else: the newest change of a live memory (id and
time, one indexed row) and the number of today's audited writes of the tenant (the per-day
counts table), which also moves on deletes. Asking for it writes no audit row, or the dashboard's
own polling would count as a change.
"""

from __future__ import annotations

import hashlib

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from memwarden.audit.base import WRITE_ACTIONS
from memwarden.browsing import MemoryQuery
from memwarden.models import format_time
from memwarden.service import MemoryService
from memwarden.ui import security
from memwarden.ui.context import Handler, UiContext
from memwarden.ui.sessions import Session


def change_marker(service: MemoryService, tenant: str) -> str:
    """A short digest that moves whenever a memory of ``tenant`` is written."""
    now = service.clock()
    newest = service.store.browse(tenant, MemoryQuery(), now=now, limit=1, count_limit=1).memories
    head = f"{newest[0].id}@{format_time(newest[0].updated_at)}" if newest else "-"
    writes = 0
    log = None if service.auditor is None else service.auditor.log
    if log is not None:
        today = now.date().isoformat()
        writes = sum(
            row.rows for row in log.daily_counts(today, tenant=tenant) if row.action in WRITE_ACTIONS
        )
    return hashlib.sha256(f"{tenant}\n{head}\n{writes}".encode()).hexdigest()[:16]


async def marker(request: Request, ui: UiContext, session: Session) -> Response:
    current = await run_in_threadpool(change_marker, ui.dashboard.service, session.caller.tenant)
    return security.secure(JSONResponse({"marker": current}))


PAGES: list[tuple[str, Handler]] = [("/ui/live", marker)]
