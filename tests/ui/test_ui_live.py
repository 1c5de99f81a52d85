"""Live pages (issue 37, item 4): the change marker moves on writes only (the dashboard's own
reads and its polling do not move it), and a page polling it swaps its list in place in a real
Chromium without losing the scroll position or the ticked boxes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from test_ui_http import login
from ui_helpers import TOKEN, WAIT_MS, Server, fill

from memwarden.app import build_service
from memwarden.http.app import build_http_app
from memwarden.service import MemoryService


def test_the_marker_moves_on_writes_and_not_on_reads(client: httpx.Client, served: Any) -> None:
    app, service, ids = served
    login(client, app)
    first = client.get("/ui/live").json()["marker"]
    for path in ("/ui/", "/ui/memories", "/ui/audit", "/ui/live", "/ui/review"):
        client.get(path)
    assert client.get("/ui/live").json()["marker"] == first
    service.memories.delete(ids["dup_b"])  # a delete: the newest memory stays the same one
    second = client.get("/ui/live").json()["marker"]
    assert second != first
    service.memories.add("A fresh fact from an agent", project="crm")
    assert client.get("/ui/live").json()["marker"] != second
    page = client.get("/ui/memories").text
    assert f'<meta name="memwarden-live" content="{client.get("/ui/live").json()["marker"]}">' in page
    assert 'name="memwarden-live"' not in client.get("/ui/memories?q=fact").text  # search is not live


def test_the_marker_needs_a_session(client: httpx.Client) -> None:
    assert client.get("/ui/live").status_code == 303


@pytest.fixture
def site(settings_for: Any) -> Iterator[tuple[Server, MemoryService, dict[str, str]]]:
    settings = settings_for(http_token=TOKEN)
    service = build_service(settings, ops=True)
    ids = fill(service)
    for n in range(40):  # enough rows to scroll
        service.memories.add(f"Filler memory number {n} about the weekly report", project="filler")
    server = Server(build_http_app(service, settings))
    yield server, service, ids
    server.stop()
    service.close()


@pytest.mark.browser
def test_a_polling_list_updates_in_place_keeping_scroll_and_selection(browser: Any, site: Any) -> None:
    server, service, ids = site
    context = browser.new_context(viewport={"width": 1280, "height": 600})
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.clock.install()
    page.goto(server.link())
    page.goto(server.url + "/ui/memories")
    assert page.get_by_label("Live").input_value() == "30"
    page.locator(f'input[name=id][value="{ids["pref"]}"]').check()
    page.mouse.wheel(0, 700)
    page.wait_for_function("window.scrollY > 300")
    scrolled = page.evaluate("window.scrollY")
    service.memories.add("Arrived while the page was open", project="crm")
    page.clock.run_for(31_000)
    page.wait_for_selector("text=Arrived while the page was open", state="attached")
    assert page.locator(f'input[name=id][value="{ids["pref"]}"]').is_checked()
    assert abs(page.evaluate("window.scrollY") - scrolled) < 2
    assert "updated" in page.locator("#live-state").inner_text()
    page.get_by_label("Live").select_option("0")  # off: nothing more is asked
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    service.memories.add("Arrived after live was turned off", project="crm")
    page.clock.run_for(120_000)
    assert requests == [] and page.get_by_text("Arrived after live was turned off").count() == 0
    context.close()
