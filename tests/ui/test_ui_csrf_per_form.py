"""Where the dashboard's CSRF token travels (issue 33): in a hidden field of each form that
posts, and nowhere else; no element hands it to every request (``<body hx-headers>`` did, so
markup smuggled into a page posted with it); htmx is loaded only where it is used. And a
one-time link opened from another site (``memwarden ui``'s login file) lands logged in."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

import httpx
from ui_helpers import ticket


class Forms(HTMLParser):
    """The page's forms (method, action, their inputs) and every attribute name seen."""

    def __init__(self) -> None:
        super().__init__()
        self.forms: list[dict[str, Any]] = []
        self.attributes: set[str] = set()
        self.scripts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        self.attributes.update(name for name, _ in attrs)
        if tag == "form":
            self.forms.append({"method": (named.get("method") or "get").lower(), "inputs": {}})
        elif tag == "input" and self.forms and named.get("name"):
            self.forms[-1]["inputs"][named["name"]] = named.get("value")
        elif tag == "script":
            self.scripts.append(named.get("src") or named.get("id") or "")


def test_the_csrf_token_is_in_each_posting_form_and_nowhere_else(client: httpx.Client, served: Any) -> None:
    app, _, ids = served
    assert client.get(f"/ui/login?ticket={ticket(app)}").status_code == 303
    pages = [
        "/ui/",
        "/ui/memories",
        "/ui/memories?q=standup",
        f"/ui/memories/{ids['chat1']}",
        f"/ui/memories/{ids['pref']}/delete",
        "/ui/review",
        "/ui/audit",
        "/ui/health",
        "/ui/backups",
        "/ui/memories/new",
        "/ui/map",
        "/ui/memories/NOT-AN-ID",
    ]
    token = None
    for path in pages:
        page = client.get(path)
        assert page.status_code in (200, 400), path
        parsed = Forms()
        parsed.feed(page.text)
        posting = [f for f in parsed.forms if f["method"] == "post"]
        assert posting, path  # at least logout
        sent = {f["inputs"].get("csrf") for f in posting}
        assert len(sent) == 1 and None not in sent, path
        token = token or sent.pop()
        assert page.text.count(token) == len(posting), path  # one hidden field per form, no more
        assert not {a for a in parsed.attributes if a in ("hx-headers", "hx-vals", "hx-post")}, path
        expected = (
            {"/ui/static/htmx.min.js"}
            if path.startswith("/ui/memories?") or path == "/ui/memories"
            else set()
        )
        assert {s for s in parsed.scripts if "htmx" in s} == expected, path
    assert re.search(r"<body>", client.get("/ui/").text)


def test_a_one_time_link_from_another_site_lands_logged_in(client: httpx.Client, served: Any) -> None:
    # A file:// page's navigation is cross-site: the browser would not send the SameSite=Strict
    # cookie on a redirect, so the answer is a page of this origin that moves on by itself.
    opened = client.get(f"/ui/login?ticket={ticket(served[0])}", headers={"sec-fetch-site": "cross-site"})
    assert opened.status_code == 200 and "memwarden_session=" in opened.headers["set-cookie"]
    assert '<meta http-equiv="refresh" content="0; url=/ui/">' in opened.text
    assert client.get("/ui/").status_code == 200
    typed = client.get(f"/ui/login?ticket={ticket(served[0])}", headers={"sec-fetch-site": "none"})
    assert typed.status_code == 303 and typed.headers["location"] == "/ui/"
