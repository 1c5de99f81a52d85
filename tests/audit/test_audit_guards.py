"""Objects memwarden did not create around its tables: a foreign trigger that drops chosen audit
rows fails the write it belongs to (nothing stored), and `audit verify` and health name every
foreign trigger, view, rule or policy (real SQLite files and a real PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from db_templates import copy_migrated

from memwarden.app import build_service
from memwarden.audit.base import AuditEvent
from memwarden.config import load_settings
from memwarden.errors import StorageError
from memwarden.service import MemoryService
from memwarden.store.audit_logs import open_audit_log, verify_database
from tests.contract.test_audit_log import raw

BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
NOW = datetime(2026, 3, 1, tzinfo=UTC)


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database at the current schema (a copy of the session's migrated one)."""
    if request.param == "sqlite":
        path = tmp_path / "memwarden.db"
        copy_migrated(request.getfixturevalue("migrated_sqlite"), path)
        return str(path)
    return str(request.getfixturevalue("pg_migrated_url"))


@pytest.fixture
def service(url: str, tmp_path: Path) -> Iterator[MemoryService]:
    settings = load_settings(db=url, log_file=str(tmp_path / "memwarden.log"), backup_dir=str(tmp_path / "b"))
    svc = build_service(settings, embeddings=False)
    yield svc
    svc.close()


def _drop_rows_of(url: str, actor: str) -> None:
    """The attack of issue 33: a BEFORE INSERT trigger that silently skips chosen audit rows."""
    if url.startswith("postgresql://"):
        raw(url)(
            "CREATE FUNCTION skip_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$"
        )
        raw(url)(
            f"CREATE TRIGGER quiet BEFORE INSERT ON audit_log FOR EACH ROW WHEN (NEW.actor = '{actor}') "
            "EXECUTE FUNCTION skip_row()"
        )
    else:
        raw(url)(
            f"CREATE TRIGGER quiet BEFORE INSERT ON audit_log WHEN NEW.actor = '{actor}' "
            "BEGIN SELECT RAISE(IGNORE); END"
        )


def _count(url: str, sql: str) -> int:
    if url.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(url) as conn:
            row = conn.execute(sql).fetchone()  # type: ignore[arg-type]
    else:
        import sqlite3

        conn = sqlite3.connect(url)
        try:
            row = conn.execute(sql).fetchone()
        finally:
            conn.close()
    assert row is not None
    return int(row[0])


def _guards(url: str) -> list[tuple[str, Any]]:
    return [(g.kind, g.seq) for g in verify_database(url, now=NOW).guards]


def test_a_foreign_trigger_dropping_audit_rows_fails_the_write_and_stores_nothing(
    service: MemoryService, url: str
) -> None:
    from memwarden.models import Caller

    kept = service.memories.add("the renewal is due in March").memory.id
    _drop_rows_of(url, "mallory")
    memories, rows = (
        _count(url, "SELECT COUNT(*) FROM memories"),
        _count(url, "SELECT COUNT(*) FROM audit_log"),
    )
    with pytest.raises(StorageError, match="was not stored although the INSERT reported no error"):
        service.memories.add("mallory was here", caller=Caller("mallory", "default"))
    assert _count(url, "SELECT COUNT(*) FROM memories") == memories  # the memory rolled back with it
    assert _count(url, "SELECT COUNT(*) FROM audit_log") == rows
    other = service.memories.add("another ordinary fact")  # other actors' rows still land
    assert other.memory.id != kept
    report = verify_database(url, now=NOW)
    assert report.problems == [] and not report.ok and report.state == "not_verified"
    assert [(g.kind, g.seq) for g in report.guards] == [("foreign", "quiet")]
    assert "BEFORE INSERT" in report.guards[0].message and "audit_log" in report.guards[0].message
    assert "NOT VERIFIED" in report.summary() and "append-only guard" in report.summary()
    health = service.operations.health(repair=False)
    assert health["status"] != "ok"
    found = health["checks"]["audit_guards"]
    assert found["ok"] is False and [(f["name"], f["state"], f["table"]) for f in found["findings"]] == [
        ("quiet", "foreign", "audit_log")
    ]


def test_a_direct_append_refuses_when_its_row_is_skipped(url: str, service: MemoryService) -> None:
    _drop_rows_of(url, "mallory")
    log = open_audit_log(url)
    try:
        head = log.head()
        with pytest.raises(StorageError, match="audit row seq"):
            log.append(AuditEvent(actor="mallory", tenant="t", action="get"), NOW)
        assert log.head() == head
        assert log.append(AuditEvent(actor="alice", tenant="t", action="get"), NOW).seq == head.seq + 1
    finally:
        log.close()


def test_an_untouched_database_has_no_findings(service: MemoryService, url: str) -> None:
    service.memories.add("a plain fact to audit")
    assert _guards(url) == []
    assert service.operations.health(repair=False)["checks"]["audit_guards"] == {
        "ok": True,
        "state": "ok",
        "findings": [],
    }


def test_a_foreign_trigger_on_the_memories_table_and_a_view_are_named(
    service: MemoryService, url: str
) -> None:
    service.memories.add("a plain fact to audit")
    run = raw(url)
    if url.startswith("postgresql://"):
        run("CREATE FUNCTION nothing() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$")
        run("CREATE TRIGGER watch AFTER INSERT ON memories FOR EACH ROW EXECUTE FUNCTION nothing()")
    else:
        run("CREATE TRIGGER watch AFTER INSERT ON memories BEGIN SELECT 1; END")
    run("CREATE VIEW quiet_log AS SELECT seq, actor FROM audit_log WHERE actor <> 'mallory'")
    assert _guards(url) == [("foreign", "watch"), ("foreign", "quiet_log")]
    findings = service.operations.health(repair=False)["checks"]["audit_guards"]["findings"]
    assert [(f["kind"], f["table"]) for f in findings] == [("trigger", "memories"), ("view", "audit_log")]


def test_a_memwarden_trigger_replaced_by_a_harmless_one_is_changed(service: MemoryService, url: str) -> None:
    service.memories.add("a plain fact to audit")
    if url.startswith("postgresql://"):
        raw(url)(
            "CREATE OR REPLACE FUNCTION audit_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN OLD; END $$"
        )
        assert sorted(name for _, name in _guards(url)) == [
            "audit_checkpoints_no_delete",
            "audit_checkpoints_no_truncate",
            "audit_checkpoints_no_update",
            "audit_head_no_delete",
            "audit_head_no_truncate",
            "audit_log_no_truncate",
            "audit_log_no_update",
        ]
    else:
        raw(url)("DROP TRIGGER memories_purged")
        raw(url)("CREATE TRIGGER memories_purged AFTER DELETE ON memories BEGIN SELECT 1; END")
        assert _guards(url) == [("unguarded", "memories_purged")]


@pytest.mark.postgres
def test_rules_policies_and_row_security_are_named_on_postgresql(pg_url: str, tmp_path: Path) -> None:
    settings = load_settings(db=pg_url, log_file=str(tmp_path / "l.log"), backup_dir=str(tmp_path / "b"))
    svc = build_service(settings, embeddings=False)
    try:
        svc.memories.add("a plain fact to audit")
        raw(pg_url)(
            "CREATE RULE swallow AS ON INSERT TO audit_log WHERE NEW.actor = 'mallory' DO INSTEAD NOTHING"
        )
        raw(pg_url)("CREATE POLICY hide ON audit_log USING (actor <> 'mallory')")
        raw(pg_url)("ALTER TABLE audit_log ENABLE ROW LEVEL SECURITY")
        assert _guards(pg_url) == [("foreign", "swallow"), ("foreign", "hide"), ("foreign", "audit_log")]
        kinds = [
            f["state"] for f in svc.operations.health(repair=False)["checks"]["audit_guards"]["findings"]
        ]
        assert kinds == ["foreign", "foreign", "row_security"]
        from memwarden.models import Caller

        with pytest.raises(StorageError, match="was not stored"):  # the rule swallows the row: refused
            svc.memories.add("mallory was here", caller=Caller("mallory", "default"))
    finally:
        svc.close()


@pytest.mark.postgres
def test_a_session_replication_role_set_on_the_database_is_named(pg_url: str, tmp_path: Path) -> None:
    from memwarden.store import open_store

    open_store(pg_url).close()
    raw(pg_url)(
        "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET session_replication_role = replica', "
        "current_database()); END $$"
    )
    assert ("foreign", "replica") in _guards(pg_url)  # no trigger fires in memwarden's sessions
    log = open_audit_log(pg_url)
    try:  # the append's own check sees the head did not move
        with pytest.raises(StorageError, match="head did not move"):
            log.append(AuditEvent(actor="alice", tenant="t", action="get"), NOW)
    finally:
        log.close()


def test_health_names_the_guard_problem_with_the_word_verify_uses(service: MemoryService, url: str) -> None:
    """Second attack round (issue 33 item 6): health said ``changed`` for a foreign trigger that
    verify calls ``foreign``; the two reports must tell the same story."""
    service.memories.add("a plain fact to audit")
    _drop_rows_of(url, "mallory")
    assert _guards(url) == [("foreign", "quiet")]
    assert service.operations.health(repair=False)["checks"]["audit_guards"]["state"] == "foreign"
    if url.startswith("postgresql://"):
        raw(url)("ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update")
    else:
        raw(url)("DROP TRIGGER audit_log_no_update")
    kinds = {kind for kind, _ in _guards(url)}
    assert kinds == {"foreign", "unguarded"}
    assert service.operations.health(repair=False)["checks"]["audit_guards"]["state"] == "unguarded"


@pytest.mark.postgres
def test_a_memwarden_trigger_whose_when_condition_never_holds_is_changed_on_postgresql(
    pg_url: str, tmp_path: Path
) -> None:
    """Second attack round (issue 33 item 6): memwarden's audit_log_memory_writes recreated with
    ``WHEN (NEW.action IN ('nothing'))`` stopped indexing memory writes while verify said intact
    (the WHEN condition was compared only for being there)."""
    settings = load_settings(db=pg_url, log_file=str(tmp_path / "m.log"), backup_dir=str(tmp_path / "b"))
    svc = build_service(settings, embeddings=False)
    try:
        svc.memories.add("a plain fact to audit")
        assert _guards(pg_url) == []
        raw(pg_url)("DROP TRIGGER audit_log_memory_writes ON audit_log")
        raw(pg_url)(
            "CREATE TRIGGER audit_log_memory_writes AFTER INSERT ON audit_log FOR EACH ROW"
            " WHEN (NEW.action IN ('nothing')) EXECUTE FUNCTION audit_memory_writes_add()"
        )
        assert _guards(pg_url) == [("unguarded", "audit_log_memory_writes")]
        findings = svc.operations.health(repair=False)["checks"]["audit_guards"]["findings"]
        assert [(f["name"], f["state"]) for f in findings] == [("audit_log_memory_writes", "changed")]
    finally:
        svc.close()


def test_rows_deleted_from_the_memory_writes_index_are_named_by_verify(
    service: MemoryService, url: str
) -> None:
    """Second attack round (issue 33 item 6): deleting a memory's rows from audit_memory_writes
    hid its audited history from its page while verify said intact."""
    kept = service.memories.add("the renewal is due in March").memory.id
    service.memories.add("another ordinary fact")
    assert _guards(url) == []
    raw(url)(f"DELETE FROM audit_memory_writes WHERE memory_id = '{kept}'")
    report = verify_database(url, now=NOW)
    assert report.problems == [] and report.state == "not_verified"
    assert [(g.kind, g.seq) for g in report.guards] == [("index_edited", "audit_memory_writes")]
    assert "1 missing, 0 extra" in report.guards[0].message
    assert "audit_memory_writes) was edited" in report.summary()


def test_a_write_pinned_on_another_memory_in_the_index_is_named_by_verify(
    service: MemoryService, url: str
) -> None:
    first = service.memories.add("the renewal is due in March").memory.id
    service.memories.add("another ordinary fact")
    raw(url)(
        f"INSERT INTO audit_memory_writes (memory_id, seq) SELECT 'someone-else', seq FROM audit_memory_writes WHERE memory_id = '{first}'"
    )
    assert [(g.kind, g.seq) for g in verify_database(url, now=NOW).guards] == [
        ("index_edited", "audit_memory_writes")
    ]


def test_the_index_check_looks_each_index_row_up_by_the_logs_key(
    tmp_path: Path, migrated_sqlite: Path
) -> None:
    """Verify reads the whole log; the index check must not read it once per index row (a join
    SQLite planned as a scan of the index for each log row made verify quadratic in the log)."""
    import json
    import sqlite3

    from memwarden.audit.guards import INDEX_MISMATCH_SQL
    from memwarden.store.sqlite.audit_guards import _WRITES

    path = tmp_path / "memwarden.db"
    copy_migrated(migrated_sqlite, path)
    settings = load_settings(db=str(path), log_file=str(tmp_path / "memwarden.log"), embedder="none")
    svc = build_service(settings, ops=True)
    try:
        notes = [
            {"content": f"ordinary fact number {n} about the plan", "scope": f"p{n % 7}"} for n in range(30)
        ]
        assert svc.operations is not None
        svc.operations.import_text(json.dumps(notes), fmt="memorry")
    finally:
        svc.close()
    with sqlite3.connect(path) as conn:
        conn.execute("ANALYZE")  # the statistics SQLite plans with once a database has grown
        sql = "EXPLAIN QUERY PLAN " + INDEX_MISMATCH_SQL.format(writes=_WRITES)
        plan = [row[3] for row in conn.execute(sql)]
    assert not any(step.startswith("SCAN a USING COVERING INDEX") for step in plan), plan
    assert any(step.startswith("SEARCH a USING INTEGER PRIMARY KEY") for step in plan), plan
    assert verify_database(str(path), now=NOW).guards == []


@pytest.mark.postgres
def test_a_memwarden_trigger_function_given_definer_rights_or_a_search_path_is_changed(
    pg_url: str, tmp_path: Path
) -> None:
    """Second attack round (issue 33 item 6): ALTER FUNCTION … SECURITY DEFINER or SET
    search_path on a guard's function kept its body, so verify said intact."""
    settings = load_settings(db=pg_url, log_file=str(tmp_path / "m.log"), backup_dir=str(tmp_path / "b"))
    svc = build_service(settings, embeddings=False)
    try:
        svc.memories.add("a plain fact to audit")
        raw(pg_url)("ALTER FUNCTION audit_log_chain() SET search_path = pg_temp, public")
        assert ("unguarded", "audit_log_chain") in _guards(pg_url)
        raw(pg_url)("ALTER FUNCTION audit_log_chain() RESET ALL")
        assert _guards(pg_url) == []
        raw(pg_url)("ALTER FUNCTION audit_log_chain() SECURITY DEFINER")
        assert _guards(pg_url) == [("unguarded", "audit_log_chain")]
    finally:
        svc.close()
