"""The real ``memwarden`` command: serve answers while the model loads; reindex; search --hybrid."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from typing import Any

from memwarden.embed.builtin import open_builtin

MEMWARDEN = [sys.executable, "-m", "memwarden"]


def _rpc(process: subprocess.Popen[str], message: dict[str, Any]) -> dict[str, Any] | None:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(message) + "\n")
    process.stdin.flush()
    if "id" not in message:
        return None
    return json.loads(process.stdout.readline())


def _search(process: subprocess.Popen[str], request_id: int, query: str) -> dict[str, Any]:
    answer = _rpc(
        process,
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": "memory_search", "arguments": {"query": query}},
        },
    )
    assert answer is not None
    return answer["result"]["structuredContent"]


def test_serve_answers_at_once_while_the_builtin_model_loads_then_searches_by_meaning(
    cli_env: dict[str, str],
) -> None:
    env = {**cli_env, "MEMWARDEN_EMBEDDER": "builtin"}
    subprocess.run(
        [*MEMWARDEN, "add", "Never run database migrations on Fridays"],
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    process = subprocess.Popen(
        [*MEMWARDEN, "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        text=True,
    )
    try:
        init = _rpc(
            process,
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "test", "version": "1"},
                },
            },
        )
        assert init is not None and init["result"]["serverInfo"]["name"] == "memwarden"
        _rpc(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        first = _search(process, 2, "when is it unsafe to change the schema")
        # Answered straight away: from keywords while the model warms up, or already by meaning.
        assert first["degraded"] is False or first["degrade_reason"] == "warming_up"
        found, request_id = first, 2
        deadline = time.monotonic() + 60  # bounded: keep asking (real requests) until the model is warm
        while found["degraded"] is not False and time.monotonic() < deadline:
            request_id += 1
            found = _search(process, request_id, "when is it unsafe to change the schema")
        assert found["degraded"] is False and found["degrade_reason"] is None
        assert found["hits"][0]["content"] == "Never run database migrations on Fridays"
        assert found["hits"][0]["why"]["vector"] > 0
    finally:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.close()
        process.wait(timeout=30)
        process.stdout.close()


def test_reindex_embeds_what_was_written_without_an_embedder(cli_env: dict[str, str]) -> None:
    for text in ["The client prefers email", "Deploys happen on Tuesdays"]:
        subprocess.run([*MEMWARDEN, "add", text], env=cli_env, check=True, capture_output=True, timeout=60)
    env = {**cli_env, "MEMWARDEN_EMBEDDER": "builtin"}
    done = subprocess.run(
        [*MEMWARDEN, "reindex", "--embeddings", "--json", "--progress"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    default_space = open_builtin().identity.model_id  # whichever model is the default
    assert report["embedded"] == 2 and report["missing"] == 0 and report["model"] == default_space
    assert "embedding [" in done.stderr and "2/2" in done.stderr
    again = subprocess.run(
        [*MEMWARDEN, "reindex", "--embeddings", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert json.loads(again.stdout)["embedded"] == 0
    hybrid = subprocess.run(
        [*MEMWARDEN, "search", "--hybrid", "--json", "how should I contact the customer"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    result = json.loads(hybrid.stdout)
    assert result["degraded"] is False and result["hits"][0]["content"] == "The client prefers email"


def test_reindex_without_what_to_rebuild_is_a_usage_error(cli_env: dict[str, str]) -> None:
    done = subprocess.run([*MEMWARDEN, "reindex"], env=cli_env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--embeddings" in done.stderr


def test_reindex_with_no_embedder_configured_says_so(cli_env: dict[str, str]) -> None:
    done = subprocess.run(
        [*MEMWARDEN, "reindex", "--embeddings"], env=cli_env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1 and "MEMWARDEN_EMBEDDER" in done.stderr


def test_reindex_with_an_unknown_builtin_model_is_a_clear_error(cli_env: dict[str, str]) -> None:
    env = {**cli_env, "MEMWARDEN_EMBEDDER": "builtin", "MEMWARDEN_EMBED_MODEL": "no-such-model"}
    done = subprocess.run(
        [*MEMWARDEN, "reindex", "--embeddings"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1 and "not a builtin model" in done.stderr


def test_keyword_search_imports_no_numpy_or_onnxruntime(cli_env: dict[str, str]) -> None:
    env = {**cli_env, "MEMWARDEN_EMBEDDER": "builtin"}
    code = (
        "import sys; from memwarden.cli.main import main; main(['search', 'anything', '--json']); "
        "print([m for m in ('numpy', 'onnxruntime', 'tokenizers', 'usearch') if m in sys.modules])"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("[]")
