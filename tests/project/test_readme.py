"""The README's first screen (everything above "What it does") works as written.

Every command in its blocks is run here, or by the test named for it: the session transcript
is replayed against a fresh database and must print what the README shows (ids and hashes
aside), in a process of its own (``MEMWARDEN_DAEMON=off``) and through a warm daemon (``auto``,
where the scores of a search by keywords and meaning differ, never the lines or their names); `pip install -e .` runs in a fresh virtual environment and `memwarden demo` and
`memwarden doctor` run from it; the client commands run against a temporary home.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import pytest
from model_cache import share_prepared_model

from memwarden.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]
TEXT = (ROOT / "README.md").read_text(encoding="utf-8")
FIRST_SCREEN = TEXT[: TEXT.index("## What it does")]
MEMWARDEN = str(Path(sys.executable).parent / "memwarden")
ULID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", FIRST_SCREEN, flags=re.S)


def shell_commands() -> list[str]:
    lines = [line.split("#")[0].strip() for block in blocks("sh") for line in block.splitlines()]
    return [line for line in lines if line]


def session() -> list[tuple[str, str]]:
    """(command, what the README shows it printing) for each `$ ` line of the transcript."""
    (block,) = blocks("console")
    steps: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        else:
            steps[-1][1].append(line)
    return [(command, "\n".join(shown) + "\n") for command, shown in steps]


# Where each shell command of the first screen is run (a new command there fails this list).
RUN_BY = {
    "make run": "tests/cli/test_first_run.py::test_make_run_stdout_starts_with_the_servers_first_json_rpc_line",
    "make test": ".ci/run (CI runs it on a fresh clone)",
    "pip install -e .": "test_pip_install_from_the_checkout_then_demo_and_doctor",
    "memwarden demo": "test_pip_install_from_the_checkout_then_demo_and_doctor",
    "memwarden doctor": "test_pip_install_from_the_checkout_then_demo_and_doctor",
    "memwarden install claude-code": "test_the_client_commands_work_in_a_fresh_home",
    "memwarden bundle --out memwarden.mcpb": "test_the_client_commands_work_in_a_fresh_home",
}


def test_every_command_of_the_first_screen_is_run_by_a_test() -> None:
    assert shell_commands() == list(RUN_BY)
    first_run = (ROOT / "tests" / "cli" / "test_first_run.py").read_text(encoding="utf-8")
    assert "def test_make_run_stdout_starts_with_the_servers_first_json_rpc_line" in first_run
    assert "make test" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert len(session()) >= 6


def normalized(text: str) -> str:
    """Ids numbered by first appearance; audit head hashes hidden."""
    seen: dict[str, str] = {}
    text = ULID.sub(lambda m: seen.setdefault(m.group(0), f"<id{len(seen) + 1}>"), text)
    return re.sub(r"head [0-9a-f]{16}…", "head <hash>…", text)


def newcomer_env(cli_env: dict[str, str], tmp_path: Path) -> dict[str, str]:
    """A new user's environment: the default embedder, a home and data folder of their own."""
    env = {k: v for k, v in cli_env.items() if k != "MEMWARDEN_EMBEDDER"}
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / ".local" / "share"))
    return env


def without_scores(text: str) -> str:
    """The score lines' numbers hidden, their names kept."""
    text = re.sub(r"score \d+\.\d{4}", "score <n>", text)
    return re.sub(r"(\w+)=\d+\.\d{3}", r"\1=<n>", text)


def start_warm_daemon(env: dict[str, str]) -> None:
    """Start the user's daemon and wait until its model is loaded (a search by meaning)."""
    started = subprocess.run(
        [MEMWARDEN, "daemon", "restart"], env=env, capture_output=True, text=True, timeout=120
    )
    assert started.returncode == 0, started.stderr
    deadline = time.monotonic() + 180
    while True:
        status = subprocess.run(
            [MEMWARDEN, "daemon", "status", "--json"], env=env, capture_output=True, text=True, timeout=60
        )
        model = json.loads(status.stdout)["model"]
        if model.get("loaded"):
            return
        assert model.get("state") != "failed" and time.monotonic() < deadline, model
        time.sleep(0.5)


@pytest.mark.parametrize("daemon", ["off", "auto"])
def test_the_session_prints_what_the_readme_shows(
    cli_env: dict[str, str], tmp_path: Path, prepared_model: Path, daemon: str
) -> None:
    env = newcomer_env(cli_env, tmp_path)
    # What the session prints, not the first preparation of the model (tests/model_cache.py).
    share_prepared_model(prepared_model, Path(env["XDG_DATA_HOME"]))
    if daemon == "auto":
        # A short runtime folder: a Unix socket path holds ~107 bytes.
        env.update(MEMWARDEN_DAEMON="auto", XDG_RUNTIME_DIR=tempfile.mkdtemp(prefix="mwr"))
        # What the session prints, not the search's time budget: on a loaded machine a query's
        # embedding can outlast the default budget and the answer would say "degraded".
        env["MEMWARDEN_VECTOR_TIMEOUT_MS"] = "20000"
        start_warm_daemon(env)
    shown_all, printed_all, notes = "", "", ""
    try:
        for command, shown in session():
            words = shlex.split(command)
            assert words[0] == "memwarden"
            done = subprocess.run(
                [MEMWARDEN, *words[1:]], env=env, capture_output=True, text=True, timeout=120
            )
            assert done.returncode == 0, f"{command}: {done.stderr}"
            shown_all += shown
            printed_all += done.stdout
            notes += done.stderr
    finally:
        if daemon == "auto":
            subprocess.run([MEMWARDEN, "daemon", "stop"], env=env, capture_output=True, timeout=60)
    if daemon == "off":
        assert normalized(printed_all) == normalized(shown_all)
    else:
        # The daemon answered the searches (said on stderr only), by keywords and meaning.
        assert "(searched by the memwarden daemon: keywords and meaning)" in notes
        assert without_scores(normalized(printed_all)) == without_scores(normalized(shown_all))


def test_the_client_commands_work_in_a_fresh_home(cli_env: dict[str, str], tmp_path: Path) -> None:
    env = newcomer_env(cli_env, tmp_path)
    home = Path(env["HOME"])
    done = subprocess.run(
        [MEMWARDEN, "install", "claude-code"], env=env, cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    config = json.loads((home / ".claude.json").read_text(encoding="utf-8"))
    assert config["mcpServers"]["memwarden"]["args"] == ["serve"]
    assert (home / ".claude" / "skills" / "memwarden" / "SKILL.md").is_file()

    done = subprocess.run(
        [MEMWARDEN, "bundle", "--out", "memwarden.mcpb"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(tmp_path / "memwarden.mcpb") as bundle:
        assert json.loads(bundle.read("manifest.json"))["name"] == "memwarden"

    (snippet,) = blocks("json")
    server = json.loads(snippet)["mcpServers"]["memwarden"]
    assert server["command"] == "memwarden" and build_parser().parse_args(server["args"]).command == "serve"


@pytest.mark.slow
def test_pip_install_from_the_checkout_then_demo_and_doctor(cli_env: dict[str, str], tmp_path: Path) -> None:
    """`pip install -e .` in a fresh virtual environment, from the checkout, as the README says."""
    env = newcomer_env(cli_env, tmp_path)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    bin_dir = venv / "bin"
    env["PATH"] = str(bin_dir) + os.pathsep + env.get("PATH", "")
    env.pop("PYTHONPATH", None)
    # What is checked is that the install works, not the bytecode compilation of every
    # dependency, a large share of the install's time on a slow disk.
    install = [*shlex.split(shell_commands()[2]), "--no-compile"]
    done = subprocess.run(install, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    demo = subprocess.run(
        [str(bin_dir / "memwarden"), "demo"], env=env, capture_output=True, text=True, timeout=300
    )
    assert demo.returncode == 0, demo.stderr
    assert "the temporary database is removed" in demo.stdout
    doctor = subprocess.run(
        [str(bin_dir / "memwarden"), "doctor"], env=env, capture_output=True, text=True, timeout=300
    )
    assert doctor.returncode == 0, doctor.stdout + doctor.stderr
    assert re.search(r"^ok\s+python\s+3\.\d+", doctor.stdout, flags=re.M)
    assert re.search(r"^ok\s+model\s+.*match their pinned SHA-256", doctor.stdout, flags=re.M)


def test_no_pip_command_reads_as_an_install_from_the_package_index() -> None:
    """memwarden is not on PyPI: `pip install memwarden…` alone would fail for a newcomer."""
    for line in TEXT.splitlines():
        for command in re.findall(r"pip install ([^`]+)`", line):
            target = shlex.split(command)[-1]
            assert target.startswith((".", "-e", "dist/")) or "where memwarden is installed" in line, line
