"""The finished pages (issue 37, item 1): charts in fixed-height boxes, text cut at a word with
the full text on hover, search hits shown once with one stacked ``why`` bar, Health as a
summary per check, Audit filterable with the dashboard's reads folded into one line per visit,
sizes and times a person reads. Real SQLite file, real ASGI app over httpx, real Chromium."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from test_ui_http import login
from ui_helpers import TOKEN, WAIT_MS, Server

from memwarden.app import build_service
from memwarden.http.app import build_http_app
from memwarden.ui.display import clip, human_size, why_segments

LONG = (
    "The quarterly planning meeting moved to the large room on the third floor because the "
    "usual room is being repainted this week and the projector there is broken as well"
)


def test_clip_cuts_at_a_word_with_an_ellipsis_and_keeps_short_text() -> None:
    assert clip("short text", 80) == "short text"
    cut = clip(LONG, 80)
    assert cut.endswith("…") and len(cut) <= 81
    assert LONG.startswith(cut[:-1]) and LONG[len(cut) - 1] == " "  # the cut falls on a space
    assert clip("x" * 200, 50) == "x" * 50 + "…"  # one long word is cut where the limit falls
    assert clip("two\nlines", 80) == "two lines"


def test_sizes_and_why_shares_read_plainly() -> None:
    assert (human_size(512), human_size(196608), human_size(5 * 1024**3)) == ("512 B", "192 KB", "5.0 GB")
    parts = why_segments({"keyword": 0.3, "recency": 0.1, "pinned": 0.0, "usage": -0.1})
    assert [(s.name, s.percent) for s in parts] == [("keyword", 75), ("recency", 25)]


def test_search_hits_show_the_text_once_and_the_why_as_one_bar(client: httpx.Client, served: Any) -> None:
    app, service, _ = served
    service.memories.add(LONG, project="office")
    login(client, app)
    page = client.get("/ui/memories", params={"q": "quarterly planning projector"}).text
    hit = page[page.index('<li class="hit">') : page.index("</li>", page.index('<li class="hit">'))]
    assert f'title="{LONG}"' in hit and "…" in hit  # no title: the text once, cut, full on hover
    assert hit.replace(f'title="{LONG}"', "").count("quarterly planning meeting") == 1
    assert hit.count('class="whybar"') == 1 and re.search(r'class="seg why-(relevance|keyword) p\d+"', hit)
    assert "<details" in hit and "Why it ranks here" in hit  # the numbers on demand


def test_health_is_a_summary_per_check_with_the_report_folded(client: httpx.Client, served: Any) -> None:
    app, _, _ = served
    csrf = login(client, app)
    assert client.post("/ui/health/check", data={"csrf": csrf}).status_code == 303
    page = client.get("/ui/health").text
    assert "Every check passed: nothing to do." in page
    for label in ("Database file", "Keyword search index", "Vector search", "Backups", "Clock"):
        assert f'<th scope="row">{label}</th>' in page
    assert "Off (no embedder configured)" in page and "not set up" in page
    summary, folded = page.split("<details>", 1)
    assert "memories_fts_docsize" not in summary and "memories_fts_docsize" in folded
    assert re.search(r"Last backup (just now|\d+ min ago), verified, \d+(\.\d)? KB", summary)


def test_audit_folds_dashboard_reads_and_filters_by_route_and_memory(
    client: httpx.Client, served: Any
) -> None:
    app, _, ids = served
    login(client, app)
    for _ in range(3):  # a visit: the overview and the memories table, read three times
        client.get("/ui/")
        client.get("/ui/memories")
    page = client.get("/ui/audit").text
    visits = re.findall(r"Dashboard visit by ([^:]+): (\d+) read\(s\) \(([^)]*)\)", page)
    # login() read the overview once more: seven reads, one line
    assert [v[1:] for v in visits] == [("7", "list 3, stats 4")]
    assert f'href="/ui/memories/{ids["chat1"]}"' in page  # rows link the memories they touched
    ui_only = client.get("/ui/audit", params={"route": "dashboard"}).text
    assert "<td>search</td>" not in ui_only and "Dashboard visit" in ui_only
    others = client.get("/ui/audit", params={"route": "other"}).text
    assert "<td>search</td>" in others and "Dashboard visit" not in others
    writes = client.get("/ui/audit", params={"memory": ids["chat1"]}).text
    assert writes.count("<td>update</td>") == 1 and writes.count("<td>add</td>") == 1
    assert "<td>search</td>" not in writes
    bad = client.get("/ui/audit", params={"route": "<script>"})
    assert bad.status_code == 400 and "route must be one of dashboard, other" in bad.text
    bad = client.get("/ui/audit", params={"memory": "not an id"})
    assert bad.status_code == 400 and "memory must be a memory id" in bad.text


def test_backups_show_sizes_a_person_reads(client: httpx.Client, served: Any) -> None:
    login(client, served[0])
    page = client.get("/ui/backups").text
    assert re.search(r'title="\d+ bytes">\d+(\.\d)? KB</td>', page)


CANVASES = """() => [...document.querySelectorAll('.chart-box')].map(box => {
  const c = box.querySelector('canvas');
  return {box: box.getBoundingClientRect().height, canvas: c.getBoundingClientRect().height,
          width: c.getBoundingClientRect().width, boxWidth: box.getBoundingClientRect().width};
})"""


@pytest.mark.browser
@pytest.mark.parametrize("width", [390, 1280, 1920])
def test_chart_canvases_stay_within_their_fixed_height_boxes(browser: Any, site: Any, width: int) -> None:
    server, _, _ = site
    context = browser.new_context(viewport={"width": width, "height": 900})
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.goto(server.link())
    page.wait_for_function("document.querySelectorAll('.chart-box canvas[width]').length === 3")
    sizes = page.evaluate(CANVASES)
    assert len(sizes) == 3
    for size in sizes:
        assert 200 <= size["box"] <= 300, size
        assert size["canvas"] <= size["box"] + 0.5 and size["width"] <= size["boxWidth"] + 0.5, size
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # no horizontal scroll
    context.close()


@pytest.mark.browser
def test_an_empty_overview_says_so_instead_of_drawing_empty_charts(browser: Any, settings_for: Any) -> None:
    settings = settings_for(http_token=TOKEN)
    service = build_service(settings, ops=True)
    server = Server(build_http_app(service, settings))
    try:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(server.link())
        assert page.get_by_text("No memory was added in the last 12 weeks.").is_visible()
        assert page.get_by_text("No search in the last 30 days.").is_visible()
        assert page.locator("canvas").count() <= 1  # the audit chart only (the login was audited)
        context.close()
    finally:
        server.stop()
        service.close()
