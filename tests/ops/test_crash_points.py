"""kill -9 in the middle of a restore, a migration and a vault sync; two servers on one file;
the -shm file deleted under a running server (issue 14). Real processes, real files.

A killed operation must leave the old state or the new one, never a mix, and a database that
passes ``integrity_check``. Each kill test tries several delays (bounded), so some kills land
before, some during and some after the work; every one must hold.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

import anyio
import httpx
from anyio.from_thread import start_blocking_portal
from http_servers import free_port, wait_for_http
from mcp import Client

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.store.sqlite.migrations import MIGRATIONS
from tests.store.test_reindex_migration import _old_database

DELAYS = (0.0, 0.4, 0.9, 1.6, 2.5)


def _env(cli_env: dict[str, str], db: Path, **extra: str) -> dict[str, str]:
    return {**cli_env, "MEMWARDEN_DB": str(db), "MEMWARDEN_BACKUP_KEEP": "0", **extra}


def _kill_after(args: list[str], env: dict[str, str], delay: float) -> int | None:
    """Start ``memwarden ARGS``, SIGKILL it after ``delay`` s; its exit code if it finished first."""
    process = subprocess.Popen(
        [sys.executable, "-m", "memwarden", *args],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        return process.wait(timeout=delay) if delay else None
    except subprocess.TimeoutExpired:
        return None
    finally:
        if process.poll() is None:
            os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)


def _state(db: Path) -> tuple[str, set[str], int]:
    with closing(sqlite3.connect(db)) as conn:
        integrity = str(conn.execute("PRAGMA integrity_check").fetchone()[0])
        ids = {row[0] for row in conn.execute("SELECT id FROM memories WHERE deleted_at IS NULL")}
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    return integrity, ids, version


def _copy_db(source: Path, target: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        if source.with_name(source.name + suffix).exists():
            shutil.copy(source.with_name(source.name + suffix), target.with_name(target.name + suffix))


def _import(service: Any, db: Path, contents: list[str], **fields: str) -> set[str]:
    """Write ``contents`` as one import (a few transactions, not one per memory); the live ids."""
    records = [{"content": content, **fields} for content in contents]
    service.operations.import_text(json.dumps(records), fmt="memorry")
    return _state(db)[1]


def test_kill_9_during_restore_leaves_the_old_or_the_restored_state(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    template = tmp_path / "template.db"
    settings = load_settings(db=str(template), embedder="none", backup_dir=str(tmp_path / "backups"))
    service = build_service(settings, embeddings=False, ops=True)
    restored = _import(service, template, [f"in the backup {i} " + "text " * 30 for i in range(1500)])
    assert service.operations.backups is not None
    backup = Path(service.operations.backups.backup().path)
    old = _import(service, template, [f"added after the backup {i}" for i in range(500)])
    assert len(restored) == 1500 and len(old) == 2000
    service.close()
    outcomes = []
    for n, delay in enumerate(DELAYS):
        db = tmp_path / f"live{n}.db"
        _copy_db(template, db)
        code = _kill_after(
            ["restore", str(backup), "--yes"],
            _env(cli_env, db, MEMWARDEN_BACKUP_DIR=str(tmp_path / f"b{n}")),
            delay,
        )
        integrity, ids, _ = _state(db)
        assert integrity == "ok", (delay, integrity)
        assert ids in (old, restored), f"killed after {delay} s: a mix of {len(ids)} memories"
        outcomes.append("restored" if ids == restored else "old")
        if code == 0:
            assert ids == restored
    assert "old" in outcomes  # the kills did land before the restore finished at least once


def test_kill_9_during_a_migration_leaves_the_old_or_the_new_schema(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    template = tmp_path / "old.db"
    _old_database(template, [f"Memory number {i}: the deploy window is Tuesday {i}" for i in range(3000)])
    _, before, old_version = _state(template)
    assert old_version == 1
    versions = set()
    for n, delay in enumerate(DELAYS):
        db = tmp_path / f"m{n}.db"
        _copy_db(template, db)
        _kill_after(["stats"], _env(cli_env, db), delay)
        integrity, ids, version = _state(db)
        assert integrity == "ok" and ids == before, delay
        assert version in (old_version, len(MIGRATIONS)), f"killed after {delay} s at schema {version}"
        versions.add(version)
        service = build_service(load_settings(db=str(db), embedder="none"), embeddings=False)
        try:  # whatever state the kill left, the next start finishes the job
            assert len(service.searcher.search("deploy window", limit=50).hits) == 50
            assert service.store.index_agrees()  # type: ignore[attr-defined]
        finally:
            service.close()
    assert old_version in versions


def _notes(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8") for p in folder.rglob("*.md")}


def test_kill_9_during_a_vault_sync_leaves_each_note_old_or_new(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    db, vault = tmp_path / "m.db", tmp_path / "vault"
    vault.mkdir()
    settings = load_settings(db=str(db), embedder="none", vault_dirs=str(vault))
    service = build_service(settings, embeddings=False)
    ids = sorted(
        _import(service, db, [f"vault memory {i} " + "body " * 20 for i in range(600)], project="notes")
    )
    assert len(ids) == 600
    service.operations.vault_sync()
    service.close()
    old_notes = _notes(vault)
    quiet = build_service(
        load_settings(db=str(db), embedder="none"), embeddings=False
    )  # no mirror: notes stay old
    for memory_id in ids:
        quiet.memories.update(memory_id, content=f"changed vault memory {memory_id} " + "new body " * 20)
    quiet.close()
    pristine = tmp_path / "pristine"
    shutil.copytree(vault, pristine)
    env = _env(cli_env, db, MEMWARDEN_VAULT_DIRS=str(vault))
    for delay in DELAYS[1:]:
        shutil.rmtree(vault)
        shutil.copytree(pristine, vault)
        _kill_after(["vault", "sync"], env, delay)
        killed = _notes(vault)
        assert _state(db)[0] == "ok"
        finished_notes = tmp_path / "finished"
        if not finished_notes.exists():
            shutil.copytree(vault, finished_notes)
            subprocess.run(
                [sys.executable, "-m", "memwarden", "vault", "sync"],
                check=True,
                timeout=300,
                env=_env(cli_env, db, MEMWARDEN_VAULT_DIRS=str(finished_notes)),
                capture_output=True,
            )
        new_notes = _notes(finished_notes)
        for name, text in killed.items():
            assert text in (old_notes.get(name), new_notes.get(name)), (
                f"{name} is half written after {delay} s"
            )
        assert not [p for p in vault.rglob("*") if p.is_file() and "tmp-" in p.name], (
            "a temporary file was left"
        )


def _serve(env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "memwarden", "serve", "--http", f"127.0.0.1:{port}"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for_http(f"http://127.0.0.1:{port}/healthz", process)
    return process, f"http://127.0.0.1:{port}"


def _stop(process: subprocess.Popen[str]) -> None:
    process.terminate()
    process.wait(timeout=30)
    if process.stderr:
        process.stderr.close()


def _with_client(base: str, token: str, work: Callable[[Any, Client], Any]) -> Any:
    from mcp.client.streamable_http import streamable_http_client

    with start_blocking_portal() as portal:
        http = httpx.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=60)
        with (
            portal.wrap_async_context_manager(http),
            portal.wrap_async_context_manager(
                Client(streamable_http_client(f"{base}/mcp", http_client=http))
            ) as client,
        ):
            return work(portal, client)


def test_two_servers_on_one_file_lose_no_acknowledged_write(tmp_path: Path, cli_env: dict[str, str]) -> None:
    db = tmp_path / "shared.db"
    env = _env(cli_env, db, MEMWARDEN_HTTP_TOKEN="two-servers-token-0123")
    first, first_url = _serve(env)
    second, second_url = _serve(env)
    acknowledged: list[str] = []
    try:

        def adder(label: str, url: str) -> Callable[[], None]:
            def run() -> None:
                def work(portal: Any, client: Client) -> None:
                    for i in range(60):
                        result = portal.call(
                            client.call_tool, "memory_add", {"content": f"{label} wrote {i}"}
                        )
                        assert not result.is_error, result.content
                        acknowledged.append(result.structured_content["id"])

                _with_client(url, "two-servers-token-0123", work)

            return run

        async def both() -> None:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(anyio.to_thread.run_sync, adder("first", first_url))
                tasks.start_soon(anyio.to_thread.run_sync, adder("second", second_url))

        anyio.run(both)
        assert len(acknowledged) == 120

        def search(portal: Any, client: Client) -> int:
            return int(
                portal.call(
                    client.call_tool, "memory_search", {"query": "wrote", "limit": 100}
                ).structured_content["count"]
            )

        assert _with_client(first_url, "two-servers-token-0123", search) == 100
        assert _with_client(second_url, "two-servers-token-0123", search) == 100
    finally:
        _stop(first)
        _stop(second)
    integrity, ids, _ = _state(db)
    assert integrity == "ok" and set(acknowledged) <= ids


def test_a_deleted_shm_file_under_a_running_server_is_recovered_without_a_restart(
    tmp_path: Path, cli_env: dict[str, str]
) -> None:
    """Issue 20: the -shm is deleted under a running server and another process writes (making a
    new one): the server reopens its connections once, every later call is answered and stored,
    every acknowledged write of both processes is in the file, and health says what happened."""
    db = tmp_path / "m.db"
    env = _env(cli_env, db, MEMWARDEN_HTTP_TOKEN="shm-token-0123456789")
    server, url = _serve(env)
    acknowledged: list[str] = []
    errors: list[str] = []
    try:

        def work(portal: Any, client: Client) -> None:
            for phase in range(2):
                for i in range(20):
                    result = portal.call(
                        client.call_tool, "memory_add", {"content": f"phase {phase} memory {i}"}
                    )
                    if result.is_error:
                        errors.append(" ".join(getattr(part, "text", "") for part in result.content))
                    else:
                        acknowledged.append(result.structured_content["id"])
                    if phase == 0 and i == 9:
                        db.with_name(db.name + "-shm").unlink()
                        other = subprocess.run(
                            [sys.executable, "-m", "memwarden", "add", "--json", "from another process"],
                            env=env,
                            capture_output=True,
                            text=True,
                            timeout=120,
                        )
                        assert other.returncode == 0, other.stderr
                        acknowledged.append(json.loads(other.stdout)["id"])
                found = portal.call(client.call_tool, "memory_search", {"query": "another process"})
                assert not found.is_error and found.structured_content["count"] >= 1

        _with_client(url, "shm-token-0123456789", work)
        health = httpx.get(
            f"{url}/healthz?deep=1", headers={"authorization": "Bearer shm-token-0123456789"}, timeout=60
        ).json()
        assert server.poll() is None, "the server died"
    finally:
        _stop(server)
    assert errors == []
    assert health["status"] == "ok", health
    connections = health["checks"]["connections"]
    assert connections["state"] == "reopened" and connections["reopened"][0]["cause"] == "shm_replaced"
    integrity, ids, _ = _state(db)
    assert integrity == "ok" and set(acknowledged) <= ids and len(acknowledged) == 41
