"""The dashboard in a real headless Chromium (Debian's ``chromium`` package, driven by
Playwright) against a real server on a real SQLite file.

Without the browser these tests are skipped on a workstation and FAIL in CI (``CI=true``):
``make test`` installs it. Screenshots for docs/ui.md are written only when
``UI_SCREENSHOTS=DIR`` is set: ``UI_SCREENSHOTS=docs/ui pytest tests/ui/test_ui_browser.py``.
"""

from __future__ import annotations

import os
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ui_helpers import TOKEN, WAIT_MS

pytestmark = pytest.mark.browser
AXE = Path(__file__).parent / "vendor" / "axe.min.js"
SHOTS = os.environ.get("UI_SCREENSHOTS")


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(WAIT_MS)
    opened = context.new_page()
    problems: list[str] = []
    opened.on("console", lambda msg: problems.append(msg.text) if msg.type == "error" else None)
    opened.on("pageerror", lambda exc: problems.append(str(exc)))
    opened.problems = problems
    yield opened
    context.close()


def axe_violations(page: Any) -> list[str]:
    """Serious and critical axe-core findings on the current page."""
    page.evaluate(AXE.read_text(encoding="utf-8") + "\n;0")  # through DevTools: the page's CSP stays on
    result = page.evaluate(
        "async () => (await axe.run(document)).violations.map("
        "v => ({id: v.id, impact: v.impact, nodes: v.nodes.length}))"
    )
    return [
        f"{v['id']} ({v['impact']}, {v['nodes']} nodes)"
        for v in result
        if v["impact"] in ("serious", "critical")
    ]


def shoot(page: Any, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


def test_every_page_renders_real_data_without_script_errors_or_serious_axe_findings(
    site: Any, page: Any
) -> None:
    server, _, ids = site
    page.goto(server.link())
    assert page.url.endswith("/ui/")
    page.wait_for_function("document.querySelectorAll('canvas[width]').length === 3")  # Chart.js drew
    assert page.locator("text=Memories per project and kind").is_visible()
    assert page.locator("td", has_text="infra").count() >= 1
    assert page.get_by_text("Contact preference").count() >= 1  # most recalled
    checks = [
        ("overview", "/ui/", "Redactions per rule"),
        ("memories", "/ui/memories", "Standup happens at 9:30"),
        ("search", "/ui/memories?q=standup", "Why it ranks here"),
        ("memory", f"/ui/memories/{ids['chat1']}", "Bo agreed and will draft the changelog"),
        ("delete", f"/ui/memories/{ids['pref']}/delete", "Yes, delete it"),
        ("review", "/ui/review", "Merge newer into older"),
        ("audit", "/ui/audit", "Export these rows"),
        ("health", "/ui/health", "Run the deep check now"),
        ("backups", "/ui/backups", "memwarden-"),
    ]
    for name, path, text in checks:
        page.goto(server.url + path)
        assert page.locator("main").get_by_text(text).first.is_visible(), name
        assert axe_violations(page) == [], name
        shoot(page, name)
        if name == "audit":
            assert page.locator("td", has_text=re.compile("^search$")).count() >= 4
    page.goto(f"{server.url}/ui/memories/{ids['chat1']}")
    thread = page.get_by_role("region", name="Thread release-chat")
    assert thread.get_by_role("listitem").count() == 3 and "Ana proposed" in thread.inner_text()
    assert page.get_by_text("Ana: let us freeze on Thursday").is_visible()  # its context
    versions = page.get_by_role("region", name="Versions")
    assert "This is version 2" in versions.inner_text() and versions.locator("tbody tr").count() == 2
    assert (
        "[REDACTED" in page.goto(f"{server.url}/ui/memories/{ids['secret']}").text()
        or "AKIAIOSFODNN7EXAMPLE" not in page.content()
    )
    page.goto(server.url + "/ui/health")
    page.get_by_role("button", name="Run the deep check now").click()
    assert page.get_by_text("Status:").is_visible(), page.content()[-1500:]
    shoot(page, "health-report")
    page.goto(server.url + "/ui/backups")
    page.get_by_role("link", name="What would change").first.click()
    assert page.get_by_text("would change").first.is_visible()
    shoot(page, "restore-plan")
    assert page.problems == []


def test_login_wrong_token_logout_and_expired_session(site: Any, page: Any) -> None:
    server, _, _ = site
    page.goto(server.url + "/ui/")
    assert "/ui/login" in page.url
    shoot(page, "login")
    page.get_by_label("Token").fill("mwt_not-the-token")
    page.get_by_role("button", name="Log in").click()
    assert page.get_by_role("alert").inner_text() == "That token is not valid."
    page.get_by_label("Token").fill(TOKEN)
    page.get_by_role("button", name="Log in").click()
    assert page.url.endswith("/ui/") and page.get_by_text("(operator)").is_visible()
    cookie = next(c for c in page.context.cookies() if c["name"] == "memwarden_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    page.get_by_role("button", name="Log out").click()
    assert "/ui/login" in page.url
    page.goto(server.url + "/ui/memories")
    assert "/ui/login" in page.url
    page.goto(server.link())
    sessions = server.app.dashboard.state.ui.sessions
    now = sessions.clock()
    sessions.clock = lambda: now + sessions.idle + sessions.idle
    page.goto(server.url + "/ui/memories")
    assert page.get_by_text("Your session ended; log in again.").is_visible()


def test_edit_round_trip_then_a_conflict_shown_plainly(site: Any, page: Any) -> None:
    server, service, ids = site
    page.goto(server.link())
    page.goto(f"{server.url}/ui/memories/{ids['pref']}")
    page.get_by_label("Content").fill("The client prefers email; phone only for outages")
    page.get_by_label("Tags (comma-separated)").fill("contact, escalation")
    page.get_by_label("Project", exact=True).fill("sales")
    page.get_by_role("button", name="Save version 2").click()
    assert page.get_by_role("status").inner_text() == "Saved."
    stored = service.memories.get([ids["pref"]])[0][0]
    assert (stored.content, stored.tags, stored.project, stored.version) == (
        "The client prefers email; phone only for outages",
        ("contact", "escalation"),
        "sales",
        2,
    )
    page.get_by_label("Content").fill("my edit from an old page")
    service.memories.update(
        ids["pref"], content="changed by an agent meanwhile"
    )  # another writer wins the race
    page.get_by_role("button", name="Save version 3").click()
    alert = page.get_by_role("alert").inner_text()
    assert "changed elsewhere since you opened it" in alert and "version 3" in alert
    assert page.get_by_label("Content").input_value() == "my edit from an old page"
    shoot(page, "conflict")
    assert service.memories.get([ids["pref"]])[0][0].content == "changed by an agent meanwhile"


def test_pin_and_delete_with_confirmation(site: Any, page: Any) -> None:
    server, service, ids = site
    page.goto(server.link())
    page.goto(f"{server.url}/ui/memories/{ids['pref']}")
    page.get_by_role("button", name="Pin", exact=True).click()
    assert service.memories.get([ids["pref"]])[0][0].pinned is True
    page.get_by_role("link", name="Delete…").click()
    page.get_by_role("button", name="Delete").click()  # without ticking the box
    assert "needs the confirmation" in page.get_by_role("alert").inner_text()
    assert service.memories.get([ids["pref"]])[0]
    page.goto(f"{server.url}/ui/memories/{ids['pref']}/delete")
    page.get_by_label("Yes, delete it").check()
    page.get_by_role("button", name="Delete").click()
    assert "Deleted memory" in page.get_by_role("status").inner_text()
    assert service.memories.get([ids["pref"]])[0] == []


def test_a_review_merge_goes_through_the_service_and_is_audited(site: Any, page: Any) -> None:
    server, service, ids = site
    page.goto(server.link())
    page.goto(server.url + "/ui/review")
    page.get_by_role("button", name="Merge newer into older").first.click()
    assert "Merged" in page.get_by_role("status").inner_text()
    kept = service.memories.get([ids["dup_a"]])[0][0]
    assert "Ada Lovelace" in kept.content and kept.version == 2
    assert service.memories.get([ids["dup_b"]])[0] == []
    page.goto(server.url + "/ui/audit?action=delete")
    assert page.locator("td", has_text=re.compile("^delete$")).count() == 1


def test_audit_verify_shows_where_a_tampered_chain_breaks(site: Any, page: Any, tmp_path: Path) -> None:
    server, _, _ = site
    page.goto(server.link())
    page.goto(server.url + "/ui/audit")
    page.get_by_role("button", name="Verify the whole chain now").click()
    assert page.get_by_role("heading", name="Chain intact").is_visible()
    conn = sqlite3.connect(tmp_path / "ui.db", isolation_level=None)  # an intruder edits row 3
    conn.execute("DROP TRIGGER audit_log_no_update")
    conn.execute("UPDATE audit_log SET actor = 'someone-else' WHERE seq = 3")
    conn.close()
    page.get_by_role("button", name="Verify the whole chain now").click()
    assert page.get_by_role("heading", name="Chain BROKEN").is_visible()
    row = page.locator("section.broken tbody tr").first.inner_text()
    assert re.match(r"3\s+3\s+edited", row), row
    shoot(page, "audit-broken")


def test_forged_and_cross_site_posts_are_refused_in_the_browser(site: Any, page: Any) -> None:
    server, service, ids = site
    page.goto(server.link())
    page.goto(f"{server.url}/ui/memories/{ids['pref']}")
    without = page.request.post(f"{server.url}/ui/memories/{ids['pref']}/delete", form={"confirm": "yes"})
    assert without.status == 403
    csrf = page.locator("input[name=csrf]").first.get_attribute("value")
    foreign = page.request.post(
        f"{server.url}/ui/memories/{ids['pref']}/delete",
        form={"confirm": "yes", "csrf": csrf},
        headers={"origin": "http://evil.example"},
    )
    assert foreign.status == 403
    assert service.memories.get([ids["pref"]])[0]
    page.goto("about:blank")  # a page of another origin posting to the dashboard
    page.set_content(
        f'<form method="post" action="{server.url}/ui/memories/{ids["pref"]}/delete">'
        f'<input name="confirm" value="yes"><input name="csrf" value="{csrf}"></form>'
    )
    page.evaluate("document.forms[0].submit()")
    page.wait_for_load_state()
    assert service.memories.get([ids["pref"]])[0]


def test_main_flows_work_with_the_keyboard_alone(site: Any, page: Any) -> None:
    server, service, _ = site
    page.goto(server.link())
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"
    page.keyboard.press("Enter")
    for _ in range(12):  # from the top: the navigation reaches Memories
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.textContent") == "Memories":
            break
    page.goto(server.url + "/ui/")
    page.keyboard.press("Tab")  # skip link
    page.keyboard.press("Tab")  # brand
    page.keyboard.press("Tab")  # Overview
    page.keyboard.press("Tab")  # Memories
    assert page.evaluate("document.activeElement.textContent") == "Memories"
    page.keyboard.press("Enter")
    page.wait_for_url("**/ui/memories")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    while page.evaluate("document.activeElement.id") != "q":
        page.keyboard.press("Tab")
    page.keyboard.type("standup")
    page.keyboard.press("Enter")
    page.wait_for_selector("text=Why it ranks here")
    while "/ui/memories/" not in (page.evaluate("document.activeElement.href || ''")):
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_url("**/ui/memories/*")
    while page.evaluate("document.activeElement.id") != "content":
        page.keyboard.press("Tab")
    page.keyboard.press("Control+A")
    page.keyboard.type("Standup moved to 10:00")
    while not page.evaluate("document.activeElement.textContent.startsWith('Save version')"):
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.wait_for_selector("text=Saved.")
    assert any(m.content == "Standup moved to 10:00" for m in service.memories.list(project="team", limit=50))


def _tab_to(page: Any, test: str, limit: int = 80) -> None:
    """Press Tab until ``test`` (a JS expression on document.activeElement ``e``) holds."""
    for _ in range(limit):
        if page.evaluate(f"(() => {{ const e = document.activeElement; return !!e && ({test}); }})()"):
            return
        page.keyboard.press("Tab")
    raise AssertionError(f"Tab never reached {test}")


def test_delete_review_and_paging_work_with_the_keyboard_alone(
    site: Any, page: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memwarden.ui import dashboard

    server, service, ids = site
    monkeypatch.setattr(dashboard, "PAGE_SIZE", 4)
    page.goto(server.link())
    page.goto(server.url + "/ui/memories")
    first = page.locator("tbody a").first.inner_text()
    _tab_to(page, "e.rel === 'next'")  # the pager, by keyboard
    page.keyboard.press("Enter")
    page.wait_for_url("**after=**")
    assert page.locator("tbody a").first.inner_text() != first
    _tab_to(page, "e.rel === 'prev'")
    page.keyboard.press("Enter")
    page.wait_for_url("**before=**")
    assert page.locator("tbody a").first.inner_text() == first
    page.goto(f"{server.url}/ui/memories/{ids['secret']}")
    _tab_to(page, "e.textContent === 'Delete…'")
    page.keyboard.press("Enter")
    page.wait_for_url("**/delete")
    _tab_to(page, "e.id === 'confirm'")
    page.keyboard.press("Space")  # tick the confirmation
    page.keyboard.press("Tab")
    _tab_to(page, "e.textContent === 'Delete'")
    page.keyboard.press("Enter")
    page.wait_for_selector("text=Deleted memory")
    assert service.memories.get([ids["secret"]])[0] == []
    page.goto(server.url + "/ui/review")
    _tab_to(page, "e.textContent === 'Keep older, delete newer'")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"text=Deleted memory {ids['dup_b']}")
    assert service.memories.get([ids["dup_b"]])[0] == [] and service.memories.get([ids["dup_a"]])[0]
