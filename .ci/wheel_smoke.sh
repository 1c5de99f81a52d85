#!/usr/bin/env bash
# The built wheel in a fresh virtual environment, as a user gets it: `memwarden demo`, a real MCP
# stdio session (initialize, tools/list, memory_add, memory_search), `memwarden doctor` and
# `memwarden bundle`.
# Usage: .ci/wheel_smoke.sh [PYTHON]  (PYTHON has `build`; default .venv/bin/python)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${1:-.venv/bin/python}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$PY" -m build --wheel --outdir "$work/dist" >&2
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet "$work"/dist/memwarden-*.whl >&2
export MEMWARDEN_DB="$work/data/memwarden.db" MEMWARDEN_DAEMON=off HOME="$work/home"
mkdir -p "$HOME"
"$work/venv/bin/memwarden" demo >/dev/null
"$work/venv/bin/python" - "$work/venv/bin/memwarden" <<'PY'
import json, subprocess, sys
proc = subprocess.Popen([sys.argv[1], "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def send(message):
    proc.stdin.write(json.dumps(message) + "\n"); proc.stdin.flush()
def answer(expected_id):
    while True:
        line = json.loads(proc.stdout.readline())
        if line.get("id") == expected_id:
            assert "error" not in line, line
            return line["result"]
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
      "capabilities": {}, "clientInfo": {"name": "wheel-smoke", "version": "1"}}})
assert answer(1)["serverInfo"]["name"] == "memwarden"
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
names = [t["name"] for t in answer(2)["tools"]]
assert "memory_add" in names and "memory_search" in names, names
send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "memory_add",
      "arguments": {"content": "The wheel smoke test stores this memory."}}})
assert not answer(3).get("isError")
send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "memory_search",
      "arguments": {"query": "wheel smoke"}}})
found = answer(4)
assert found["structuredContent"]["count"] == 1, found
proc.stdin.close()
assert proc.wait(timeout=30) == 0
print("mcp stdio session from the wheel: ok")
PY
"$work/venv/bin/memwarden" doctor
# The Claude Desktop extension, built from the installed wheel (not a checkout).
"$work/venv/bin/memwarden" bundle --out "$work/memwarden.mcpb"
"$work/venv/bin/python" - "$work/memwarden.mcpb" <<'PY'
import json, sys, zipfile
bundle = zipfile.ZipFile(sys.argv[1])
manifest = json.loads(bundle.read("manifest.json"))
assert manifest["name"] == "memwarden" and manifest["server"]["type"] == "uv", manifest
names = bundle.namelist()
assert "server/memwarden/cli/main.py" in names and "LICENSE" in names and "pyproject.toml" in names, names[:20]
print("bundle from the wheel: ok")
PY
echo "wheel smoke: ok"
