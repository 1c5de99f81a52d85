# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint install bench clean browser

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

## Start memwarden on the embedded default (SQLite in ~/.local/share/memwarden), MCP over stdio
## unless MEMWARDEN_HTTP is set (for example MEMWARDEN_HTTP=127.0.0.1:8765 make run).
run: $(STAMP)
	$(BIN)/memwarden serve

## The dashboard's browser tests drive Debian's Chromium (no browser download): install it when
## it is missing and we may (root, as in CI); otherwise say how. In CI the browser tests fail
## without it.
browser:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
		echo "chromium is missing: run 'sudo apt-get install -y chromium' for the dashboard's browser tests"

## Install what the tests need, start what they need, run every test.
test: $(STAMP) browser
	$(BIN)/python -m pytest -q

## ruff (lint and format) and mypy over src/.
lint: $(STAMP)
	$(BIN)/python -m ruff check src tests bench
	$(BIN)/python -m ruff format --check src tests bench
	$(BIN)/python -m mypy

bench: $(STAMP)
	$(BIN)/python bench/core.py
	$(BIN)/python bench/quality/run.py
	$(BIN)/python bench/search_speed.py
	$(BIN)/python bench/ops.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
