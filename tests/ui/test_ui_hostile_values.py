"""Every dashboard page in a real Chromium with hostile values in every stored field.

Over 250 hostile values (``hostile_values.py``: script tags, event handlers, ``</script>``,
htmx attributes, ``javascript:`` URLs, SVG and MathML, template syntax, CSS, entities,
BIDI controls, NUL and other controls, very long strings, escaped forms) are written straight
into the SQLite file, as an older memwarden or a foreign writer could have left them: each
memory's content, title, tags, project, kind, context, thread, redaction rule names and
injection flags, and the audit rows' actor, tenant, project, action, outcome and detail (and
a backup's recorded reason and problems). Then every page is opened in Chromium, logged in as
the operator, and each must show no sign of any of it running:

- no script of the values runs (``__pwned`` is a function exposed to the page; dialogs and
  Content-Security-Policy violations are recorded too: a violation means markup got through);
- no request fires but the page's own GET and its static files (no htmx request on load);
- no element or attribute the templates do not write (no ``on*``, no ``hx-*`` outside the
  memories filter form, links and forms only to ``/ui/``);
- the values are in the DOM as text: each value ends with a marker, and the text before each
  marker found in the page is the whole value.

Nothing is deleted or changed, and the session is still open at the end.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from daemon_site import DaemonSite
from hostile_values import hostile_values, intact_and_broken
from ui_helpers import TOKEN, WAIT_MS, Server, fill

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.http.app import build_http_app
from memwarden.intake import new_id
from memwarden.models import format_time, utcnow
from memwarden.ops.backup import SIDECAR

pytestmark = pytest.mark.browser
CARRIERS = 6  # memories whose content, context and thread hold a sixth of the corpus each
PROBE_PAGES = (1, 100, 271)  # probes whose own page is opened (every field of one value, provenance too)
SEARCHABLE = 60  # probes written through the service (in the keyword index); the rest are copies
PROBE = "hostile probe {n} about the quarterly release checklist and the deployment window"
FOREIGN_IDS = [
    "../../ui/logout",
    'x" onmouseover="__pwned(9001)',
    "?done=deleted&id=",
    "#<svg onload=__pwned(9002)>",
    "javascript:__pwned(9003)",
]

# What the templates write: any other element or attribute came from a value.
TAGS = set(
    [
        "html",
        "head",
        "meta",
        "title",
        "link",
        "script",
        "body",
        "a",
        "header",
        "p",
        "span",
        "nav",
        "ul",
        "li",
        "div",
        "form",
        "input",
        "label",
        "select",
        "option",
        "button",
        "strong",
        "main",
        "h1",
        "h2",
        "h3",
        "section",
        "table",
        "thead",
        "tbody",
        "tr",
        "th",
        "td",
        "caption",
        "meter",
        "ol",
        "pre",
        "code",
        "details",
        "summary",
        "canvas",
        "dl",
        "dt",
        "dd",
        "textarea",
        "datalist",
        "article",
        "time",
        "fieldset",
        "legend",
    ]
)
ATTRIBUTES = set(
    [
        "lang",
        "charset",
        "name",
        "content",
        "rel",
        "href",
        "src",
        "defer",
        "class",
        "id",
        "role",
        "aria-label",
        "aria-labelledby",
        "aria-current",
        "tabindex",
        "method",
        "action",
        "type",
        "value",
        "for",
        "selected",
        "placeholder",
        "list",
        "rows",
        "colspan",
        "scope",
        "min",
        "max",
        "autocomplete",
        "required",
        "width",
        "height",
        "style",
        "title",
        "datetime",
        "hidden",
        "size",
        "data-theme",
        "checked",
        "inputmode",
        "aria-live",
    ]
)
HTMX_FILTERS = {"hx-get", "hx-target", "hx-select", "hx-swap", "hx-push-url"}
STRUCTURE = (
    """() => {
  const found = [];
  for (const e of document.querySelectorAll('*')) {
    const tag = e.tagName.toLowerCase();
    if (!TAGS.has(tag)) found.push('element ' + tag);
    for (const a of e.attributes) {
      const name = a.name.toLowerCase();
      const filters = tag === 'form' && e.classList.contains('filters') && HTMX.has(name)
        && location.pathname === '/ui/memories';
      const layer = name === 'data-id' && tag === 'canvas' && e.closest('#map-canvas') !== null;
      if (!ATTRS.has(name) && !filters && !layer) found.push(tag + ' attribute ' + name);
    }
    // Chart.js sizes its canvas, Cytoscape its layers inside the map box: styles set by script.
    const drawn = tag === 'canvas' || e.closest('#map-canvas') !== null;
    if (tag === 'style' || (e.hasAttribute('style') && !drawn)) found.push('style on ' + tag);
    if (tag === 'a' && !/^\\/ui\\/|^#/.test(e.getAttribute('href') || '')) found.push('link ' + e.getAttribute('href'));
    if (tag === 'form' && !/^\\/ui\\//.test(e.getAttribute('action') || '')) found.push('form ' + e.getAttribute('action'));
    if (tag === 'link' && !['/ui/static/app.css', 'data:,'].includes(e.getAttribute('href'))) found.push('link element ' + e.getAttribute('href'));
    if (tag === 'meta' && e.hasAttribute('http-equiv')) found.push('meta http-equiv');
    if (tag === 'script' && !(['chart-data', 'map-data'].includes(e.id) || /^\\/ui\\/static\\/[a-z.]+\\.js$/.test(e.getAttribute('src') || ''))) found.push('script ' + e.outerHTML.slice(0, 80));
  }
  const texts = [];
  const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.parentElement && n.parentElement.tagName !== 'SCRIPT') texts.push(n.data);
  }
  return {found, texts, violations: window.__violations || []};
}""".replace("TAGS", "new Set(" + json.dumps(sorted(TAGS)) + ")", 1)
    .replace("ATTRS", "new Set(" + json.dumps(sorted(ATTRIBUTES)) + ")", 1)
    .replace("HTMX", "new Set(" + json.dumps(sorted(HTMX_FILTERS)) + ")", 1)
)
STATUS_LOGGED = "Failed to load resource: the server responded with a status of 4"
WATCH_CSP = """window.__violations = [];
document.addEventListener('securitypolicyviolation', e => window.__violations.push(
  e.violatedDirective + ' ' + (e.blockedURI || '') + ' ' + (e.sample || '')));"""


@dataclass
class Site:
    server: Server | DaemonSite
    db: Path
    values: list[str]
    carriers: list[str]
    probes: list[str]
    snapshot: list[tuple[Any, ...]] = field(default_factory=list)


def _memory_rows(db: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT id, version, deleted_at, content_hash FROM memories ORDER BY id"
        ).fetchall()


def _copy_rows(conn: sqlite3.Connection, source: str, ids: list[str]) -> None:
    """New rows under ``ids``, copies of the memory ``source`` (the browse triggers keep the
    counts and tags; the keyword index does not know them, as for rows a foreign writer adds)."""
    columns = [row[1] for row in conn.execute("PRAGMA table_info(memories)") if row[1] != "rowid"]
    chosen = ", ".join("?" if c in ("id", "content_hash") else c for c in columns)
    for memory_id in ids:
        params = [
            memory_id if c == "id" else secrets.token_hex(32) for c in columns if c in ("id", "content_hash")
        ]
        conn.execute(
            f"INSERT INTO memories ({', '.join(columns)}) SELECT {chosen} FROM memories WHERE id = ?",
            [*params, source],
        )


def _write_hostile_memories(db: Path, probes: list[str], carriers: list[str], values: list[str]) -> None:
    """What a foreign writer can leave in the memories table (no validation on its way in):
    value i in every field of probe i, and rows under ids memwarden never writes."""
    count = len(values)
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        _copy_rows(conn, probes[0], probes[SEARCHABLE:])
        _copy_rows(conn, probes[0], FOREIGN_IDS)
        for i, memory_id in enumerate(probes + FOREIGN_IDS):
            v = values[i % count]
            conn.execute(
                "UPDATE memories SET content = ?, title = ?, project = ?, kind = ?, tags = ?, context = ?,"
                " thread = ?, redactions = ?, injection_flags = ?, hit_count = ? WHERE id = ?",
                (
                    v,
                    v if i % 2 == 0 else "",  # odd ones show their content in the lists
                    v,
                    v,
                    json.dumps([v, values[(i + 1) % count]]),
                    v,
                    v,
                    json.dumps([v]),
                    json.dumps([v] if i % 3 == 0 else []),
                    i % 4,
                    memory_id,
                ),
            )
        # The provenance columns too (an older schema has none: nothing to write there).
        if {"actor", "source"} <= {row[1] for row in conn.execute("PRAGMA table_info(memories)")}:
            for i, memory_id in enumerate(probes):
                conn.execute(
                    "UPDATE memories SET actor = ?, source = ? WHERE id = ?",
                    (values[i], values[-1 - i], memory_id),
                )
        for c, memory_id in enumerate(carriers):
            share = values[c::CARRIERS]
            conn.execute(
                "UPDATE memories SET content = ?, title = ?, context = ?, thread = ?, project = ?,"
                " hit_count = ? WHERE id = ?",
                (
                    "\n".join(share),
                    " ".join(share[:3]),
                    "\n".join(share),
                    "\n".join(share),
                    values[c],
                    100 + c,
                    memory_id,
                ),
            )
        conn.execute("COMMIT")
    finally:
        conn.close()


def _write_hostile_audit_rows(db: Path, tenant: str, carriers: list[str], values: list[str]) -> None:
    """Audit rows continuing the chain head (the triggers allow it; their hashes are not the
    chain's, which only verify notices), copied from the newest real row."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.row_factory = sqlite3.Row
    try:
        conn.execute("BEGIN IMMEDIATE")
        seq, head = conn.execute("SELECT seq, hash FROM audit_head WHERE id = 1").fetchone()
        base = dict(conn.execute("SELECT * FROM audit_log WHERE seq = ?", (seq,)).fetchone())
        at = format_time(utcnow())
        rows = []
        for i, v in enumerate(values):
            search = i % 2 == 0
            rows.append(
                {
                    "actor": v,
                    "tenant": tenant if i % 4 else v,
                    "project": v,
                    "action": "search" if search else v,
                    "outcome": v,
                    "memory_ids": "[]",
                    "degraded": 1 if search else 0,
                    "detail": json.dumps({"degrade_reason": v, "note": v}) if search else v,
                }
            )
            rows.append(  # a write of a carrier: its page lists who wrote it
                {
                    "actor": v,
                    "tenant": tenant,
                    "project": v,
                    "action": "update",
                    "outcome": v,
                    "memory_ids": json.dumps([carriers[i % CARRIERS]]),
                    "degraded": 0,
                    "detail": json.dumps({"via": v, "version": 2}),
                }
            )
        for row in rows:
            seq += 1
            record = {**base, **row, "seq": seq, "at": at, "prev_hash": head, "hash": secrets.token_hex(32)}
            names = list(record)
            conn.execute(
                f"INSERT INTO audit_log ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})",
                [record[n] for n in names],
            )
            head = record["hash"]
        conn.execute("COMMIT")
    finally:
        conn.close()


def _write_hostile_backup_record(backups: Path, values: list[str]) -> None:
    sidecar = next(backups.glob(f"*{SIDECAR}"))
    record = json.loads(sidecar.read_text(encoding="utf-8"))
    record.update(reason=values[0], problems=values[1:40], verified=False)
    sidecar.write_text(json.dumps(record), encoding="utf-8")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The hostile database served by the HTTP app in this process
    (tests/ui/test_ui_daemon_hostile_values.py runs the same test on the user's daemon)."""
    yield from hostile_site(tmp_path_factory, daemon=False)


def hostile_site(tmp_path_factory: pytest.TempPathFactory, *, daemon: bool) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("hostile")
    settings = load_settings(
        db=str(folder / "ui.db"),
        log_file=str(folder / "memwarden.log"),
        backup_dir=str(folder / "backups"),
        embedder="none",
        http_token=TOKEN,
    )
    service = build_service(settings, ops=True)
    victim = fill(service)["pref"]  # the memory the attack deleted
    values = hostile_values(victim=victim)
    probes = [service.memories.add(PROBE.format(n=n), project="probe").memory.id for n in range(SEARCHABLE)]
    probes += [new_id() for _ in range(len(values) - SEARCHABLE)]
    carriers = [
        service.memories.add(PROBE.format(n=f"carrier {c}"), project="probe").memory.id
        for c in range(CARRIERS)
    ]
    db = folder / "ui.db"
    _write_hostile_memories(db, probes, carriers, values)
    _write_hostile_audit_rows(db, settings.tenant, carriers, values)
    _write_hostile_backup_record(folder / "backups", values)
    server: Server | DaemonSite
    if daemon:
        service.close()  # the daemon opens the database itself
        server = DaemonSite(db, folder, MEMWARDEN_HTTP_TOKEN=TOKEN)
    else:
        server = Server(build_http_app(service, settings))
    try:
        yield Site(server, db, values, carriers, probes, _memory_rows(db))
    finally:
        server.stop()
        service.close()


@pytest.fixture
def watched(browser: Any, site: Site) -> Iterator[Any]:
    """A logged-in page that records what would show a value running: calls of ``__pwned``,
    dialogs, console errors, CSP violations, and every request."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(WAIT_MS)
    ran: list[str] = []
    context.expose_binding(
        "__pwned", lambda source, n=None: ran.append(f"__pwned({n}) on {source['page'].url}")
    )
    context.add_init_script(WATCH_CSP)
    page = context.new_page()
    page.on(
        "dialog", lambda dialog: (ran.append(f"dialog {dialog.message!r} on {page.url}"), dialog.dismiss())
    )
    # An error page's own status (400, 404) is logged as a failed load; requests are checked apart.
    page.on(
        "console",
        lambda msg: (
            ran.append(f"console {msg.type}: {msg.text}")
            if msg.type == "error" and not msg.text.startswith(STATUS_LOGGED)
            else None
        ),
    )
    page.on("pageerror", lambda exc: ran.append(f"page error: {exc}"))
    requests: list[tuple[str, str, bool]] = []
    page.on(
        "request",
        lambda request: requests.append((request.method, request.url, request.is_navigation_request())),
    )
    page.goto(site.server.link())
    assert page.url.endswith("/ui/")
    page.goto(site.server.url + "/ui/health")
    page.get_by_role("button", name="Run the deep check now").click()
    page.wait_for_selector("text=Status:")
    ran.clear()
    requests.clear()
    page.ran = ran
    page.requests = requests
    yield page
    context.close()


def _pages(site: Site) -> list[tuple[str, str, bool]]:
    """(name, path, whether its values are shown as stored): error messages quote a value
    with repr(), so only the other checks apply to them."""
    v = site.values
    pages = [
        ("overview", "/ui/", True),
        ("search", "/ui/memories?q=quarterly+release+checklist", True),
        ("review", "/ui/review", True),
        ("audit", "/ui/audit", True),
        ("health", "/ui/health", True),
        ("backups", "/ui/backups", True),
        ("login page", "/ui/login", True),
        ("add form", "/ui/memories/new", True),
        ("map", "/ui/map?cap=500", True),
    ]
    pages += [(f"memory {c}", f"/ui/memories/{memory_id}", True) for c, memory_id in enumerate(site.carriers)]
    pages += [(f"memory probe {i}", f"/ui/memories/{site.probes[i]}", True) for i in PROBE_PAGES]
    pages += [
        (f"delete {c}", f"/ui/memories/{memory_id}/delete", True) for c, memory_id in enumerate(site.carriers)
    ]
    pages += [
        ("error: kind", "/ui/memories?kind=" + quote(v[4]), False),
        ("error: review project", "/ui/review?project=" + quote(v[9]), False),
        ("error: audit action", "/ui/audit?action=" + quote(v[203]), False),
        ("error: backup plan", "/ui/backups?plan=" + quote(v[40]), False),
        ("error: memory id", "/ui/memories/" + quote(v[215], safe="") + "/delete", False),
        ("search for a hostile value", "/ui/memories?q=" + quote(v[1]), False),
    ]
    return pages


def _check(page: Any, site: Site, name: str, url: str) -> tuple[set[int], list[str], list[str]]:
    """What the page shows of the values (intact; broken) and what it should not hold."""
    page.requests.clear()
    page.goto(url, wait_until="load")
    own = urlsplit(url).path
    if own == "/ui/memories":
        page.wait_for_load_state("networkidle")  # htmx is on this page: let any request it would make start
    seen = page.evaluate(STRUCTURE)
    problems = [f"{name}: {what}" for what in seen["found"] + seen["violations"]]
    # One navigation (ours), then only GETs of this server's static files.
    navigations = [address for _, address, navigation in page.requests if navigation]
    if len(navigations) != 1 or urlsplit(navigations[0]).path != own:
        problems.append(f"{name}: navigations {[n[:200] for n in navigations]}")
    for method, requested, navigation in page.requests:
        parts = urlsplit(requested)
        static = f"{parts.scheme}://{parts.netloc}" == site.server.url and parts.path.startswith(
            "/ui/static/"
        )
        if not navigation and not (method == "GET" and static):
            problems.append(f"{name}: a {method} request to {requested[:200]}")
    intact, broken = intact_and_broken(seen["texts"], site.values)
    return intact, [f"{name}: {b}" for b in broken], problems


def test_no_hostile_stored_value_runs_requests_or_becomes_markup_on_any_page(
    site: Site, watched: Any
) -> None:
    page, base = watched, site.server.url
    shown: dict[str, set[int]] = {}
    broken: list[str] = []
    problems: list[str] = []
    for name, path, as_stored in _pages(site):
        intact, wrong, found = _check(page, site, name, base + path)
        problems += found
        if as_stored:
            shown[name] = intact
            broken += wrong
    # Every page of the memories table and of the audit timeline, by their own links.
    for start, label in (("/ui/memories", "memories"), ("/ui/audit", "audit")):
        url, number = base + start, 1
        while url:
            intact, wrong, found = _check(page, site, f"{label} page {number}", url)
            shown[f"{label} page {number}"] = intact
            broken, problems = broken + wrong, problems + found
            following = page.locator("a[rel=next]")
            url = base + following.get_attribute("href") if following.count() else ""
            number += 1
            assert number < 20, "the pager does not end"
    assert page.ran == [], page.ran[:10]
    assert problems == [], problems[:20]
    assert broken == [], broken[:10]
    everything = set(range(len(site.values)))
    # Where each field is shown whole: the project filter lists every project; the overview's
    # table every project and kind, and every redaction rule; the carriers' pages every
    # content, context and thread; the audit pages every actor, action, outcome and detail.
    assert shown["memories page 1"] == everything
    assert shown["overview"] == everything
    assert set().union(*(shown[f"memory {c}"] for c in range(CARRIERS))) == everything
    assert set().union(*(shown[f"delete {c}"] for c in range(CARRIERS))) == everything
    assert set().union(*(s for n, s in shown.items() if n.startswith("audit page"))) == everything
    assert shown["backups"] >= set(range(40))
    for i in PROBE_PAGES:  # its value in every field, the actor and source columns' values too
        assert shown[f"memory probe {i}"] >= {i, (i + 1) % len(site.values), len(site.values) - 1 - i}
    assert len(shown["search"]) >= 10 and len(shown["review"]) >= 10
    # Nothing was deleted or changed, and the session was not logged out.
    assert _memory_rows(site.db) == site.snapshot
    page.goto(base + "/ui/")
    assert page.url == base + "/ui/" and page.get_by_role("button", name="Log out").is_visible()
