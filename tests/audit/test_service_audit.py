"""Every service operation leaves one audit row with who, what, which ids and how many."""

from __future__ import annotations

import hashlib
import json
import threading
from pathlib import Path

import pytest
from audit_rows import audit_rows

from memwarden.app import build_service
from memwarden.config import Settings, load_settings
from memwarden.errors import InvalidInput, NotFound
from memwarden.models import Caller
from memwarden.service import MemoryService
from memwarden.store.audit_logs import verify_database


def test_every_operation_records_one_row_with_its_details(service: MemoryService, db_path: Path) -> None:
    added = service.memories.add("Acme prefers email; owner jane@acme.io", project="crm")
    mid = added.memory.id
    service.searcher.search("acme", project="crm")
    service.memories.get([mid])
    service.memories.list(project="crm")
    service.memories.update(mid, content="Acme prefers phone calls")
    service.memories.stats()
    service.operations.export(project="crm")
    service.memories.delete(mid)
    log = audit_rows(db_path)
    assert [r["action"] for r in log] == [
        "add",
        "search",
        "get",
        "list",
        "update",
        "stats",
        "export",
        "delete",
    ]
    add, search = log[0], log[1]
    assert (add["actor"], add["tenant"], add["project"], add["memory_ids"]) == (
        "local",
        "default",
        "crm",
        [mid],
    )
    assert add["redaction_count"] == 1 and add["outcome"] == "ok"
    assert search["memory_ids"] == [mid] and search["result_count"] == 1 and search["degraded"] is False
    assert search["query_sha256"] == hashlib.sha256(b"acme").hexdigest() and search["query_len"] == 4
    assert search["query_plain"] is None
    assert all(r["at"].endswith("Z") for r in log)
    assert verify_database(str(db_path)).ok


def test_import_is_recorded(service: MemoryService, db_path: Path) -> None:
    export = json.dumps(service.operations.export())
    service.operations.import_text(export)
    assert audit_rows(db_path)[-1]["action"] == "import"


def test_the_query_text_is_never_stored_unless_asked(service: MemoryService, db_path: Path) -> None:
    service.searcher.search("where is the quarterly plan")
    assert b"quarterly" not in db_path.read_bytes() + Path(f"{db_path}-wal").read_bytes()


def test_plain_queries_are_stored_redacted_when_opted_in(settings: Settings, db_path: Path) -> None:
    service = build_service(load_settings(**{**settings.model_dump(), "audit_query_plain": True}))
    try:
        service.searcher.search("who owns jane@acme.io")
    finally:
        service.close()
    assert audit_rows(db_path)[-1]["query_plain"] == "who owns [REDACTED:email]"


def test_failures_are_recorded_with_their_error_code(service: MemoryService, db_path: Path) -> None:
    mine = service.memories.add("tenant one fact").memory.id
    intruder = Caller(actor="mallory", tenant="other")
    with pytest.raises(NotFound):
        service.memories.delete(mine, caller=intruder)
    with pytest.raises(InvalidInput):
        service.searcher.search("x", limit=0)
    probe, bad = audit_rows(db_path)[-2:]
    assert (probe["action"], probe["outcome"], probe["actor"], probe["tenant"]) == (
        "delete",
        "not_found",
        "mallory",
        "other",
    )
    assert probe["memory_ids"] == [mine]
    assert (bad["action"], bad["outcome"]) == ("search", "invalid_input")


def test_audit_off_records_nothing(settings: Settings, db_path: Path) -> None:
    service = build_service(load_settings(**{**settings.model_dump(), "audit": False}))
    try:
        service.memories.add("not audited")
    finally:
        service.close()
    assert audit_rows(db_path) == []


def test_concurrent_writers_never_fork_the_chain(settings: Settings, db_path: Path) -> None:
    services = [build_service(settings) for _ in range(3)]

    def work(svc: MemoryService, n: int) -> None:
        for i in range(15):
            svc.memories.add(f"worker {n} fact {i}")
            svc.searcher.search(f"fact {i}")

    threads = [threading.Thread(target=work, args=(svc, n)) for n, svc in enumerate(services)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    for svc in services:
        svc.close()
    report = verify_database(str(db_path))
    assert report.ok and report.rows == 3 * 15 * 2


def test_the_service_audit_method_records_outside_operations(service: MemoryService, db_path: Path) -> None:
    service.operations.audit("export", project="crm", result_count=3, detail={"file": "crm.json"})
    row = audit_rows(db_path)[-1]
    assert (row["action"], row["result_count"], row["detail"]) == ("export", 3, {"file": "crm.json"})


CARD = "4111111111111111"
MAIL = "jane.doe@example.org"


def _file_bytes(db_path: Path) -> bytes:
    wal = Path(f"{db_path}-wal")
    return db_path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")


def test_a_refused_write_records_no_raw_text_of_the_call(service: MemoryService, db_path: Path) -> None:
    """A write refused after the text arrived (a tag holding a card, a bad kind, a bad import
    record) records its error code, not the caller's text as if it were ids: the first argument
    of add and import is content, and the row once held its first 40 characters unredacted."""
    with pytest.raises(InvalidInput):
        service.memories.add(f"card {CARD} {MAIL}", tags=[f"x {CARD}"])
    with pytest.raises(InvalidInput):
        service.memories.add(f"card {CARD} {MAIL}", kind="not-a-kind")
    with pytest.raises(InvalidInput):
        service.operations.import_text(
            json.dumps([{"memory": f"sk_live_4eC39 {MAIL}", "categories": [f"v {CARD}"]}])
        )
    with pytest.raises(InvalidInput):
        service.operations.import_text(f'{{"content": "sk_live_4eC39 {CARD} {MAIL}"}}\n{{')  # bad JSON
    rows = audit_rows(db_path)
    assert [(r["action"], r["outcome"], r["memory_ids"]) for r in rows] == [
        ("add", "invalid_input", []),
        ("add", "invalid_input", []),
        ("import", "invalid_input", []),
        ("import", "invalid_input", []),
    ]
    raw = _file_bytes(db_path)
    for secret in (CARD, MAIL, "sk_live_4eC39"):
        assert secret.encode() not in raw
    assert verify_database(str(db_path)).ok


def test_a_malformed_id_is_recorded_redacted(service: MemoryService, db_path: Path) -> None:
    """Ids of a failed get, update or delete are recorded (probes matter); a value that is no
    id at all is the caller's text and is redacted like any other."""
    with pytest.raises(InvalidInput):
        service.memories.get([MAIL, "01JD3Z5X9Q2W8E7R6T5Y4V3K2M"])
    with pytest.raises(InvalidInput):
        service.memories.delete(CARD)
    with pytest.raises(InvalidInput):
        service.memories.update(f"{MAIL}", content="x")
    get, delete, update = audit_rows(db_path)
    assert get["memory_ids"] == ["[REDACTED:email]", "01JD3Z5X9Q2W8E7R6T5Y4V3K2M"]
    assert delete["memory_ids"] == ["[REDACTED:payment_card]"]
    assert update["memory_ids"] == ["[REDACTED:email]"]
    raw = _file_bytes(db_path)
    assert CARD.encode() not in raw and MAIL.encode() not in raw


def test_rows_recorded_outside_the_service_are_redacted(service: MemoryService, db_path: Path) -> None:
    """The dashboard's project filter, a refused file name and an error that quotes either are
    what a caller typed: the row holds them redacted (the dashboard's Memories page once wrote
    its ?project= filter into the row as sent)."""
    service.operations.audit("list", project=MAIL, detail={"via": "ui", "note": [f"card {CARD}"]})
    with pytest.raises(InvalidInput):
        service.operations.export_file(f"{MAIL}.json")
    listed, refused = audit_rows(db_path)
    assert listed["project"] == "[REDACTED:email]"
    assert listed["detail"] == {"via": "ui", "note": ["card [REDACTED:payment_card]"]}
    assert refused["outcome"] == "invalid_input"
    assert MAIL not in json.dumps(refused["detail"])
    raw = _file_bytes(db_path)
    assert CARD.encode() not in raw and MAIL.encode() not in raw
