"""``memwarden audit keygen``, ``audit verify --anchor-file`` and a prune refused after a clock
jump, as real subprocesses on a real SQLite file."""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memwarden.audit.base import AuditEvent
from memwarden.store.sqlite import SQLiteStore
from memwarden.store.sqlite.audit import SQLiteAuditLog
from tests.audit.test_audit_cli import run


def test_keygen_writes_a_private_key_once_and_refuses_without_a_target(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    nowhere = run(cli_env, "audit", "keygen")
    assert nowhere.returncode == 1 and "--out FILE" in nowhere.stderr
    key_file = tmp_path / "secrets" / "audit.key"
    made = run(cli_env, "audit", "keygen", "--out", str(key_file), "--json")
    assert made.returncode == 0, made.stderr
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert len(json.loads(made.stdout)["key_id"]) == 12
    again = run({**cli_env, "MEMWARDEN_AUDIT_KEY_FILE": str(key_file)}, "audit", "keygen")
    assert again.returncode == 1 and "never overwritten" in again.stderr


def test_verify_reports_a_keyed_chain_and_refuses_a_readable_key(
    cli_env: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    from memwarden.audit.keys import write_new_key

    key = write_new_key(tmp_path / "audit.key")
    SQLiteStore(db_path).close()
    log = SQLiteAuditLog(db_path, key=key)
    for i in range(3):
        log.append(AuditEvent(actor="a", tenant="t", action="get", result_count=i), datetime.now(UTC))
    log.close()
    without = run(cli_env, "audit", "verify")  # keyed rows, no key: nothing is vouched for
    assert without.returncode == 1 and "NOT VERIFIED" in without.stdout and "NOT checked" in without.stdout
    assert json.loads(run(cli_env, "audit", "verify", "--json").stdout)["state"] == "not_verified"
    env = {**cli_env, "MEMWARDEN_AUDIT_KEY_FILE": str(tmp_path / "audit.key")}
    keyed = run(env, "audit", "verify", "--json")
    report = json.loads(keyed.stdout)
    assert keyed.returncode == 0 and report["mode"] == "hmac-sha256" and report["key_ids"] == [key.key_id]
    assert report["unchecked_keyed_rows"] == 0
    os.chmod(tmp_path / "audit.key", 0o640)
    readable = run(env, "audit", "verify")
    assert readable.returncode == 1 and "chmod 600" in readable.stderr


def test_verify_with_the_anchor_file_catches_lost_rows(
    cli_env: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    import shutil

    from memwarden.audit.anchor import AnchorFile

    SQLiteStore(db_path).close()
    log = SQLiteAuditLog(db_path)
    log.append(AuditEvent(actor="a", tenant="t", action="get"), datetime.now(UTC))
    log.close()
    shutil.copy(db_path, tmp_path / "older.db")  # the database as it was at seq 1
    log = SQLiteAuditLog(db_path)
    rows = [log.append(AuditEvent(actor="a", tenant="t", action="get"), datetime.now(UTC)) for _ in range(3)]
    log.close()
    anchor_file = tmp_path / "anchor.json"
    AnchorFile(anchor_file).write(int(rows[-1].seq), str(rows[-1].hash), str(rows[-1].at))
    assert run(cli_env, "audit", "verify", "--anchor-file", str(anchor_file)).returncode == 0
    for suffix in ("", "-wal", "-shm"):  # the newest rows are lost, as with a damaged -wal
        Path(f"{db_path}{suffix}").unlink(missing_ok=True)
    shutil.copy(tmp_path / "older.db", db_path)
    assert run(cli_env, "audit", "verify").returncode == 0  # consistent on its own
    env = {**cli_env, "MEMWARDEN_AUDIT_ANCHOR_FILE": str(anchor_file)}
    lost = run(env, "audit", "verify")
    assert (
        lost.returncode == 1 and "rolled_back" in lost.stdout and "newest 3 acknowledged rows" in lost.stdout
    )
    missing = run(cli_env, "audit", "verify", "--anchor-file", str(tmp_path / "nope.json"))
    assert missing.returncode == 1 and "does not exist" in missing.stderr


def test_prune_after_a_clock_jump_refuses_and_removes_nothing(cli_env: dict[str, str], db_path: Path) -> None:
    SQLiteStore(db_path).close()
    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    log = SQLiteAuditLog(db_path)
    for hours in (0, 30, 10, 40):  # the clock went back from day 2 to day 1
        log.append(AuditEvent(actor="a", tenant="t", action="get"), t0 + timedelta(hours=hours))
    log.close()
    refused = run(cli_env, "audit", "prune", "--before", "2026-01-01T20:00:00Z")
    assert refused.returncode == 1 and "clock went back" in refused.stderr
    assert "--before 2026-01-01T10:00:00.000000Z" in refused.stderr
    report = json.loads(run(cli_env, "audit", "verify", "--json").stdout)
    assert report["rows"] == 5 and [j["kind"] for j in report["clock_jumps"]] == ["clock_back"]
    export = db_path.with_name("audit.json")
    assert run(cli_env, "audit", "export", "--out", str(export)).returncode == 0
    refusal = json.loads(export.read_text())["records"][4]  # the refused prune is recorded
    assert (refusal["action"], refusal["outcome"]) == ("prune", "conflict")
    done = json.loads(run(cli_env, "audit", "prune", "--before", "2026-01-01T10:00:00Z", "--json").stdout)
    assert done["pruned"] == 1 and done["checkpoint"]["upto_seq"] == 1
    after = json.loads(run(cli_env, "audit", "verify", "--json").stdout)
    assert after["ok"] and after["checkpoints"] == 1


def test_a_restore_is_recorded_in_the_restored_chain_and_moves_the_anchor_back(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    anchor_file = tmp_path / "anchor.json"
    env = {**cli_env, "MEMWARDEN_AUDIT_ANCHOR_FILE": str(anchor_file), "MEMWARDEN_ACTOR": "ops-alice"}
    assert run(env, "add", "before the backup").returncode == 0
    backup = json.loads(run(env, "backup", "--json").stdout)
    for i in range(3):
        assert run(env, "add", f"after the backup {i}").returncode == 0
    before = json.loads(run(env, "audit", "verify", "--json").stdout)["head"]
    from memwarden.audit.anchor import AnchorFile

    AnchorFile(anchor_file).write(before["seq"], before["hash"], "now")  # what a running server keeps
    restored = run(env, "restore", backup["path"], "--yes")
    assert restored.returncode == 0, restored.stderr
    assert f"the log was at seq {before['seq']} before the restore" in restored.stdout
    report = json.loads(run(env, "audit", "verify", "--json").stdout)
    assert report["ok"], report["problems"]  # the anchor followed the recorded rewind
    export = tmp_path / "audit.json"
    assert run(env, "audit", "export", "--out", str(export)).returncode == 0
    rows = json.loads(export.read_text())["records"]
    restore_row = next(r for r in rows if r["action"] == "restore")
    assert restore_row["actor"] == "ops-alice"
    assert restore_row["detail"]["previous_head"] == before
    assert restore_row["detail"]["backup"] == backup["path"]
    assert restore_row["detail"]["previous_saved_as"].endswith("-pre-restore.db")


def test_with_a_key_file_and_an_anchor_file_every_command_signs_and_anchors(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    key_file, anchor_file = tmp_path / "audit.key", tmp_path / "anchor.json"
    assert run(cli_env, "audit", "keygen", "--out", str(key_file)).returncode == 0
    env = {
        **cli_env,
        "MEMWARDEN_AUDIT_KEY_FILE": str(key_file),
        "MEMWARDEN_AUDIT_ANCHOR_FILE": str(anchor_file),
    }
    assert run(env, "add", "signed fact").returncode == 0
    assert run(env, "search", "signed").returncode == 0
    report = json.loads(run(env, "audit", "verify", "--json").stdout)
    assert report["ok"] and report["mode"] == "hmac-sha256" and report["rows"] == 2
    anchored = json.loads(anchor_file.read_text())
    assert (anchored["seq"], anchored["hash"]) == (report["head"]["seq"], report["head"]["hash"])
    assert anchored["hash"].startswith("hmac:")


def test_vacuum_refuses_on_a_clock_jump_and_force_purges(cli_env: dict[str, str], db_path: Path) -> None:
    assert run(cli_env, "add", "a fact").returncode == 0
    log = SQLiteAuditLog(db_path)  # a row from a clock that was two days ahead of this one
    log.append(AuditEvent(actor="a", tenant="t", action="get"), datetime.now(UTC) + timedelta(days=2))
    log.close()
    refused = run(cli_env, "vacuum")
    assert refused.returncode == 1 and "refusing to purge" in refused.stderr and "--force" in refused.stderr
    forced = run(cli_env, "vacuum", "--force", "--json")
    assert forced.returncode == 0 and json.loads(forced.stdout)["purged"] == 0
    health = json.loads(run(cli_env, "health", "--json").stdout)
    assert health["checks"]["clock"]["state"] == "jumped" and health["status"] == "degraded"
