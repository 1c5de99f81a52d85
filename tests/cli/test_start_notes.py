"""A mistyped path or setting is noticed at once (issue 38): ``add`` and ``serve`` say when they
created a new database, ``serve`` names unknown MEMWARDEN_* variables with the closest setting,
and the log file named at start-up holds a start and a stop line at the default level. All of
it on stderr or in the log: stdout of ``serve`` carries only MCP."""

from __future__ import annotations

from pathlib import Path

from cli_runner import cli_environment, run_in_process, run_memwarden


def test_add_says_it_created_a_new_database_once(tmp_path: Path) -> None:
    db = tmp_path / "typo" / "memwarden.db"
    env = cli_environment(db, tmp_path)
    first = run_in_process(env, "add", "The deploy window is Tuesday morning")
    assert first.returncode == 0 and first.stdout.startswith("stored ")
    assert first.stderr == f"memwarden: created a new database at {db}\n"
    second = run_in_process(env, "add", "The staging host moved to the new rack")
    assert second.returncode == 0 and second.stderr == ""
    # --json keeps stdout JSON alone; the note stays on stderr.
    other = tmp_path / "other.db"
    as_json = run_in_process(cli_environment(other, tmp_path), "add", "a fact", "--json")
    assert as_json.stdout.lstrip().startswith("{") and f"created a new database at {other}" in as_json.stderr


def test_serve_start_line_says_new_database_and_names_unknown_settings(tmp_path: Path) -> None:
    db = tmp_path / "new.db"
    log = tmp_path / "memwarden.log"
    env = cli_environment(db, tmp_path, MEMWARDEN_DEMON="off", MEMWARDEN_HOOK_LIMT="3")
    done = run_memwarden(env, "serve", stdin="")  # stdio: the server ends when its input does
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # MCP only, and no client spoke
    start = next(line for line in done.stderr.splitlines() if "serving MCP over stdio" in line)
    assert "a new database, created now" in start
    assert "MEMWARDEN_DEMON (did you mean MEMWARDEN_DAEMON?)" in start
    assert "MEMWARDEN_HOOK_LIMT (did you mean MEMWARDEN_HOOK_LIMIT?)" in start
    # The log file the line names holds the start and the stop, at the default level.
    lines = log.read_text(encoding="utf-8").splitlines()
    assert any("serve started" in line for line in lines) and "serve stopped" in lines[-1]
    again = run_memwarden(cli_environment(db, tmp_path), "serve", stdin="")
    start = next(line for line in again.stderr.splitlines() if "serving MCP over stdio" in line)
    assert "new database" not in start and "unknown settings" not in start
