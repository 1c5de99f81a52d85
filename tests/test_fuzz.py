"""Fuzzing every MCP tool (in-memory session and real HTTP) and every HTTP route (issue 14).

A bounded number of examples runs here, the same ones every run; ``python bench/fuzz.py``
runs more, new ones each time. The counts per tool and outcome are printed at the end of each
test (also under ``-q``). What is asserted is in ``tests/fuzz_engine.py``.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import pytest
from http_servers import free_port, wait_for_http

from memwarden.config import Settings
from memwarden.mcp.server import create_server
from memwarden.service import MemoryService
from tests.fuzz_engine import Tally, fuzz_http, fuzz_in_memory, stored_rows

EXAMPLES_PER_TOOL = 12
ROUTE_EXAMPLES = 60
TOKEN = "fuzz-token-0123456789abcdef"


def report(request: pytest.FixtureRequest, tally: Tally, title: str) -> None:
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    assert reporter is not None and capture is not None
    with capture.global_and_fixture_disabled():
        for line in ["", *tally.lines(title)]:
            reporter.write_line(line)


def test_fuzz_every_tool_over_an_in_memory_session(
    service: MemoryService, settings: Settings, request: pytest.FixtureRequest
) -> None:
    tally = Tally()
    tools = fuzz_in_memory(create_server(service, tools="all"), settings.db, EXAMPLES_PER_TOOL, tally)
    report(request, tally, "in-memory MCP session")
    assert tools >= 12 and sum(tally.counts.values()) == tools * EXAMPLES_PER_TOOL
    assert all(tally.counts[(target, "ok")] for target in tally.times if "import" not in target)


@pytest.fixture
def fuzz_server(cli_env: dict[str, str]) -> Iterator[tuple[str, int, subprocess.Popen[str]]]:
    port = free_port()
    env = {
        **cli_env,
        "MEMWARDEN_HTTP_TOKEN": TOKEN,
        "MEMWARDEN_TOOLS": "all",
        "MEMWARDEN_HTTP_MAX_BODY_BYTES": str(64 * 1024),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "memwarden", "serve", "--http", f"127.0.0.1:{port}"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_http(f"http://127.0.0.1:{port}/healthz", process)
        yield f"http://127.0.0.1:{port}", port, process
    finally:
        process.terminate()
        process.wait(timeout=20)
        if process.stderr:
            process.stderr.close()


def test_fuzz_every_tool_and_route_over_real_http(
    fuzz_server: tuple[str, int, subprocess.Popen[str]],
    cli_env: dict[str, str],
    request: pytest.FixtureRequest,
) -> None:
    base, port, process = fuzz_server
    db = cli_env["MEMWARDEN_DB"]
    tally = Tally()
    tools = fuzz_http(base, port, TOKEN, db, EXAMPLES_PER_TOOL, ROUTE_EXAMPLES, tally)
    assert process.poll() is None, "the server died"
    assert stored_rows(db)
    report(request, tally, "real HTTP (MCP tools and routes)")
    tool_calls = sum(n for (target, _), n in tally.counts.items() if not target.startswith("route "))
    route_calls = sum(tally.counts.values()) - tool_calls
    assert route_calls >= ROUTE_EXAMPLES and tools >= 12
