"""The dashboard on the PostgreSQL backend (a real throwaway server): every page renders, the tag
filter reads ``memory_tags`` and pages by keyset, a memory page lists its thread and versions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from ui_helpers import HOST, TOKEN, fill, ticket

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.http.app import build_http_app

pytestmark = pytest.mark.postgres


def test_every_page_works_on_postgresql(pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memwarden.ui import dashboard

    settings = load_settings(
        db=pg_url,
        log_file=str(tmp_path / "memwarden.log"),
        backup_dir=str(tmp_path / "backups"),
        embedder="none",
        http_token=TOKEN,
    )
    service = build_service(settings, ops=True)
    try:
        ids = fill(service, backup=False)
        for i in range(5):
            service.memories.add(
                f"Tagged note number {i} about the billing cutover", project="crm", tags=["billing"]
            )
        app = build_http_app(service, settings)
        client = TestClient(app, base_url=HOST, follow_redirects=False)
        assert client.get(f"/ui/login?ticket={ticket(app)}").status_code == 303
        for path in (
            "/ui/",
            "/ui/memories",
            "/ui/memories?q=standup",
            "/ui/review",
            "/ui/audit",
            "/ui/health",
        ):
            assert client.get(path).status_code == 200, path
        monkeypatch.setattr(dashboard, "PAGE_SIZE", 2)
        seen: list[str] = []
        path: str | None = "/ui/memories?tag=billing&kind=fact"
        while path is not None:
            page = client.get(path.replace("&amp;", "&"))
            assert page.status_code == 200 and "5 memories match" in page.text, page.text[-500:]
            seen += re.findall(
                r">Tagged note number (\d)", page.text
            )  # the link (the box repeats it in its label)
            found = re.search(r'<a rel="next" href="([^"]+)"', page.text)
            path = found.group(1) if found else None
        assert seen == ["4", "3", "2", "1", "0"]
        memory = client.get(f"/ui/memories/{ids['chat1']}").text
        thread = memory[memory.index('id="thread-h"') : memory.index('id="versions-h"')]
        assert re.findall(r"(Ana proposed|Changelog owner|Cy objected)", thread) == [
            "Ana proposed",
            "Changelog owner",
            "Cy objected",
        ]
        assert re.findall(r"<td>(add|update)</td><td>ok</td><td class=\"num\">(\d)</td>", memory) == [
            ("update", "2"),
            ("add", "1"),
        ]
    finally:
        service.close()
