"""Light and dark themes (issue 37, item 5): the dashboard follows ``prefers-color-scheme``, the
header's switch overrides it (kept in the browser), and axe-core (vendored in tests/ui/vendor,
never a CDN) finds no serious or critical issue on any page in either theme."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_ui_browser import axe_violations
from ui_helpers import TOKEN, WAIT_MS, Server, fill

from memwarden.app import build_service
from memwarden.http.app import build_http_app

pytestmark = pytest.mark.browser
BACKGROUND = "getComputedStyle(document.body).backgroundColor"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, dict[str, str]]]:
    from memwarden.config import load_settings

    folder = tmp_path_factory.mktemp("themes")
    settings = load_settings(
        db=str(folder / "ui.db"),
        log_file=str(folder / "memwarden.log"),
        backup_dir=str(folder / "backups"),
        embedder="none",
        http_token=TOKEN,
    )
    service = build_service(settings, ops=True)
    ids = fill(service)
    server = Server(build_http_app(service, settings))
    yield server, ids
    server.stop()
    service.close()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_page_passes_axe_in_both_themes(browser: Any, site: Any, scheme: str) -> None:
    server, ids = site
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.goto(server.link())
    dark = page.evaluate(BACKGROUND) == "rgb(18, 20, 23)"
    assert dark == (scheme == "dark")
    for path in (
        "/ui/",
        "/ui/memories",
        "/ui/memories?q=standup",
        f"/ui/memories/{ids['chat1']}",
        "/ui/memories/new",
        "/ui/review",
        "/ui/audit",
        "/ui/health",
        "/ui/backups",
        "/ui/map",
    ):
        page.goto(server.url + path)
        if path == "/ui/":
            page.wait_for_function("document.querySelectorAll('canvas[width]').length === 3")
        assert axe_violations(page) == [], (scheme, path)
    context.close()


def test_the_switch_overrides_the_system_and_is_remembered(browser: Any, site: Any) -> None:
    server, _ = site
    context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme="light")
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.goto(server.link())
    assert page.evaluate(BACKGROUND) == "rgb(255, 255, 255)"
    page.get_by_label("Theme").select_option("dark")
    assert page.evaluate(BACKGROUND) == "rgb(18, 20, 23)"
    page.goto(server.url + "/ui/memories")
    assert page.evaluate(BACKGROUND) == "rgb(18, 20, 23)"  # kept across pages
    assert page.get_by_label("Theme").input_value() == "dark"
    page.get_by_label("Theme").select_option("system")
    assert page.evaluate(BACKGROUND) == "rgb(255, 255, 255)"
    context.close()


PAGES = (
    "/ui/",
    "/ui/memories",
    "/ui/memories?q=standup",
    "/ui/memories/new",
    "/ui/map",
    "/ui/review",
    "/ui/audit",
)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_page_scrolls_sideways_on_a_390_px_phone(browser: Any, site: Any, scheme: str) -> None:
    server, ids = site
    context = browser.new_context(viewport={"width": 390, "height": 844}, color_scheme=scheme)
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    page.goto(server.link())
    for path in (*PAGES, f"/ui/memories/{ids['chat1']}", "/ui/health", "/ui/backups"):
        page.goto(server.url + path)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, (scheme, path)
    context.close()
