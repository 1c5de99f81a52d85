"""The dashboard's request-forgery defences on the dashboard the user's daemon serves: every
state-changing route refuses a post without the session's CSRF token, with a forged one, or from
another origin (another site, another loopback port); a foreign Host is refused before the
dashboard (DNS rebinding); nothing stored changes and the session stays open. Real HTTP against a
real daemon process (``memwarden ui`` with ``MEMWARDEN_DAEMON=auto``)."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from daemon_site import DaemonSite
from ui_helpers import TOKEN, fill

from memwarden.app import build_service
from memwarden.config import load_settings

pytestmark = pytest.mark.slow  # a real daemon


def _rows(db: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT id, version, deleted_at, content_hash, pinned FROM memories ORDER BY id"
        ).fetchall()


@pytest.fixture
def daemon_site(tmp_path: Path) -> Iterator[tuple[DaemonSite, dict[str, str], Path]]:
    db = tmp_path / "ui.db"
    settings = load_settings(
        db=str(db),
        log_file=str(tmp_path / "memwarden.log"),
        backup_dir=str(tmp_path / "backups"),
        embedder="none",
        http_token=TOKEN,
    )
    service = build_service(settings, ops=True)
    try:
        ids = fill(service)
    finally:
        service.close()
    site = DaemonSite(db, tmp_path, MEMWARDEN_HTTP_TOKEN=TOKEN)
    try:
        yield site, ids, db
    finally:
        site.stop()


def _login(client: httpx.Client, site: DaemonSite) -> str:
    landed = client.get(site.link().removeprefix(site.url))
    assert landed.status_code == 303 and landed.headers["location"] == "/ui/", landed.text[:300]
    page = client.get("/ui/")
    assert page.status_code == 200
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found is not None
    return found.group(1)


def test_forged_posts_change_nothing_on_the_daemon_dashboard(
    daemon_site: tuple[DaemonSite, dict[str, str], Path],
) -> None:
    from memwarden.ui import actions, bulk_actions

    site, ids, db = daemon_site
    with httpx.Client(base_url=site.url, follow_redirects=False, timeout=30) as client:
        csrf = _login(client, site)
        before = _rows(db)
        paths = [
            path.replace("{memory_id}", ids["pref"]) for path, _ in (*actions.ROUTES, *bulk_actions.ACTIONS)
        ]
        paths += ["/ui/logout", "/ui/tenant"]
        form = {
            "confirm": "yes",
            "id": ids["dup_b"],
            "keep": ids["dup_a"],
            "drop": ids["dup_b"],
            "content": "forged",
            "if_version": "1",
            "tenant": "default",
            "action": "delete",
        }
        port = int(site.url.rsplit(":", 1)[1])
        for path in paths:
            assert client.post(path, data=form).status_code == 403, path
            assert client.post(path, data={**form, "csrf": "forged"}).status_code == 403, path
            foreign = client.post(
                path, data={**form, "csrf": csrf}, headers={"origin": "http://evil.example"}
            )
            assert foreign.status_code == 403, path
            other_port = client.post(
                path, data={**form, "csrf": csrf}, headers={"origin": f"http://127.0.0.1:{port + 1}"}
            )
            assert other_port.status_code == 403, path
        assert _rows(db) == before
        assert client.get("/ui/").status_code == 200  # still logged in: the logout was refused too
        # DNS rebinding: a foreign Host never reaches the dashboard, logged in or not.
        rebound = client.get("/ui/", headers={"host": "evil.example:8765"})
        assert rebound.status_code in (400, 403, 421) and "Memories per project" not in rebound.text
        assert client.get("/ui/login", headers={"host": "evil.example"}).status_code in (400, 403, 421)
        # The real thing, with the token and this origin, works: the defences refuse only forgeries.
        pinned = client.post(
            "/ui/review/pin", data={"csrf": csrf, "id": ids["pref"]}, headers={"origin": site.url}
        )
        assert pinned.status_code == 303, pinned.text[:300]
        assert _rows(db) != before


def test_the_daemon_dashboard_needs_a_login_and_a_used_link_does_not_work_twice(
    daemon_site: tuple[DaemonSite, dict[str, str], Path],
) -> None:
    site, _, _ = daemon_site
    with httpx.Client(base_url=site.url, follow_redirects=False, timeout=30) as client:
        for path in ("/ui/", "/ui/memories", "/ui/audit"):
            assert client.get(path).status_code == 303, path  # to the login page
        link = site.link().removeprefix(site.url)
        assert client.get(link).status_code == 303
        cookie = client.cookies
        assert cookie, "no session cookie"
    with httpx.Client(base_url=site.url, follow_redirects=False, timeout=30) as stranger:
        again = stranger.get(link)
        assert again.status_code != 303 or again.headers.get("location") != "/ui/", (
            "a used link logged in again"
        )
        assert stranger.get("/ui/").status_code == 303
