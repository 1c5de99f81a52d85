"""The CLI ends every failure with one line (issue 14): no traceback unless --debug, and a
closed output pipe (``memwarden … | head``) exits quietly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from memwarden.app import build_service
from memwarden.config import load_settings


def _memwarden(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memwarden", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_a_closed_pipe_ends_the_command_quietly(cli_env: dict[str, str], db_path: Path) -> None:
    service = build_service(load_settings(db=str(db_path), embedder="none"), embeddings=False)
    for i in range(150):
        service.memories.add(f"memory {i} about the release train " + "detail " * 150)
    service.close()
    # head -n 0 exits at once, so the first write finds the pipe closed (head -1 would race the
    # writer: output that fits in the pipe's buffer is written before head exits).
    command = f"set -o pipefail; {sys.executable} -m memwarden search release --limit 100 | head -n 0"
    result = subprocess.run(["bash", "-c", command], env=cli_env, capture_output=True, text=True, timeout=120)
    assert result.stdout == ""
    assert result.stderr == "", result.stderr  # was a BrokenPipeError traceback
    assert result.returncode == 141  # 128 + SIGPIPE, as a shell reports a command stopped by a pipe


def test_an_unexpected_error_is_one_line_and_debug_shows_the_traceback(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    assert _memwarden(cli_env, "add", "a memory to export").returncode == 0
    # A bug nothing handles, planted in the real process: the export raises a RuntimeError.
    plant = tmp_path / "plant"
    plant.mkdir()
    (plant / "sitecustomize.py").write_text(
        "from memwarden.ops.operations import Operations\n"
        "def _broken(self, handle, **_):\n"
        "    raise RuntimeError('a planted bug')\n"
        "Operations.export_to = _broken\n"
    )
    env = {**cli_env, "PYTHONPATH": f"{plant}:{cli_env.get('PYTHONPATH', '')}".rstrip(":")}
    target = str(tmp_path / "out.json")
    plain = _memwarden(env, "export", "--out", target)
    assert plain.returncode == 1
    lines = plain.stderr.strip().splitlines()
    # One line that says it is a bug and how to see it; no Python class name for a person to decode.
    assert lines == [
        "memwarden: unexpected error (a planted bug); this is a bug in memwarden: "
        "run again with --debug and report the traceback"
    ]
    debug = _memwarden(env, "--debug", "export", "--out", target)
    assert debug.returncode == 1 and "Traceback (most recent call last)" in debug.stderr
    assert not Path(target).exists()
