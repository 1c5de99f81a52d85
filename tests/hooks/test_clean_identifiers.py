"""Project names the redaction rules found clean, remembered between hook processes
(memwarden/clean_identifiers.py): never for a name a rule matches, and forgotten when the rule
set changes (mode, rule pack, the built-in rules' files)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memwarden import clean_identifiers
from memwarden.clean_identifiers import FILE_NAME, CleanIdentifiers
from memwarden.config import load_settings
from memwarden.errors import InvalidInput
from memwarden.hooks.commands import run_hook
from memwarden.hooks.sessions import open_existing_service
from memwarden.service import MemoryService
from memwarden.settings_reader import load_hot_settings

PACK = {"rules": [{"name": "codename", "pattern": r"\bbluebird\b", "description": "the project's codename"}]}


def prompt(text: str, cwd: Path) -> str:
    return json.dumps(
        {
            "session_id": "s1",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": str(cwd),
            "hook_event_name": "UserPromptSubmit",
            "prompt": text,
        }
    )


def hook(db: Path, text: str, cwd: Path, project: str) -> str:
    out = io.StringIO()
    assert (
        run_hook("prompt", project=project, db=str(db), stdin=io.StringIO(prompt(text, cwd)), stdout=out) == 0
    )
    return out.getvalue()


def test_a_name_the_rules_found_clean_is_known_to_the_next_process_and_only_under_the_same_rules(
    tmp_path: Path,
) -> None:
    memo = CleanIdentifiers(str(tmp_path / FILE_NAME), "enforce", "")
    assert not memo.holds("acme")
    memo.remember("acme")
    assert memo.holds("acme")
    assert CleanIdentifiers(str(tmp_path / FILE_NAME), "enforce", "").holds("acme")
    assert not CleanIdentifiers(str(tmp_path / FILE_NAME), "enforce", "").holds("globex")
    assert not CleanIdentifiers(str(tmp_path / FILE_NAME), "dry-run", "").holds("acme")
    assert "acme" not in (tmp_path / FILE_NAME).read_text(encoding="utf-8")  # digests, never names
    assert (tmp_path / FILE_NAME).stat().st_mode & 0o077 == 0


def test_a_changed_rule_pack_or_builtin_rule_file_forgets_every_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = tmp_path / "pack.json"
    pack.write_text(json.dumps(PACK), encoding="utf-8")
    path = str(tmp_path / FILE_NAME)
    CleanIdentifiers(path, "enforce", str(pack)).remember("acme")
    assert CleanIdentifiers(path, "enforce", str(pack)).holds("acme")
    assert not CleanIdentifiers(path, "enforce", "").holds("acme")
    pack.write_text(json.dumps({"rules": [{**PACK["rules"][0], "pattern": r"\bacme\b"}]}), encoding="utf-8")
    assert not CleanIdentifiers(path, "enforce", str(pack)).holds("acme")

    rules = tmp_path / "govern"
    rules.mkdir()
    (rules / "builtin_rules.py").write_text("RULES = 1\n", encoding="utf-8")
    monkeypatch.setattr(clean_identifiers, "_GOVERN", str(rules))
    CleanIdentifiers(path, "enforce", "").remember("acme")
    assert CleanIdentifiers(path, "enforce", "").holds("acme")
    (rules / "builtin_rules.py").write_text("RULES = 22\n", encoding="utf-8")
    assert not CleanIdentifiers(path, "enforce", "").holds("acme")


def test_an_unreadable_pack_gives_no_memo_and_the_rules_report_it(tmp_path: Path) -> None:
    memo = CleanIdentifiers(str(tmp_path / FILE_NAME), "enforce", str(tmp_path / "missing.json"))
    memo.remember("acme")
    assert not memo.holds("acme")
    assert not (tmp_path / FILE_NAME).exists()


def test_a_damaged_or_unwritable_memo_only_means_checking_again(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    path.write_bytes(b"\xff\xfe not a memo\n")
    memo = CleanIdentifiers(str(path), "enforce", "")
    assert not memo.holds("acme")
    memo.remember("acme")
    assert CleanIdentifiers(str(path), "enforce", "").holds("acme")
    folder = tmp_path / "nowhere" / "here"
    stuck = CleanIdentifiers(str(folder / FILE_NAME), "enforce", "")
    stuck.remember("acme")  # the folder does not exist: nothing raised, nothing written
    assert not folder.exists()


def test_the_memo_is_replaced_when_it_is_full(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(clean_identifiers, "MAX_NAMES", 3)
    path = str(tmp_path / FILE_NAME)
    for name in ("a1", "a2", "a3", "a4"):
        CleanIdentifiers(path, "enforce", "").remember(name)
    assert len((tmp_path / FILE_NAME).read_text(encoding="utf-8").splitlines()) == 2  # fingerprint, a4
    again = CleanIdentifiers(path, "enforce", "")
    assert again.holds("a4") and not again.holds("a1")
    assert [p.name for p in tmp_path.iterdir()] == [FILE_NAME]


def test_a_project_name_a_rule_matches_is_refused_every_time_and_never_remembered(
    service: MemoryService, db_path: Path, tmp_path: Path
) -> None:
    settings = load_hot_settings(db=str(db_path))
    secret = "alice@example.com"
    for _ in range(2):
        opened = open_existing_service(settings)
        try:
            with pytest.raises(InvalidInput):
                opened.intake.clean_project(secret)
            assert opened.intake.redact_text(secret) != secret
        finally:
            opened.close()
    assert not CleanIdentifiers.for_settings(settings).holds(secret)


def test_the_hook_gives_the_same_answer_with_the_memo_and_loads_no_rules_the_second_time(
    service: MemoryService, db_path: Path, tmp_path: Path
) -> None:
    service.memories.add("The Acme client prefers email over phone calls", project="acme")
    first = hook(db_path, "email the Acme client", tmp_path, "acme")
    assert "prefers email" in first
    assert (Path(db_path).parent / FILE_NAME).exists()
    code = (
        "import io, sys; from memwarden.hooks.commands import run_hook; "
        f"sys.stdin = io.StringIO({prompt('email the Acme client', tmp_path)!r}); "
        f"run_hook('prompt', project='acme', db={str(db_path)!r}); "
        "print(sorted(m for m in sys.modules if m.startswith('memwarden.govern.')))"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMWARDEN_")}
    env["MEMWARDEN_DAEMON"] = "off"
    env["MEMWARDEN_LOG_FILE"] = str(tmp_path / "memwarden.log")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    output, loaded = done.stdout.strip().splitlines()
    assert output == first.strip()
    assert loaded == "[]"


def test_with_a_pack_that_protects_the_project_name_the_hook_refuses_it_though_it_was_clean_before(
    service: MemoryService, db_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service.memories.add("The bluebird launch moved to spring", project="bluebird")
    assert "launch moved" in hook(db_path, "when is the bluebird launch", tmp_path, "bluebird")
    pack = tmp_path / "pack.json"
    pack.write_text(json.dumps(PACK), encoding="utf-8")
    monkeypatch.setenv("MEMWARDEN_REDACTION_RULES", str(pack))
    monkeypatch.setenv("MEMWARDEN_LOG_FILE", str(tmp_path / "memwarden.log"))
    assert load_settings(db=str(db_path)).redaction_rules == str(pack)
    assert hook(db_path, "when is the bluebird launch", tmp_path, "bluebird") == ""
    assert "codename" in (tmp_path / "memwarden.log").read_text(encoding="utf-8")
