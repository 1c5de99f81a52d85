# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-runtime

.PHONY: run test test-fast lint install bench clean browser mcpb dist

# Recipes are silent (@) and install output goes to stderr: `make run` serves MCP over stdio, so
# its stdout must carry nothing but the server's JSON-RPC lines.
$(BIN)/python:
	@$(PYTHON) -m venv $(VENV) >&2
	@$(BIN)/python -m pip install --quiet --upgrade pip >&2

# The runtime and the test extras: what `make test` (and `make install`) need.
$(STAMP): $(BIN)/python pyproject.toml
	@$(BIN)/python -m pip install --quiet -e '.[test]' >&2
	@touch $(STAMP) $(RUN_STAMP)

# The runtime only: what `make run` needs (a venv that already has the test extras has it too).
$(RUN_STAMP): $(BIN)/python pyproject.toml
	@if [ ! -f $(STAMP) ] || [ pyproject.toml -nt $(STAMP) ]; then \
		$(BIN)/python -m pip install --quiet -e . >&2; fi
	@touch $(RUN_STAMP)

install: $(STAMP)

## Start memwarden on the embedded default (SQLite in ~/.local/share/memwarden), MCP over stdio
## unless MEMWARDEN_HTTP is set (for example MEMWARDEN_HTTP=127.0.0.1:8765 make run).
run: $(RUN_STAMP)
	@$(BIN)/memwarden serve

## The dashboard's browser tests drive Debian's Chromium (no browser download): install it when
## it is missing and we may (root, as in CI); otherwise say how. In CI the browser tests fail
## without it.
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
		echo "chromium is missing: run 'sudo apt-get install -y chromium' for the dashboard's browser tests"

## The official MCP Bundle packer and validator (npm @anthropic-ai/mcpb) for tests/mcp/test_bundle.py,
## installed into the virtual environment; npm comes from Debian when it is missing and we may.
MCPB := $(VENV)/node/node_modules/.bin/mcpb
mcpb: $(MCPB)
$(MCPB):
	@command -v npm >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null; } || \
		echo "npm is missing: install Node.js and npm for the bundle tests (tests/mcp/test_bundle.py)" >&2
	@command -v npm >/dev/null 2>&1 && npm install --silent --no-audit --no-fund --prefix $(VENV)/node \
		@anthropic-ai/mcpb@2.1.2 >&2 || true

# pytest-xdist (a test extra) spreads the tests over one worker more than there are cores: many
# tests wait on the processes, servers and disk syncs they start, and a third worker on two
# cores ran the suite in 484 s against 581 s with two (a fourth: 499 s). The PostgreSQL tests
# share one server per run (tests/postgres_server.py). --dist loadfile keeps each file on one
# worker: a module's expensive fixtures (large filled databases) are built once, and a file's
# tests never run beside one another; tests/conftest.py hands out the longest files first.
# Without xdist the tests run in turn.
PARALLEL = $$($(BIN)/python -c 'import os, xdist; print("-n", len(os.sched_getaffinity(0)) + 1, "--dist loadfile")' 2>/dev/null)

## Install what the tests need, start what they need, check lint and types, run every test.
test: $(STAMP) browser mcpb lint
	$(BIN)/python -m pytest -q $(PARALLEL)

## The inner loop: every test but the slow ones (real daemons and servers started per test,
## pip installs, a browser, PostgreSQL), on every core, no lint. `make test` runs them all.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow and not browser and not postgres" $(PARALLEL)

## ruff (lint and format) and mypy over src/.
lint: $(STAMP)
	$(BIN)/python -m ruff check src tests bench
	$(BIN)/python -m ruff format --check src tests bench
	$(BIN)/python -m mypy

## The wheel and the source archive in $(DIST), the way to install memwarden while it is not on
## PyPI (pipx install dist/memwarden-*.whl, uv tool install …): README, Install.
DIST ?= dist
dist: $(BIN)/python
	@$(BIN)/python -c 'import build' 2>/dev/null || $(BIN)/python -m pip install --quiet build >&2
	@rm -rf $(DIST)
	@$(BIN)/python -m build --outdir $(DIST) . >&2

bench: $(STAMP)
	$(BIN)/python bench/core.py
	$(BIN)/python bench/quality/run.py
	$(BIN)/python bench/search_speed.py
	$(BIN)/python bench/ops.py

clean:
	rm -rf $(VENV) build dist *.egg-info src/*.egg-info
