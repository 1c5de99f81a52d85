"""`memwarden bundle`: the Claude Desktop extension (MCP Bundle), checked by the official packer.

The manifest is validated by ``mcpb validate`` of npm's ``@anthropic-ai/mcpb`` (``make test``
installs it into the virtual environment; without it these tests are skipped on a workstation
and FAIL in CI, ``CI=true``). The bundled server is started the way the manifest says, with the
host's variables substituted, and spoken to over stdio; once through ``uv run`` for real.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from memwarden.cli.main import main
from memwarden.mcp.server import CORE_TOOLS, TOOL_NAMES
from memwarden.version import __version__

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def mcpb() -> str:
    found = Path(sys.prefix) / "node" / "node_modules" / ".bin" / "mcpb"
    tool = str(found) if found.exists() else shutil.which("mcpb")
    if tool is None:
        message = f"{found} is missing: `make mcpb` installs npm's @anthropic-ai/mcpb (make test does)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message)
        pytest.skip(message)
    return tool


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundle") / "memwarden.mcpb"
    assert main(["bundle", "--out", str(out)]) == 0
    return out


def unpack(bundle: Path, into: Path) -> dict[str, Any]:
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(into)
    manifest: dict[str, Any] = json.loads((into / "manifest.json").read_text(encoding="utf-8"))
    return manifest


def test_the_official_validator_accepts_the_manifest(mcpb: str, bundle: Path, tmp_path: Path) -> None:
    manifest = unpack(bundle, tmp_path)
    checked = subprocess.run(
        [mcpb, "validate", str(tmp_path / "manifest.json")], capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "validation passes" in checked.stdout
    info = subprocess.run([mcpb, "info", str(bundle)], capture_output=True, text=True)
    assert info.returncode == 0, info.stdout + info.stderr
    assert manifest["manifest_version"] == "0.4" and manifest["version"] == __version__


def test_the_validator_is_not_a_rubber_stamp(mcpb: str, bundle: Path, tmp_path: Path) -> None:
    manifest = unpack(bundle, tmp_path)
    manifest["server"]["type"] = "ruby"
    del manifest["author"]
    (tmp_path / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    checked = subprocess.run(
        [mcpb, "validate", str(tmp_path / "manifest.json")], capture_output=True, text=True
    )
    assert checked.returncode != 0
    assert "author" in checked.stdout and "server" in checked.stdout


def test_the_manifest_lists_the_tools_and_settings_the_server_really_has(
    bundle: Path, tmp_path: Path
) -> None:
    manifest = unpack(bundle, tmp_path)
    assert [tool["name"] for tool in manifest["tools"]] == list(CORE_TOOLS)
    env = manifest["server"]["mcp_config"]["env"]
    from memwarden.settings_table import SETTINGS

    known = {f"MEMWARDEN_{spec.name.upper()}" for spec in SETTINGS}
    assert {name for name in env if name.startswith("MEMWARDEN_")} <= known
    for key in manifest["user_config"]:
        assert f"${{user_config.{key}}}" in env.values()
    assert manifest["license"] == "Apache-2.0"
    assert (tmp_path / "LICENSE").read_text(encoding="utf-8").startswith((ROOT / "LICENSE").read_text()[:200])
    assert (tmp_path / "server" / "memwarden" / "embed" / "data" / "NOTICE.md").is_file()
    assert not list(tmp_path.rglob("__pycache__"))
    everything = tmp_path / "all.mcpb"
    assert main(["bundle", "--out", str(everything), "--tools", "all"]) == 0
    with zipfile.ZipFile(everything) as archive:
        listed = json.loads(archive.read("manifest.json"))
    assert [tool["name"] for tool in listed["tools"]] == list(TOOL_NAMES)
    assert listed["server"]["mcp_config"]["env"]["MEMWARDEN_TOOLS"] == "all"


def host_command(manifest: dict[str, Any], bundle_dir: Path, home: Path) -> tuple[list[str], dict[str, str]]:
    """The command and environment Claude Desktop runs, its variables substituted as the spec says."""
    values = {f"user_config.{key}": str(spec["default"]) for key, spec in manifest["user_config"].items()}
    values.update({"__dirname": str(bundle_dir), "HOME": str(home)})

    def fill(text: str) -> str:
        for _ in range(2):  # a user_config default may itself name ${HOME}
            text = re.sub(r"\$\{([^}]+)\}", lambda m: values.get(m.group(1), m.group(0)), text)
        return text

    config = manifest["server"]["mcp_config"]
    command = [fill(config["command"]), *(fill(arg) for arg in config["args"])]
    env = {name: fill(value) for name, value in config["env"].items()}
    assert "${" not in " ".join(command) + " ".join(env.values())
    return command, env


SESSION = """
import json, subprocess, sys
proc = subprocess.Popen(json.loads(sys.argv[1]), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
def send(message):
    proc.stdin.write(json.dumps(message) + "\\n"); proc.stdin.flush()
def answer(expected_id):
    while True:
        line = json.loads(proc.stdout.readline())
        if line.get("id") == expected_id:
            assert "error" not in line, line
            return line["result"]
send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18",
      "capabilities": {}, "clientInfo": {"name": "bundle-test", "version": "1"}}})
version = answer(1)["serverInfo"]["version"]
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
names = [t["name"] for t in answer(2)["tools"]]
send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "memory_add",
      "arguments": {"content": "The desktop extension stores this memory."}}})
assert not answer(3).get("isError")
send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "memory_search",
      "arguments": {"query": "desktop extension"}}})
count = answer(4)["structuredContent"]["count"]
proc.stdin.close()
print(json.dumps({"version": version, "tools": names, "count": count, "exit": proc.wait(timeout=60)}))
"""


def run_session(command: list[str], env: dict[str, str], home: Path) -> dict[str, Any]:
    full_env = {**os.environ, **env, "HOME": str(home), "MEMWARDEN_DAEMON": "off"}
    full_env.pop("XDG_DATA_HOME", None)  # the bundle's default database, under this HOME
    done = subprocess.run(
        [sys.executable, "-c", SESSION, json.dumps(command)],
        env=full_env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_the_bundled_server_answers_with_the_manifests_environment(bundle: Path, tmp_path: Path) -> None:
    """The bundle's own copy of memwarden, started with the manifest's environment (this
    interpreter stands in for the one uv provides: the next test runs uv itself)."""
    manifest = unpack(bundle, tmp_path / "ext")
    home = tmp_path / "home"
    home.mkdir()
    command, env = host_command(manifest, tmp_path / "ext", home)
    assert command[0] == "uv" and command[-1] == "server/main.py"
    session = run_session([sys.executable, str(tmp_path / "ext" / "server" / "main.py")], env, home)
    assert session == {"version": __version__, "tools": list(CORE_TOOLS), "count": 1, "exit": 0}
    assert (home / ".local" / "share" / "memwarden" / "memwarden.db").is_file()


@pytest.mark.slow
def test_uv_runs_the_bundle_as_claude_desktop_would(bundle: Path, tmp_path: Path) -> None:
    """`uv run` from the manifest, for real: uv installs the bundle's pyproject.toml dependencies
    from the package index into a fresh environment and starts server/main.py."""
    uv = Path(sys.executable).parent / "uv"
    assert uv.exists(), "uv is in the test extra: make install"
    manifest = unpack(bundle, tmp_path / "ext")
    home = tmp_path / "home"
    home.mkdir()
    command, env = host_command(manifest, tmp_path / "ext", home)
    env["UV_CACHE_DIR"] = os.environ.get("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
    session = run_session([str(uv), *command[1:]], env, home)
    assert session == {"version": __version__, "tools": list(CORE_TOOLS), "count": 1, "exit": 0}


def test_bad_output_paths_are_refused_with_a_clear_message_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-folder" / "memwarden.mcpb"
    assert main(["bundle", "--out", str(missing)]) == 1
    assert f"the folder {missing.parent} does not exist" in capsys.readouterr().err
    assert not missing.parent.exists()

    existing = tmp_path / "memwarden.mcpb"
    existing.write_bytes(b"keep me")
    assert main(["bundle", "--out", str(existing)]) == 1
    assert "already exists" in capsys.readouterr().err
    assert existing.read_bytes() == b"keep me"
    assert main(["bundle", "--out", str(tmp_path)]) == 1
    assert "is a folder" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["memwarden.mcpb"]  # no temporary left

    assert main(["bundle", "--out", str(existing), "--force"]) == 0
    assert zipfile.is_zipfile(existing)
    with pytest.raises(SystemExit) as usage:
        main(["bundle", "--out", str(existing), "--tools", "some"])
    assert usage.value.code == 2


def test_a_build_egg_info_without_licences_on_the_path_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build in the checkout leaves src/memwarden.egg-info (no licence files) on the path."""
    from importlib import metadata

    egg = tmp_path / "path" / "memwarden.egg-info"
    egg.mkdir(parents=True)
    (egg / "PKG-INFO").write_text(str(metadata.metadata("memwarden")), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path / "path"))
    assert metadata.distribution("memwarden").read_text("licenses/LICENSE") is None
    assert main(["bundle", "--out", str(tmp_path / "memwarden.mcpb")]) == 0
    with zipfile.ZipFile(tmp_path / "memwarden.mcpb") as archive:
        assert archive.read("LICENSE") == (ROOT / "LICENSE").read_bytes()


def test_the_bundle_carries_an_icon_and_the_project_links(bundle: Path, tmp_path: Path) -> None:
    import struct
    import tomllib

    manifest = unpack(bundle, tmp_path)
    icon = (tmp_path / manifest["icon"]).read_bytes()
    assert icon.startswith(b"\x89PNG\r\n\x1a\n") and icon[12:16] == b"IHDR"
    width, height = struct.unpack(">II", icon[16:24])
    assert width == height and 64 <= width <= 512
    urls = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text(encoding="utf-8"))[
        "project"
    ]["urls"]
    assert manifest["homepage"] == urls["Homepage"]
    assert manifest["repository"] == {"type": "git", "url": urls["Repository"]}
    assert manifest["support"] == urls["Issues"]
