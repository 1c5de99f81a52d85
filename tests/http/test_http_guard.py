"""The HTTP security layer (http/guard.py) in front of every route, present and future.

The first tests enumerate the routes of the app ``build_http_app`` builds and send each one
every kind of request the layer must refuse; a route added later is covered without editing
them. Requests go through httpx's ASGI transport to the real app over a real SQLite service.
"""

from __future__ import annotations

import json
import socket
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from typing import Any

import anyio
import httpx
import pytest
from http_servers import start_http_server, stop_http_server
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route

from memwarden.app import build_service
from memwarden.config import Settings, load_settings
from memwarden.errors import ConfigError
from memwarden.http.app import build_http_app
from memwarden.http.guard import GuardPolicy, HttpGuard

TOKEN = "guard-test-token-0123456789"
FORM = "application/x-www-form-urlencoded"
BASE = "http://127.0.0.1:8765"
REFUSALS = {
    "host_not_allowed",
    "origin_not_allowed",
    "body_too_large",
    "unsupported_media_type",
    "unauthorized",
    "invalid_input",
}
reached: list[str] = []


async def _future_route(request: Request) -> JSONResponse:
    reached.append(request.url.path)
    return JSONResponse({"reached": True})


def _settings(base: Settings, **extra: Any) -> Settings:
    return load_settings(**{**base.model_dump(), **extra})


@pytest.fixture
def guarded(settings: Settings) -> Iterator[tuple[HttpGuard, str]]:
    """The real app with a token, plus a stand-in for a route added later (say a /ui page)."""
    tokened = _settings(settings, http_token=TOKEN, http_max_body_bytes=64 * 1024)
    service = build_service(tokened, embeddings=False)
    app = build_http_app(service, tokened, "127.0.0.1")
    api = next(a for a in _starlette_apps(app) if any(getattr(r, "path", "") == "/mcp" for r in a.routes))
    api.router.routes.append(Route("/future", _future_route, methods=["GET", "POST"]))
    service.memories.add("one stored memory")
    reached.clear()
    yield app, tokened.db
    service.close()


def _starlette_apps(app: Any) -> list[Any]:
    """Every Starlette application inside the layers (the API and the dashboard)."""
    from starlette.applications import Starlette

    found, todo = [], [app]
    while todo:
        layer = todo.pop()
        if isinstance(layer, Starlette):
            found.append(layer)
            continue
        todo += [
            getattr(layer, name)
            for name in ("app", "api", "dashboard")
            if getattr(layer, name, None) is not None
        ]
    return found


def _requests(app: HttpGuard) -> list[tuple[str, str]]:
    """(method, path) for every route of every application in the server, with its methods."""
    found = []
    for route in [r for a in _starlette_apps(app) for r in a.routes]:
        if isinstance(route, Mount):
            paths, methods = [route.path + "/"], {"GET", "POST", "DELETE"}
        else:
            assert isinstance(route, Route)
            path = route.path.replace("{", "").replace("}", "")  # /ui/memory/{id} -> /ui/memory/id
            paths, methods = [path], set(route.methods or {"GET", "POST", "DELETE"}) - {"HEAD"}
        if route.path == "/healthz":
            paths.append("/healthz?deep=1")
        found += [(method, path) for path in paths for method in sorted(methods)]
    return found


def _send(
    app: HttpGuard,
    method: str,
    path: str,
    *,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
    client: tuple[str, int] = ("127.0.0.1", 50000),
) -> httpx.Response:
    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=client)
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as http:
            return await http.request(method, path, headers=headers, content=body)

    return anyio.run(go)


def _rows(db: str) -> tuple[list[Any], int]:
    """Every stored memory row and the audit log's length, read by a separate connection."""
    with closing(sqlite3.connect(db)) as conn:
        return (
            conn.execute("SELECT * FROM memories ORDER BY id").fetchall(),
            conn.execute("SELECT count(*) FROM audit_log").fetchone()[0],
        )


def _assert_refused(response: httpx.Response, status: int, what: str) -> None:
    assert response.status_code == status, f"{what}: {response.status_code} {response.text[:200]}"
    assert response.json()["error"] in REFUSALS, what
    assert "access-control-allow-origin" not in response.headers


def test_every_route_refuses_foreign_hosts_origins_bad_bodies_and_missing_tokens(
    guarded: tuple[HttpGuard, str],
) -> None:
    app, db = guarded
    routes = _requests(app)
    assert {path for _, path in routes} >= {"/mcp", "/healthz", "/hooks/recall", "/future", "/ui/login"}
    auth = {"authorization": f"Bearer {TOKEN}"}
    good_json = {**auth, "content-type": "application/json"}
    body = json.dumps({"query": "x"}).encode()
    before = _rows(db)
    for n, (method, path) in enumerate(routes):
        what = f"{method} {path}"
        ui = path.startswith("/ui")
        _assert_refused(
            _send(app, method, path, headers={**good_json, "host": "evil.example"}, body=body),
            421,
            what + " foreign Host",
        )
        _assert_refused(
            _send(app, method, path, headers={**good_json, "host": "127.0.0.1.evil.example:8765"}, body=body),
            421,
            what + " Host ending in a foreign domain",
        )
        _assert_refused(
            _send(app, method, path, headers={**good_json, "origin": "http://evil.example"}, body=body),
            403,
            what + " foreign Origin",
        )
        _assert_refused(
            _send(app, method, path, headers={**good_json, "origin": "http://127.0.0.1:9999"}, body=body),
            403,
            what + " another local port's page",
        )
        _assert_refused(
            _send(app, method, path, headers={**good_json, "origin": "null"}, body=body),
            403,
            what + " null Origin",
        )
        _assert_refused(
            _send(app, method, path, headers=good_json, body=b'{"q": "' + b"x" * 70_000 + b'"}'),
            415 if ui else 413,
            what + " oversized body",
        )
        _assert_refused(
            _send(app, method, path, headers={**good_json, "content-type": FORM}, body=b"q=" + b"x" * 70_000),
            413 if ui else 415,
            what + " oversized form",
        )
        for media in (
            "text/plain",
            "multipart/form-data; boundary=x",
            "application/json; charset=latin-1",
            "application/json" if ui else FORM,
        ):
            _assert_refused(
                _send(app, method, path, headers={**auth, "content-type": media}, body=body),
                415,
                f"{what} {media}",
            )
        _assert_refused(
            _send(app, method, path, headers=good_json, body=b"[" * 65 + b"]" * 65),
            415 if ui else 400,
            what + " deep JSON",
        )
        _assert_refused(
            _send(app, method, path, headers=good_json, body=b'{"query": "\\ud800"}'),
            415 if ui else 400,
            what + " lone surrogate",
        )
        _assert_refused(
            _send(
                app,
                method,
                path,
                headers={**good_json, "content-type": FORM} if ui else good_json,
                body=b"query=\xff",
            ),
            400,
            what + " not UTF-8",
        )
        if ui:  # the dashboard logs people in itself: without a session, no page and no action
            anonymous = _send(app, method, path, headers={"content-type": FORM}, body=b"q=x")
            public = method == "GET" and path.startswith(("/ui/login", "/ui/static"))  # the login page itself
            assert anonymous.status_code in (303, 401, 403, 405) or public, (
                f"{what} without a session: {anonymous.status_code}"
            )
            assert "memory" not in anonymous.headers.get("location", "/ui/login").replace("/ui/login", "")
        elif path != "/healthz":  # the liveness answer is open by design; its deep form is not
            _assert_refused(
                _send(app, method, path, headers={"content-type": "application/json"}, body=body),
                401,
                what + " missing token",
            )
            _assert_refused(
                _send(
                    app,
                    method,
                    path,
                    headers={"authorization": "Bearer wrong", "content-type": "application/json"},
                    body=body,
                    # Each from its own address: ten wrong tokens from one would lock it out
                    # (tests/http/test_token_guessing.py).
                    client=(f"127.0.1.{n % 250 + 1}", 50000),
                ),
                401,
                what + " wrong token",
            )
    assert reached == []
    assert _rows(db) == before, "a refused request changed stored rows"


def test_allowed_requests_pass_the_layer(guarded: tuple[HttpGuard, str]) -> None:
    app, _ = guarded
    auth = {"authorization": f"Bearer {TOKEN}"}
    assert _send(app, "GET", "/future", headers=auth).status_code == 200
    for host in ("localhost:8765", "127.0.0.1:8765", "[::1]:8765", "LOCALHOST.", "127.0.0.1"):
        assert _send(app, "GET", "/future", headers={**auth, "host": host}).status_code == 200, host
    # A page served by this server itself (same origin, e.g. the dashboard) may call it.
    same = _send(
        app,
        "POST",
        "/future",
        headers={**auth, "origin": BASE, "content-type": "application/json"},
        body=b'{"a": [1, {"b": "\\ud83d\\ude00"}]}',
    )
    assert same.status_code == 200 and "access-control-allow-origin" not in same.headers
    assert reached == ["/future", *["/future"] * 5, "/future"]


def test_configured_origins_get_cors_and_no_one_else_does(settings: Settings) -> None:
    configured = _settings(settings, http_token=TOKEN, http_allowed_origins="https://tools.example.com")
    service = build_service(configured, embeddings=False)
    try:
        app = build_http_app(service, configured, "127.0.0.1")
        preflight = {
            "origin": "https://tools.example.com",
            "access-control-request-method": "POST",
            "access-control-request-headers": "authorization, content-type",
        }
        answer = _send(app, "OPTIONS", "/hooks/recall", headers=preflight)
        assert answer.status_code == 200
        assert answer.headers["access-control-allow-origin"] == "https://tools.example.com"
        call = _send(
            app,
            "POST",
            "/hooks/recall",
            body=b'{"query": "x"}',
            headers={
                "origin": "https://tools.example.com",
                "authorization": f"Bearer {TOKEN}",
                "content-type": "application/json",
            },
        )
        assert (
            call.status_code == 200
            and call.headers["access-control-allow-origin"] == "https://tools.example.com"
        )
        other = _send(
            app, "OPTIONS", "/hooks/recall", headers={**preflight, "origin": "https://evil.example"}
        )
        assert other.status_code == 403 and "access-control-allow-origin" not in other.headers
    finally:
        service.close()


def test_bound_to_every_interface_the_machine_names_and_configured_hosts_are_allowed(
    settings: Settings,
) -> None:
    policy = GuardPolicy.from_settings(
        _settings(settings, http_allowed_hosts="memwarden, mem.example.com:443"), "0.0.0.0", tokens=True
    )
    scope = {"server": ("192.0.2.77", 8765)}
    assert policy.host_allowed(socket.gethostname() + ":8765", scope)
    assert policy.host_allowed("memwarden:8765", scope) and policy.host_allowed("MEM.example.com", scope)
    assert policy.host_allowed("192.0.2.77:8765", scope)  # the address the connection arrived on
    assert not policy.host_allowed("192.0.2.78:8765", scope)
    assert not policy.host_allowed("attacker.example:8765", scope)
    loopback = GuardPolicy.from_settings(settings, "127.0.0.1")
    assert not loopback.host_allowed("192.0.2.77:8765", scope) and not loopback.host_allowed(
        "memwarden", scope
    )


def test_any_host_needs_a_token_and_origins_must_be_origins(settings: Settings) -> None:
    with pytest.raises(ConfigError, match="MEMWARDEN_HTTP_ALLOWED_HOSTS"):
        GuardPolicy.from_settings(_settings(settings, http_allowed_hosts="*"), "0.0.0.0", tokens=False)
    assert GuardPolicy.from_settings(
        _settings(settings, http_allowed_hosts="*"), "0.0.0.0", tokens=True
    ).host_allowed("anything.example", {})
    for bad in ("tools.example.com", "ftp://x.example", "https://x.example/path"):
        with pytest.raises(ConfigError, match="MEMWARDEN_HTTP_ALLOWED_ORIGINS"):
            GuardPolicy.from_settings(_settings(settings, http_allowed_origins=bad), "127.0.0.1")


def test_deep_health_is_loopback_only_without_tokens_and_hides_paths_from_others(settings: Settings) -> None:
    open_settings = _settings(settings, http_health_interval_s=3600)
    service = build_service(open_settings, embeddings=False, ops=True)
    try:
        app = build_http_app(service, open_settings, "127.0.0.1")
        assert _send(app, "GET", "/healthz", client=("192.0.2.9", 4000)).json()["status"] == "ok"
        remote = _send(app, "GET", "/healthz?deep=1", client=("192.0.2.9", 4000))
        assert remote.status_code == 403 and "this machine" in remote.json()["message"]
        local = _send(app, "GET", "/healthz?deep=1")
        assert local.status_code == 200 and local.json()["cached"] is False
        assert str(open_settings.backup_path()) in local.text  # the local operator sees real paths
        again = _send(app, "GET", "/healthz?deep=1", headers={"origin": BASE})
        assert again.json()["cached"] is True  # no second write probe within the interval
        assert str(open_settings.backup_path()) not in again.text and "…/backups" in again.text
    finally:
        service.close()


def test_deep_health_with_tokens_needs_one_and_remote_callers_get_no_paths(settings: Settings) -> None:
    tokened = _settings(settings, http_token=TOKEN, http_health_interval_s=0)
    service = build_service(tokened, embeddings=False, ops=True)
    try:
        app = build_http_app(service, tokened, "0.0.0.0")
        assert _send(app, "GET", "/healthz?deep=1").status_code == 401
        remote = _send(
            app,
            "GET",
            "/healthz?deep=1",
            headers={"authorization": f"Bearer {TOKEN}"},
            client=("192.0.2.9", 4000),
        )
        assert remote.status_code == 200 and remote.json()["cached"] is False
        assert str(tokened.backup_path()) not in remote.text
        assert (
            _send(app, "GET", "/healthz?deep=1", headers={"authorization": f"Bearer {TOKEN}"}).json()[
                "cached"
            ]
            is False
        )  # interval 0: every call probes
    finally:
        service.close()


def _outward_address() -> str | None:
    """This machine's non-loopback IPv4 address (a UDP connect sends nothing), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        try:
            sock.connect(("192.0.2.1", 9))
        except OSError:
            return None
        address = str(sock.getsockname()[0])
    return None if address.startswith("127.") else address


def test_a_server_on_every_interface_with_a_token_answers_its_real_address(cli_env: dict[str, str]) -> None:
    """Issue 14: on 0.0.0.0 the SDK's loopback-only Host check answered 421 to the machine's own IP."""
    address = _outward_address()
    if address is None:
        pytest.skip("this machine has no non-loopback IPv4 address to call itself on")
    env = {**cli_env, "MEMWARDEN_HTTP_TOKEN": TOKEN}
    process, port = start_http_server(env, host="0.0.0.0")
    try:
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        headers = {"accept": "application/json, text/event-stream", "authorization": f"Bearer {TOKEN}"}
        answer = httpx.post(f"http://{address}:{port}/mcp", json=init, headers=headers, timeout=10)
        assert answer.status_code == 200, answer.text
        foreign = httpx.post(
            f"http://{address}:{port}/mcp", json=init, headers={**headers, "host": "evil.example"}, timeout=10
        )
        assert foreign.status_code == 421 and "MEMWARDEN_HTTP_ALLOWED_HOSTS" in foreign.json()["message"]
    finally:
        stop_http_server(process)
