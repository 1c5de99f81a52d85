"""Values echoed back into files, rows and logs are redacted whole, before any cut: the filters of
`audit export`, a refused `occurred_at`, and over-long titles and tags of imported files (a
real SQLite file, the real command in a subprocess)."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cli_runner import CliResult, run_in_process

from memwarden.audit.base import AuditEvent
from memwarden.errors import InvalidInput
from memwarden.service import MemoryService
from memwarden.store.audit_logs import open_audit_log
from memwarden.store.sqlite import SQLiteStore
from memwarden.validation import check_occurred_at

EMAIL = "alice.smith@example.com"
CARD = "4111 1111 1111 1111"  # the test number of every card network, written in groups
IBAN = "DE89 3704 0044 0532 0130 00"  # the example IBAN of the German registry entry


def run(env: dict[str, str], *args: str) -> CliResult:
    """The command run in this process (tests/cli_runner.py): this file tests what it does."""
    return run_in_process(env, *args)


def test_audit_export_keeps_its_filters_out_of_the_file_and_its_own_row(
    cli_env: dict[str, str], db_path: Path, tmp_path: Path
) -> None:
    SQLiteStore(db_path).close()
    log = open_audit_log(str(db_path))
    try:
        for actor in (EMAIL, "bob"):
            log.append(AuditEvent(actor=actor, tenant="acme", action="get"), datetime.now(UTC))
    finally:
        log.close()
    out = tmp_path / "audit.json"
    done = run(cli_env, "audit", "export", "--actor", EMAIL, "--tenant", "acme", "--out", str(out))
    assert done.returncode == 0, done.stderr
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert exported["count"] == 1 and exported["records"][0]["actor"] == EMAIL  # the filter applied
    assert exported["filters"] == {"from": None, "to": None, "tenant": "acme", "actor": "[REDACTED:email]"}
    log = open_audit_log(str(db_path), readonly=True)
    try:
        own = list(log.records())[-1]
    finally:
        log.close()
    assert own.action == "export" and "example.com" not in str(own.detail)
    assert json.loads(own.detail)["actor"] == "[REDACTED:email]"


@pytest.mark.parametrize(
    "value",
    [
        f"{EMAIL} wrote this, not a date at all",
        f"on 2024-01-01 the card {CARD} was charged",
        "x" * 35 + EMAIL,  # the old cut at 40 kept "alice"
    ],
)
def test_a_refused_occurred_at_echoes_no_part_of_its_value(value: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        check_occurred_at(value, now=datetime.now(UTC))
    message = refused.value.message
    assert "occurred_at" in message and "ISO 8601" in message and f"{len(value)} characters" in message
    for part in ("alice", "example", "4111", "1111", "xxxx"):
        assert part not in message


def test_a_refused_occurred_at_reaches_no_log_or_row(service: MemoryService, settings: object) -> None:
    with pytest.raises(InvalidInput) as refused:
        service.memories.add("met the supplier", occurred_at="x" * 35 + EMAIL)
    assert "alice" not in str(refused.value)
    log_file = Path(str(getattr(settings, "log_file")))  # noqa: B009
    assert not log_file.exists() or "alice" not in log_file.read_text(encoding="utf-8")


def test_over_long_imported_titles_and_tags_are_redacted_before_they_are_cut(
    service: MemoryService, db_path: Path
) -> None:
    entity = {
        "type": "entity",
        "name": "x" * 285 + " card " + CARD,  # cut first at 300, "4111 1111" would stay
        "entityType": "t" * 50 + " iban " + IBAN,  # cut first at 64, "DE89 3704" would stay
        "observations": ["paid the invoice"],
    }
    report = service.operations.import_text(json.dumps(entity) + "\n")
    assert report["inserted"] == 1
    (memory,) = service.memories.list(limit=5)
    assert memory.title == "x" * 285 + " card"
    assert memory.tags == ("t" * 50 + " iban",)
    assert "[REDACTED:payment_card]" in memory.content
    stored = db_path.read_bytes() + Path(f"{db_path}-wal").read_bytes()
    # In the file's bytes, the values as a leak would hold them: groups with their separator or
    # run together. Four digits alone are not looked for there: audit digests (hex) and ids can
    # hold any four digits, and did once in a hundred runs.
    for value in (b"4111 1111", b"41111111", b"DE89 3704", b"DE893704", b"3704 0044", b"0532 0130"):
        assert value not in stored
    # A single group is a leak as an index term or inside a stored field.
    with sqlite3.connect(db_path) as conn:
        assert conn.execute(
            "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH '\"paid\"'"
        ).fetchone() == (1,)
        for group in ("4111", "3704", "DE89", "de89", "0532"):
            term = conn.execute(
                "SELECT count(*) FROM memories_fts WHERE memories_fts MATCH ?", (f'"{group}"',)
            )
            assert term.fetchone() == (0,), group
            fields = conn.execute(
                "SELECT count(*) FROM memories WHERE instr(coalesce(title, '') || content || tags, ?) > 0",
                (group,),
            )
            assert fields.fetchone() == (0,), group


def test_imported_values_that_fit_are_checked_whole(service: MemoryService) -> None:
    """A tag that fits is not cut or rewritten: a rule that matches it refuses it downstream."""
    from memwarden.ops.importers import read_records

    _, records = read_records(
        json.dumps({"type": "entity", "name": "Dana", "entityType": f"card {CARD}", "observations": ["o"]})
    )
    assert records[0].tags == (f"card {CARD}",)
    with pytest.raises(InvalidInput):
        service.operations.import_text(
            json.dumps(
                {"type": "entity", "name": "Dana", "entityType": f"card {CARD}", "observations": ["o"]}
            )
        )


def test_every_audit_export_redacts_the_filters_it_echoes(db_path: Path) -> None:
    """``write_rows`` is what the dashboard's export calls too: its echo is redacted by default."""
    import io

    from memwarden.audit.export import write_rows

    SQLiteStore(db_path).close()
    log = open_audit_log(str(db_path))
    try:
        log.append(AuditEvent(actor=EMAIL, tenant="acme", action="get"), datetime.now(UTC))
        out = io.StringIO()
        assert write_rows(out, log, "json", {"actor": EMAIL, "tenant": "acme"}, actor=EMAIL) == 1
    finally:
        log.close()
    exported = json.loads(out.getvalue())
    assert exported["filters"] == {"actor": "[REDACTED:email]", "tenant": "acme"}
    assert exported["records"][0]["actor"] == EMAIL
