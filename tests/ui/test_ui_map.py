"""The memory map (issue 37, item 3): projects, tags, threads and near-duplicates as a graph
drawn by the vendored Cytoscape.js (no CDN), filterable, each memory node opening its memory,
sampled above a cap and saying so; tenant-confined and audited like every read."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest
from test_ui_http import login
from ui_helpers import WAIT_MS


def _elements(page: str) -> list[dict[str, Any]]:
    block = re.search(r'<script type="application/json" id="map-data">(.*?)</script>', page, re.S)
    assert block is not None
    return list(json.loads(block.group(1)))


def test_the_map_joins_memories_to_projects_tags_threads_and_duplicates(
    client: httpx.Client, served: Any
) -> None:
    app, _, ids = served
    login(client, app)
    page = client.get("/ui/map").text
    elements = _elements(page)
    kinds = {e["data"]["kind"] for e in elements}
    assert {"memory", "project", "tag", "thread", "duplicate"} <= kinds
    dup = next(e["data"] for e in elements if e["data"]["kind"] == "duplicate")
    assert {dup["source"], dup["target"]} == {f"memory:{ids['dup_a']}", f"memory:{ids['dup_b']}"}
    assert "All 9 memories in this scope." in page and "1 near-duplicate pair(s)" in page
    crm = _elements(client.get("/ui/map", params={"project": "crm"}).text)
    assert [e["data"]["memory"] for e in crm if e["data"]["kind"] == "memory"] == [ids["pref"]]
    for cap in ("5", "501", "lots"):  # within the page's cost bound, or a clear message
        bad = client.get("/ui/map", params={"cap": cap})
        assert bad.status_code == 400 and "memories shown must be a whole number from 10 to 500" in bad.text


def test_the_map_says_when_it_shows_a_sample(client: httpx.Client, served: Any) -> None:
    app, service, _ = served
    for n in range(15):
        service.memories.add(f"Sampled note {n} on the roadmap", project="crm")
    login(client, app)
    page = client.get("/ui/map", params={"cap": "100"}).text
    assert "All 24 memories" in page
    small = client.get("/ui/map", params={"cap": "10"}).text
    assert "A sample: the newest 10 of 24 memories" in small
    assert sum(1 for e in _elements(small) if e["data"]["kind"] == "memory") == 10


@pytest.mark.browser
def test_the_map_draws_filters_and_opens_a_memory_in_the_browser(browser: Any, site: Any) -> None:
    server, _, ids = site
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(server.link())
    page.goto(server.url + "/ui/map")
    page.wait_for_function("document.querySelectorAll('#map-canvas canvas').length > 0")
    box = page.evaluate("document.getElementById('map-canvas').getBoundingClientRect().height")
    assert 400 <= box <= 600
    assert page.evaluate("document.querySelectorAll('style').length") == 0  # no inline stylesheet
    page.get_by_role("checkbox", name="tags").uncheck()
    page.get_by_role("checkbox", name="tags").check()
    node = page.evaluate(
        "(() => { const cy = document.getElementById('map-canvas')._cyreg.cy;"
        f" const n = cy.getElementById('memory:{ids['pref']}'); const p = n.renderedPosition();"
        " const r = document.getElementById('map-canvas').getBoundingClientRect();"
        " return {x: r.left + p.x, y: r.top + p.y}; })()"
    )
    page.mouse.click(node["x"], node["y"])
    page.wait_for_url(f"**/ui/memories/{ids['pref']}")
    assert problems == []
    assert all(u.startswith(server.url) for u in requests)  # no CDN, no other site
    context.close()
