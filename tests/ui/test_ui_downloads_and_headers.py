"""Second attack round on the dashboard (issue 33 item 6): the audit CSV as a spreadsheet reads
it, and the security headers on the responses no handler builds."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import httpx
import pytest
from test_ui_http import login

from memwarden.audit.export import FORMULA_STARTS
from memwarden.errors import InvalidInput
from memwarden.service import MemoryService

# Projects a caller may choose that a spreadsheet would run as formulas.
FORMULA_PROJECTS = ["=cmd|/C calc!A0", "@SUM(1+1)", "+1+2", "-2+3", "=HYPERLINK(evil.example)"]


def test_the_audit_csv_holds_no_cell_a_spreadsheet_would_run(client: httpx.Client, served: Any) -> None:
    app, service, _ = served
    assert isinstance(service, MemoryService)
    for project in FORMULA_PROJECTS:
        service.memories.add(f"a memory of project {project}", project=project)
    # A refused add is audited with the project as sent, quotes and all.
    with pytest.raises(InvalidInput):
        service.memories.add("refused", project="=cmd|' /C calc'!A0")
    login(client, app)
    r = client.get("/ui/audit/export?format=csv")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["content-disposition"].startswith("attachment;")
    rows = list(csv.reader(io.StringIO(r.text, newline="")))
    header, body = rows[0], rows[1:]
    assert header[0] == "seq" and all(len(row) == len(header) for row in body)
    cells = [cell for row in body for cell in row]
    assert not [cell for cell in cells if cell.startswith(FORMULA_STARTS)]
    projects = [row[header.index("project")] for row in body]
    for project in [*FORMULA_PROJECTS, "=cmd|' /C calc'!A0"]:
        assert "'" + project in projects, project
    # The JSON export stays exact, row for row (plus the audit row of the CSV export).
    exact = client.get("/ui/audit/export?format=json").json()
    assert exact["count"] == len(body) + 1 and exact["records"][-1]["action"] == "export"
    assert {rec["project"] for rec in exact["records"]} >= set(FORMULA_PROJECTS)
    assert json.dumps(exact["records"][0]["seq"]) == body[0][0]


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/ui/no-such-page", 404),
        ("GET", "/ui/static/no-such-file.js", 404),
        ("GET", "/ui/logout", 405),
    ],
)
def test_responses_no_handler_builds_carry_the_security_headers(
    client: httpx.Client, method: str, path: str, status: int
) -> None:
    r = client.request(method, path)
    assert r.status_code == status
    assert r.headers["x-content-type-options"] == "nosniff"
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
    assert r.headers["x-frame-options"] == "DENY"
    if not path.startswith("/ui/static/"):
        assert r.headers["cache-control"] == "no-store"


def test_static_files_carry_the_security_headers_and_may_be_cached(client: httpx.Client) -> None:
    r = client.get("/ui/static/app.js")
    assert r.status_code == 200 and "javascript" in r.headers["content-type"]
    assert r.headers["x-content-type-options"] == "nosniff"
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
    assert "cache-control" not in r.headers
