"""context, thread and occurred_at on the other surfaces: the CLI, export/import, the vault."""

from __future__ import annotations

import io
import json
import os
from datetime import UTC, datetime
from pathlib import Path

import jsonschema
import pytest

from memwarden.app import build_service
from memwarden.cli.main import main
from memwarden.config import load_settings
from memwarden.service import MemoryService
from tests.vault_helpers import notes, read_note

DOCS = Path(__file__).resolve().parents[1] / "docs"


def _service(tmp_path: Path, name: str, **settings: object) -> MemoryService:
    return build_service(
        load_settings(
            db=str(tmp_path / f"{name}.db"),
            log_file=str(tmp_path / "log"),
            backup_dir=str(tmp_path / "bk"),
            export_dir=str(tmp_path / "x"),
            embedder="none",
            **settings,
        ),
        ops=True,
    )


def test_cli_adds_updates_and_shows_context_thread_and_time(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str]
) -> None:
    for key, value in cli_env.items():
        if key.startswith("MEMWARDEN_"):
            monkeypatch.setenv(key, value)
    assert (
        main(
            [
                "add",
                "A blue bowl",
                "--context",
                "What did you make in pottery class?",
                "--thread",
                "s1",
                "--occurred-at",
                "2023-05-08T13:56:00Z",
                "--json",
            ]
        )
        == 0
    )
    added = json.loads(capsys.readouterr().out)
    assert added["memory"]["thread"] == "s1" and "context" not in added["memory"]
    assert main(["search", "pottery", "--include-context", "--json"]) == 0
    hit = json.loads(capsys.readouterr().out)["hits"][0]
    assert hit["id"] == added["id"] and hit["context"] == "What did you make in pottery class?"
    assert main(["get", added["id"], "--include-context"]) == 0
    assert "context: What did you make in pottery class?" in capsys.readouterr().out
    assert main(["update", added["id"], "--context", "", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["memory"]["version"] == 2
    assert main(["add", "bad time", "--occurred-at", "yesterday-ish"]) == 1
    refused = capsys.readouterr().err
    assert "occurred_at is not an ISO 8601" in refused and "yesterday-ish" not in refused  # never echoed
    assert main(["stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["memories"] == 1


def test_export_carries_the_fields_and_import_restores_and_redacts_them(tmp_path: Path) -> None:
    source = _service(tmp_path, "source")
    target = _service(tmp_path, "target")
    try:
        added = source.memories.add(
            "A blue bowl",
            project="chat",
            context="pottery class?",
            thread="s1",
            occurred_at="2023-05-08T13:56:00Z",
        ).memory
        buffer = io.StringIO()
        source.operations.export_to(buffer)
        document = json.loads(buffer.getvalue())
        jsonschema.validate(
            document, json.loads((DOCS / "export-format.schema.json").read_text(encoding="utf-8"))
        )
        record = document["memories"][0]
        assert (record["context"], record["thread"], record["occurred_at"]) == (
            "pottery class?",
            "s1",
            "2023-05-08T13:56:00.000000Z",
        )
        record["context"] = "call me at bo@example.com"
        assert target.operations.import_text(json.dumps(document))["inserted"] == 1
        imported = target.memories.get([added.id])[0][0]
        assert imported.thread == "s1" and imported.occurred == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
        assert "bo@example.com" not in imported.context and "[REDACTED" in imported.context
        record["thread"] = "bad\x01thread"
        record["id"] = "01JD3Z5X9Q2W8E7R6T5Y4V3K2M"
        with pytest.raises(Exception, match="thread may not contain U\\+0001"):
            target.operations.import_text(json.dumps(document))
        assert target.memories.stats()["memories"] == 1
    finally:
        source.close()
        target.close()


def test_vault_frontmatter_shows_thread_time_and_context(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    service = _service(tmp_path, "v", vault_dirs=os.pathsep.join([str(vault)]))
    try:
        memory = service.memories.add(
            "A blue bowl",
            context='She asked: "what did you make?"',
            thread="chat/s1",
            occurred_at="2023-05-08T13:56:00Z",
        ).memory
        plain = service.memories.add("No thread here").memory
        assert service.operations.vault_flush(10.0)
        found = notes(vault)
        front, _ = read_note(found[memory.id])
        assert front["thread"] == "chat/s1" and front["context"] == 'She asked: "what did you make?"'
        assert front["occurred"] == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
        plain_front, _ = read_note(found[plain.id])
        assert {"thread", "context", "occurred"}.isdisjoint(plain_front)
    finally:
        service.close()
