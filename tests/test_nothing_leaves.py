"""Nothing is written outside memwarden's own folders: `demo`, `add`, `search`, `doctor`, the three
hooks and a real MCP session over stdio with the builtin model (so onnxruntime loads, in the
server and in the child that prepares the int8 model) run with a fresh HOME, fresh XDG folders,
a fresh TMPDIR and no MEMWARDEN_DB, and every file created anywhere under them is listed.

onnxruntime writes a device id and a telemetry queue under ``~/.cache/Microsoft`` when it is
imported unless ``ORT_DISABLE_TELEMETRY`` is set first (``memwarden.vendor_env``); the switches
are removed from the environment the commands get, so memwarden must set them itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from cli_runner import run_memwarden
from mcp import Client, StdioServerParameters

from memwarden.vendor_env import VENDOR_SWITCHES

MODEL_WARM_TIMEOUT_S = 120.0


def _fresh_env(root: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MEMWARDEN_", "XDG_", "HF_", "ORT_")) and k not in VENDOR_SWITCHES
    }
    folders = {
        "HOME": root / "home",
        "XDG_DATA_HOME": root / "xdg-data",
        "XDG_CONFIG_HOME": root / "xdg-config",
        "XDG_CACHE_HOME": root / "xdg-cache",
        "XDG_STATE_HOME": root / "xdg-state",
        "XDG_RUNTIME_DIR": root / "xdg-runtime",
        "TMPDIR": root / "tmp",
    }
    for folder in folders.values():
        folder.mkdir(mode=0o700)
    env.update({name: str(folder) for name, folder in folders.items()})
    return env


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if p.is_file() or p.is_symlink() or p.is_socket()}


def _cli(env: dict[str, str], *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    done = run_memwarden(env, *argv, stdin=stdin)  # a real process: what it opens is the test
    assert done.returncode == 0, (argv, done.stdout[-2000:], done.stderr[-2000:])
    return done


def _mcp_session_with_the_model(env: dict[str, str]) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "memwarden", "serve"], env=env)

    async def run() -> None:
        async with Client(params) as client:
            added = await client.call_tool("memory_add", {"content": "The Acme client prefers email"})
            assert not added.is_error
            with anyio.fail_after(MODEL_WARM_TIMEOUT_S):
                while True:  # the model loads in the background: wait until search uses it
                    found = await client.call_tool("memory_search", {"query": "how to contact Acme"})
                    assert not found.is_error and found.structured_content is not None
                    if not found.structured_content.get("degraded"):
                        break
                    await anyio.sleep(0.5)

    anyio.run(run)


@pytest.mark.slow
def test_commands_write_only_into_memwardens_own_folders(tmp_path: Path) -> None:
    env = _fresh_env(tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    before = _files(tmp_path)
    hook = {"session_id": "s-1", "transcript_path": str(project / "t.jsonl"), "cwd": str(project)}
    try:
        _cli(env, "demo")
        _cli(env, "add", "The Acme client prefers email over phone calls")
        _cli(env, "search", "Acme email")
        _mcp_session_with_the_model(env)
        doctor = _cli(env, "doctor")
        assert "\x1b[" not in doctor.stderr  # no coloured onnxruntime warnings
        _cli(env, "hook", "session-start", stdin=json.dumps({**hook, "hook_event_name": "SessionStart"}))
        _cli(
            env,
            "hook",
            "prompt",
            stdin=json.dumps({**hook, "hook_event_name": "UserPromptSubmit", "prompt": "email Acme"}),
        )
        _cli(
            env,
            "hook",
            "stop",
            stdin=json.dumps({**hook, "hook_event_name": "Stop", "stop_hook_active": False}),
        )
    finally:
        subprocess.run(
            [sys.executable, "-m", "memwarden", "daemon", "stop"], env=env, capture_output=True, timeout=60
        )
    own = (Path(env["XDG_DATA_HOME"]) / "memwarden", Path(env["XDG_RUNTIME_DIR"]) / "memwarden")
    created = sorted(_files(tmp_path) - before)
    assert any(p.is_relative_to(own[0]) for p in created)  # the commands did run on the default place
    foreign = [str(p.relative_to(tmp_path)) for p in created if not any(p.is_relative_to(o) for o in own)]
    assert foreign == [], f"files written outside memwarden's folders: {foreign}"
