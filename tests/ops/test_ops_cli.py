"""The operations commands: backup, restore, health (also --url against a real server), review,
export, import, vacuum; good and bad input, exit codes."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from http_servers import free_port, start_http_server, stop_http_server

from memwarden.cli.main import main
from memwarden.config import Settings


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str], tmp_path: Path) -> None:
    for key, value in cli_env.items():
        if key.startswith("MEMWARDEN_"):
            monkeypatch.setenv(key, value)
    monkeypatch.setenv("MEMWARDEN_EXPORT_DIR", str(tmp_path / "exchange"))


def run_json(capsys: pytest.CaptureFixture[str], *argv: str, code: int = 0) -> dict:
    assert main([*argv, "--json"]) == code
    return json.loads(capsys.readouterr().out)


def _add(capsys: pytest.CaptureFixture[str], *texts: str) -> list[str]:
    return [run_json(capsys, "add", text, "--project", "cli")["id"] for text in texts]


def test_backup_then_restore_shows_the_plan_and_restores_with_yes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _add(capsys, "kept across the restore")
    record = run_json(capsys, "backup")
    assert record["verified"] is True and record["counts"]["memories"] == 1
    (later,) = _add(capsys, "written after the backup")
    plan = run_json(capsys, "restore", record["path"])
    assert plan["removed"] == [later] and plan["memories_after"] == 1
    assert run_json(capsys, "get", later)["memories"]  # the plan changed nothing
    assert main(["restore", record["path"]]) == 0
    assert "nothing was changed" in capsys.readouterr().out
    done = run_json(capsys, "restore", record["path"], "--yes")
    assert done["matches_backup"] is True and "pre-restore" in done["previous_saved_as"]
    assert done["health_after"] == "ok"
    assert run_json(capsys, "list")["count"] == 1
    listed = run_json(capsys, "backup", "--list")
    assert len(listed["backups"]) == 2 and listed["last"]["reason"] == "pre-restore"


def test_backup_out_refuses_an_existing_file_with_exit_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _add(capsys, "something")
    target = tmp_path / "mine.db"
    assert main(["backup", "--out", str(target)]) == 0
    assert "verified" in capsys.readouterr().out
    assert main(["backup", "--out", str(target)]) == 1
    assert "never overwrite" in capsys.readouterr().err


def test_restore_of_a_missing_or_foreign_file_exits_1_and_changes_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (mid,) = _add(capsys, "still here")
    junk = tmp_path / "junk.db"
    junk.write_text("junk " * 1000)
    for bad in (str(tmp_path / "nope.db"), str(junk)):
        assert main(["restore", bad, "--yes"]) == 1
        assert capsys.readouterr().err.startswith("memwarden: ")
    assert run_json(capsys, "get", mid)["memories"][0]["content"] == "still here"


def test_health_review_and_vacuum_report(capsys: pytest.CaptureFixture[str]) -> None:
    _add(capsys, "the deploy runs on fridays", "the deploy runs on fridays!!", "unrelated memory")
    report = run_json(capsys, "health")
    assert report["status"] == "ok" and report["checks"]["keyword_index"]["ok"] is True
    assert main(["health"]) == 0
    assert "keyword_index" in capsys.readouterr().out
    assert main(["health", "--strict"]) == 0  # ok is ok for a monitor too
    capsys.readouterr()
    review = run_json(capsys, "review")
    assert review["counts"]["duplicates"] == 1 and review["note"].startswith("proposals only")
    assert main(["review"]) == 0 and "duplicate" in capsys.readouterr().out
    assert run_json(capsys, "list")["count"] == 3  # review changed nothing
    vacuum = run_json(capsys, "vacuum")
    assert vacuum["purged"] == 0 and vacuum["bytes_after"] > 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["review", "--stale-days", "0"], "stale_days"),
        (["review", "--limit", "100000"], "limit"),
        (["import", "/nonexistent/file.json"], "cannot read"),
    ],
)
def test_bad_ops_input_exits_1_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["add", "a memory, so that the database exists"]) == 0  # a missing one is refused first
    capsys.readouterr()
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("memwarden: ") and message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv", [["import"], ["restore"], ["import", "f", "--format", "csv"], ["review", "--stale-days", "x"]]
)
def test_ops_usage_errors_exit_2(argv: list[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2


def test_export_import_round_trip_and_refusals(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, db_path: Path
) -> None:
    _add(capsys, "exported memory one", "exported memory two")
    out = tmp_path / "export.json"
    assert main(["export", "--out", str(out)]) == 0
    capsys.readouterr()
    assert json.loads(out.read_text())["count"] == 2
    assert main(["export", "--out", str(out)]) == 1
    assert "exists" in capsys.readouterr().err
    assert main(["export"]) == 0
    assert json.loads(capsys.readouterr().out)["count"] == 2
    again = run_json(capsys, "import", str(out))
    assert again["inserted"] == 0 and again["skipped_same_id"] == 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "memwarden.export", "version": 9, "memories": []}')
    assert main(["import", str(bad)]) == 1
    assert "version 9 is not supported" in capsys.readouterr().err


def test_export_and_audit_export_name_a_bad_out_path_and_leave_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _add(capsys, "a memory to export")
    missing = tmp_path / "no-such-folder" / "x.json"
    for argv in (["export", "--out", str(missing)], ["audit", "export", "--out", str(missing)]):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert f"folder {missing.parent} does not exist" in err and "unexpected" not in err
    assert main(["export", "--out", str(tmp_path)]) == 1
    assert "is a folder" in capsys.readouterr().err
    assert not missing.parent.exists()
    assert [p.name for p in tmp_path.iterdir() if "partial" in p.name] == []


def test_a_failed_export_leaves_no_file_under_the_asked_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memwarden.ops.operations import Operations

    _add(capsys, "a memory to export")

    def broken(self: object, handle: object, **_: object) -> int:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Operations, "export_to", broken)
    out = tmp_path / "export.json"
    assert main(["export", "--out", str(out)]) == 1
    assert f"cannot write {out}: No space left on device; nothing was written" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("export")) == []


def test_import_shows_a_progress_bar_on_large_files(cli_env: dict[str, str], tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_text(json.dumps([{"content": f"bulk memory {i}"} for i in range(2500)]))
    result = subprocess.run(
        [sys.executable, "-m", "memwarden", "import", str(big), "--progress"],
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "imported 2500 of 2500" in result.stdout
    assert (
        "importing [" in result.stderr and "2500/2500 100%" in result.stderr and "/s, took " in result.stderr
    )
    quiet = subprocess.run(
        [sys.executable, "-m", "memwarden", "import", str(big)],
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert quiet.returncode == 0 and "importing [" not in quiet.stderr  # not a terminal


@pytest.fixture
def served(cli_env: dict[str, str], db_path: Path) -> Iterator[tuple[str, str, dict[str, str]]]:
    conn = sqlite3.connect(db_path)  # a database that exists before the server starts
    conn.close()
    token = "ops-token-0123456789"
    env = {**cli_env, "MEMWARDEN_HTTP_TOKEN": token}
    process, port = start_http_server(env)
    try:
        yield f"http://127.0.0.1:{port}", token, env
    finally:
        stop_http_server(process)


def test_deep_healthz_needs_the_token_and_health_url_probes_the_server(
    served: tuple[str, str, dict[str, str]], cli_env: dict[str, str]
) -> None:
    url, token, env = served
    assert httpx.get(f"{url}/healthz").json()["status"] == "ok"
    assert httpx.get(f"{url}/healthz", params={"deep": "1"}).status_code == 401
    deep = httpx.get(f"{url}/healthz", params={"deep": "1"}, headers={"Authorization": f"Bearer {token}"})
    assert deep.status_code == 200 and deep.json()["checks"]["keyword_index"]["ok"] is True
    probe = subprocess.run(
        [sys.executable, "-m", "memwarden", "health", "--url", url, "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert probe.returncode == 0, probe.stderr
    assert json.loads(probe.stdout)["status"] == "ok"
    no_token = subprocess.run(
        [sys.executable, "-m", "memwarden", "health", "--url", url],
        env=cli_env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert no_token.returncode == 1
    down = subprocess.run(
        [
            sys.executable,
            "-m",
            "memwarden",
            "health",
            "--url",
            f"http://127.0.0.1:{free_port()}",
            "--timeout",
            "2",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert down.returncode == 1 and "cannot reach" in down.stderr


def test_a_corrupted_database_answers_503_to_deep_health(settings: Settings, db_path: Path) -> None:
    from memwarden.app import build_service
    from memwarden.http.app import build_http_app

    seed = build_service(settings)
    for i in range(300):
        seed.memories.add(f"memory {i} " + "padding " * 40)
    seed.close()
    conn = sqlite3.connect(db_path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'memories_recent'").fetchone()[0]
    conn.close()
    raw = bytearray(db_path.read_bytes())
    page = 4096 * (root - 1)
    raw[page + 8 : page + 4096] = b"\x07" * 4088  # garble an index page: integrity_check finds it
    db_path.write_bytes(bytes(raw))
    service = build_service(settings, ops=True)
    try:

        async def probe() -> httpx.Response:
            transport = httpx.ASGITransport(app=build_http_app(service, settings))
            async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
                return await client.get("/healthz", params={"deep": "1"})

        import anyio

        response = anyio.run(probe)
        assert response.status_code == 503
        assert response.json()["status"] == "failing"
        assert response.json()["checks"]["integrity"]["problems"]
    finally:
        service.close()
