"""The service redacts content and title before dedup, the keyword index and storage; it refuses
identifiers (tags, project) that hold a protected value."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from memwarden.app import build_service
from memwarden.config import Settings, load_settings
from memwarden.errors import InvalidInput
from memwarden.service import MemoryService
from memwarden.text.analyzer import Analyzer


def test_a_redacted_memory_is_found_by_business_words_but_not_by_the_original_value(
    service: MemoryService,
) -> None:
    result = service.memories.add(
        "Renewal contact for Acme is jane.doe@example.org, mobile 13800138000", project="crm"
    )
    assert result.redacted is True
    assert result.redactions == ("email", "phone_cn")
    assert result.memory.content == "Renewal contact for Acme is [REDACTED:email], mobile [REDACTED:phone_cn]"
    assert result.memory.redactions == ("email", "phone_cn")
    assert service.searcher.search("13800138000").hits == []
    assert service.searcher.search("jane.doe@example.org").hits == []
    assert [h.memory.id for h in service.searcher.search("renewal contact").hits] == [result.memory.id]


def test_the_title_is_redacted_and_a_tag_holding_a_secret_is_refused(
    service: MemoryService, db_path: Path
) -> None:
    # Issue 13: tags are identifiers, refused rather than rewritten (they used to be rewritten).
    result = service.memories.add("Billing runs monthly", title="ask jane@acme.io", tags=["ops"])
    assert result.memory.title == "ask [REDACTED:email]"
    assert set(result.redactions) == {"email"}
    with pytest.raises(InvalidInput, match="a tag holds a value redaction rule 'phone_e164' protects"):
        service.memories.add("Billing runs weekly", tags=["ops", "+44 20 7946 0958"])
    assert service.memories.stats()["memories"] == 1
    raw = db_path.read_bytes() + Path(f"{db_path}-wal").read_bytes()
    # The phone in any written form (a bare "7946" also turns up in hashes and timestamps).
    for secret in (b"jane@acme.io", b"7946 0958", b"20 7946", b"2079460958"):
        assert secret not in raw, secret


def test_redaction_runs_before_dedup(service: MemoryService) -> None:
    first = service.memories.add("The on-call phone is +44 20 7946 0958")
    second = service.memories.add("The on-call phone is +44 20 7946 0000")
    assert second.duplicate is True and second.memory.id == first.memory.id


def test_update_redacts_new_content_and_keeps_the_rule_names_current(service: MemoryService) -> None:
    memory = service.memories.add("Deploy notes for the api").memory
    assert memory.redactions == ()
    updated = service.memories.update(memory.id, content="Deploy with password=hunter2 on 10.1.2.3")
    assert updated.content == "Deploy with password=[REDACTED:secret_assignment] on [REDACTED:ipv4]"
    assert updated.redactions == ("secret_assignment", "ipv4")
    retitled = service.memories.update(memory.id, title="owner jane@acme.io")
    assert retitled.redactions == ("secret_assignment", "ipv4", "email")
    assert service.searcher.search("hunter2").hits == []


def _service(settings: Settings, **overrides: object) -> MemoryService:
    return build_service(load_settings(**{**settings.model_dump(), **overrides}))


def test_dry_run_stores_unchanged_and_reports_what_would_match(settings: Settings) -> None:
    service = _service(settings, redaction="dry-run")
    try:
        result = service.memories.add("mail jane@acme.io")
        assert result.memory.content == "mail jane@acme.io"
        assert (result.redacted, result.redactions, result.redaction_mode) == (False, ("email",), "dry-run")
        assert result.memory.redactions == ()
        assert result.to_dict()["redaction_mode"] == "dry-run"
    finally:
        service.close()


def test_off_stores_unchanged_and_reports_nothing(settings: Settings) -> None:
    service = _service(settings, redaction="off")
    try:
        result = service.memories.add("mail jane@acme.io")
        assert result.memory.content == "mail jane@acme.io"
        assert (result.redacted, result.redactions) == (False, ())
    finally:
        service.close()


def test_the_fts_index_holds_no_redacted_value(service: MemoryService, db_path: Path) -> None:
    service.memories.add("Card 4111 1111 1111 1111 belongs to the finance team")
    conn = sqlite3.connect(db_path)
    body = " ".join(r[0] for r in conn.execute("SELECT body FROM memories_fts"))
    # The index holds analyzed terms ("finance" is stemmed), so ask the analyzer for the term.
    assert "4111" not in body and Analyzer().terms("finance")[0] in body.split()
