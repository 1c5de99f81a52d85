"""Hypothesis-generated calls for every MCP tool and every HTTP route, shared by the fuzz tests
(a bounded number of examples in ``make test``) and ``bench/fuzz.py`` (as many as asked).

What every run asserts: each call gets an answer within ``ANSWER_TIMEOUT`` (a tool result, an
error result or an HTTP status); a call that is refused (a tool error, an HTTP status of 400 or
more) leaves every stored memory row as it was; the server answers a plain call afterwards.
Arguments come from each tool's own input schema, with the declared types, wrong types,
missing required fields, unknown fields and awkward text (empty, huge, control characters,
JSON-looking, paths, real memory ids).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections import Counter
from collections.abc import Callable
from contextlib import closing
from typing import Any

import anyio
import httpx
from anyio.from_thread import BlockingPortal, start_blocking_portal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.shared.exceptions import MCPError

ANSWER_TIMEOUT = 60.0
TRICKY_TEXT = [
    "",
    " ",
    "\x00",
    "\n\t",
    "[",
    '["a", 1]',
    "{}",
    "null",
    "../../etc/passwd",
    "/etc/passwd",
    "a" * 20_000,
    "é" * 3000,
    "ﬁ İı ß",
    "SELECT * FROM memories; --",
    "*",
    '"',
    "\\",
    "\u202e",
    "0",
]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=40),
)


def _text(ids: list[str]) -> st.SearchStrategy[str]:
    choices: list[st.SearchStrategy[str]] = [st.text(max_size=200), st.sampled_from(TRICKY_TEXT)]
    if ids:
        choices.append(st.sampled_from(ids))
    return st.one_of(*choices)


def value_for(schema: dict[str, Any], ids: list[str], depth: int = 0) -> st.SearchStrategy[Any]:
    """Values of the schema's type, and now and then of any other type."""
    if "anyOf" in schema:
        options = [value_for(s, ids, depth) for s in schema["anyOf"]]
        return st.one_of(*options, SCALARS)
    kind = schema.get("type")
    nested = depth < 2
    typed: st.SearchStrategy[Any]
    if kind == "string":
        typed = _text(ids)
    elif kind == "integer":
        typed = st.one_of(
            st.integers(min_value=-5, max_value=200), st.integers(min_value=-(2**70), max_value=2**70)
        )
    elif kind == "number":
        typed = st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.integers(-10, 10_000))
    elif kind == "boolean":
        typed = st.booleans()
    elif kind == "null":
        typed = st.none()
    elif kind == "array":
        typed = st.lists(
            value_for(schema.get("items", {}), ids, depth + 1) if nested else SCALARS, max_size=6
        )
    elif kind == "object":
        typed = st.dictionaries(st.text(max_size=12), SCALARS, max_size=5)
    else:
        typed = SCALARS
    return st.one_of(typed, typed, typed, SCALARS)


# Values a careful caller would send for some fields, so that plausible calls succeed too.
PLAUSIBLE: dict[str, st.SearchStrategy[Any]] = {
    "kind": st.sampled_from(["fact", "preference", "episode", "note"]),
    "limit": st.integers(1, 100),
    "ttl_hours": st.floats(0.1, 1000),
    "max_tokens": st.integers(50, 4000),
    "project": st.sampled_from([None, "fuzz", "default", "other"]),
    "tags": st.lists(st.sampled_from(["infra", "db", "ops"]), max_size=3),
    "format": st.sampled_from(["json", "memwarden"]),
}


def _plausible(name: str, spec: dict[str, Any], ids: list[str]) -> st.SearchStrategy[Any]:
    if name in PLAUSIBLE:
        return PLAUSIBLE[name]
    if name in ("id", "ids") and ids:
        return (
            st.sampled_from(ids) if name == "id" else st.lists(st.sampled_from(ids), min_size=1, max_size=3)
        )
    kinds = {s.get("type") for s in spec.get("anyOf", [spec])}
    if "string" in kinds:
        return st.text(
            st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), min_size=1, max_size=120
        )
    if "boolean" in kinds:
        return st.booleans()
    if "integer" in kinds or "number" in kinds:
        return st.integers(1, 50)
    return st.none()


def arguments_for(schema: dict[str, Any], ids: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Argument objects for a tool: half plausible (declared types, sensible values), half
    hostile (any fields, wrong types, required ones missing, an unknown one)."""
    properties: dict[str, Any] = schema.get("properties", {})
    hostile = {name: value_for(spec, ids) for name, spec in properties.items()}
    plausible = {name: _plausible(name, spec, ids) for name, spec in properties.items()}

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        careful = draw(st.booleans())
        fields = plausible if careful else hostile
        chosen = draw(st.lists(st.sampled_from(sorted(fields)), unique=True)) if fields else []
        required = [name for name in schema.get("required", []) if careful or draw(st.integers(0, 9)) > 0]
        args = {name: draw(fields[name]) for name in dict.fromkeys([*required, *chosen])}
        if not careful and draw(st.integers(0, 9)) == 0:
            args[draw(st.text(min_size=1, max_size=10))] = draw(SCALARS)
        return args

    return build()


def stored_rows(db: str) -> list[Any]:
    """Every memory row, read by a connection of its own."""
    with closing(sqlite3.connect(db, timeout=30)) as conn:
        return conn.execute("SELECT * FROM memories ORDER BY id").fetchall()


class Tally:
    """Counts per (target, outcome) and call times, printed as a table at the end."""

    def __init__(self) -> None:
        self.counts: Counter[tuple[str, str]] = Counter()
        self.times: dict[str, list[float]] = {}

    def add(self, target: str, outcome: str, seconds: float) -> None:
        self.counts[(target, outcome)] += 1
        self.times.setdefault(target, []).append(seconds)

    def lines(self, title: str) -> list[str]:
        outcomes = sorted({outcome for _, outcome in self.counts})
        head = f"{title:<34}" + "".join(f"{o:>10}" for o in outcomes) + f"{'median ms':>11}"
        rows = [head]
        for target in sorted(self.times):
            times = sorted(self.times[target])
            cells = "".join(f"{self.counts[(target, o)]:>10}" for o in outcomes)
            rows.append(f"{target:<34}{cells}{times[len(times) // 2] * 1000:>11.1f}")
        rows.append(
            f"{'total':<34}"
            + "".join(f"{sum(n for (_, o), n in self.counts.items() if o == out):>10}" for out in outcomes)
        )
        return rows


def fuzz_tools(
    call: Callable[[str, dict[str, Any]], bool],
    tools: list[tuple[str, dict[str, Any]]],
    db: str,
    ids: list[str],
    examples: int,
    tally: Tally,
    label: str,
    *,
    fixed: bool = True,
) -> None:
    """Call every tool with generated arguments; ``call`` returns whether the result is an error.

    ``fixed``: the same examples on every run (tests); otherwise new ones each run (bench)."""
    for name, schema in tools:
        _fuzz_tool(call, name, schema, db, ids, examples, tally, label, fixed)


def _fuzz_tool(
    call: Callable[[str, dict[str, Any]], bool],
    name: str,
    schema: dict[str, Any],
    db: str,
    ids: list[str],
    examples: int,
    tally: Tally,
    label: str,
    fixed: bool,
) -> None:
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=fixed,
        suppress_health_check=list(HealthCheck),
    )
    @given(args=arguments_for(schema, ids))
    def one(args: dict[str, Any]) -> None:
        before = stored_rows(db)
        started = time.perf_counter()
        is_error = call(name, args)
        tally.add(f"{label} {name}", "error" if is_error else "ok", time.perf_counter() - started)
        if is_error:
            assert stored_rows(db) == before, f"{name}({args!r:.300}) was refused but changed stored rows"

    one()


HEADER_CHOICES = {
    "host": ["127.0.0.1:{port}", "localhost:{port}", "evil.example", "127.0.0.1.evil.example"],
    "origin": [None, "http://127.0.0.1:{port}", "http://evil.example", "null"],
    "content-type": [
        None,
        "application/json",
        "text/plain",
        "application/json; charset=latin-1",
        "multipart/form-data; boundary=x",
    ],
    "authorization": [None, "Bearer {token}", "Bearer wrong", "Basic abc", "{token}"],
}


def request_strategy(
    routes: list[tuple[str, str]], port: int, token: str
) -> st.SearchStrategy[dict[str, Any]]:
    """Raw HTTP requests: a known route or a made-up path, any header mix, any body."""
    json_bodies = st.recursive(
        SCALARS,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=20,
    )
    bodies = st.one_of(
        st.none(),
        st.binary(max_size=300),
        json_bodies.map(lambda v: json.dumps(v).encode()),
        st.sampled_from(
            [b"[" * 100 + b"]" * 100, b'{"query": "\\ud800"}', b'{"query": "x"}', b"\xff\xfe", b"x" * 70_000]
        ),
    )

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        method, path = draw(
            st.one_of(
                st.sampled_from(routes),
                st.tuples(
                    st.sampled_from(["GET", "POST", "PUT", "DELETE", "OPTIONS"]),
                    st.sampled_from(["/", "/nope", "/mcp/x", "/healthz?deep=1", "/%00"]),
                ),
            )
        )
        headers = {}
        careful = draw(st.booleans())  # half the requests carry the headers a real client sends
        for name, options in HEADER_CHOICES.items():
            value = options[1 if name == "content-type" else 0] if careful else draw(st.sampled_from(options))
            if careful and name == "authorization":
                value = "Bearer {token}"
            if value is not None:
                headers[name] = value.format(port=port, token=token)
        return {"method": method, "path": path, "headers": headers, "body": draw(bodies)}

    return build()


def fuzz_routes(
    send: Callable[[dict[str, Any]], int],
    routes: list[tuple[str, str]],
    port: int,
    token: str,
    db: str,
    examples: int,
    tally: Tally,
    *,
    fixed: bool = True,
) -> None:
    """Send generated raw requests; ``send`` returns the HTTP status."""

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=fixed,
        suppress_health_check=list(HealthCheck),
    )
    @given(request=request_strategy(routes, port, token))
    def one(request: dict[str, Any]) -> None:
        before = stored_rows(db)
        started = time.perf_counter()
        status = send(request)
        assert 100 <= status < 600
        target = f"route {request['method']} {request['path']}"
        tally.add(
            target if (request["method"], request["path"]) in routes else "route (other paths)",
            str(status // 100) + "xx",
            time.perf_counter() - started,
        )
        if status >= 400:
            assert stored_rows(db) == before, (
                f"{request!r:.300} was refused ({status}) but changed stored rows"
            )

    one()


ROUTES = [
    ("GET", "/healthz"),
    ("GET", "/healthz?deep=1"),
    ("POST", "/hooks/recall"),
    ("POST", "/hooks/prompt"),
    ("POST", "/mcp"),
    ("GET", "/mcp"),
    ("DELETE", "/mcp"),
]


def _tool_caller(portal: BlockingPortal, client: Client) -> Callable[[str, dict[str, Any]], bool]:
    def call(name: str, args: dict[str, Any]) -> bool:
        async def go() -> bool:
            with anyio.fail_after(ANSWER_TIMEOUT):
                try:
                    return bool((await client.call_tool(name, args)).is_error)
                except MCPError:
                    return True  # a JSON-RPC error answer: refused, but answered

        return portal.call(go)

    return call


def _seed(portal: BlockingPortal, client: Client) -> list[str]:
    ids = []
    for text in ("The deploy runs on Fridays", "Alice prefers email", "Staging uses PostgreSQL 16"):
        result = portal.call(client.call_tool, "memory_add", {"content": text, "project": "fuzz"})
        assert not result.is_error and result.structured_content is not None
        ids.append(result.structured_content["id"])
    return ids


def fuzz_in_memory(server: Any, db: str, examples: int, tally: Tally, *, fixed: bool = True) -> int:
    """Every tool of ``server`` (an MCPServer) over an in-memory client session; returns the tool count."""
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(Client(server)) as client:
        tools = [(t.name, t.input_schema) for t in portal.call(client.list_tools).tools]
        ids = _seed(portal, client)
        fuzz_tools(_tool_caller(portal, client), tools, db, ids, examples, tally, "memory", fixed=fixed)
        assert not portal.call(
            client.call_tool, "memory_search", {"query": "deploy"}
        ).is_error  # still serving
    return len(tools)


def fuzz_http(
    base: str,
    port: int,
    token: str,
    db: str,
    examples: int,
    route_examples: int,
    tally: Tally,
    *,
    fixed: bool = True,
) -> int:
    """Every tool over Streamable HTTP, then raw requests to every route; returns the tool count."""
    from mcp.client.streamable_http import streamable_http_client

    with start_blocking_portal() as portal:
        http = httpx.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=ANSWER_TIMEOUT)
        with (
            portal.wrap_async_context_manager(http),
            portal.wrap_async_context_manager(
                Client(streamable_http_client(f"{base}/mcp", http_client=http))
            ) as client,
        ):
            tools = [(t.name, t.input_schema) for t in portal.call(client.list_tools).tools]
            ids = _seed(portal, client)
            fuzz_tools(_tool_caller(portal, client), tools, db, ids, examples, tally, "http", fixed=fixed)
    with httpx.Client(base_url=base, timeout=ANSWER_TIMEOUT) as raw:

        def send(request: dict[str, Any]) -> int:
            return raw.request(
                request["method"], request["path"], headers=request["headers"], content=request["body"]
            ).status_code

        fuzz_routes(send, ROUTES, port, token, db, route_examples, tally, fixed=fixed)
        assert raw.get("/healthz").status_code == 200  # still serving
    return len(tools)
