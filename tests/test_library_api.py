"""The Python API (``memwarden.open``): docs/python.md's examples run against a real SQLite file,
the settings come from the arguments alone, and the PostgreSQL URL form works the same."""

from __future__ import annotations

import doctest
import sqlite3
from pathlib import Path

import pytest

import memwarden
from memwarden.library import GetResult

ROOT = Path(__file__).resolve().parents[1]
HOSTILE_ENVIRONMENT = {
    "MEMWARDEN_DB": "elsewhere.db",
    "MEMWARDEN_TENANT": "mallory",
    "MEMWARDEN_ACTOR": "mallory-bot",
    "MEMWARDEN_REDACTION": "off",
    "MEMWARDEN_AUDIT": "false",
    "MEMWARDEN_EMBEDDER": "openai",
    "MEMWARDEN_EMBED_URL": "http://203.0.113.9:1/v1",
    "MEMWARDEN_LANGUAGES": "klingon",
    "MEMWARDEN_MAX_CONTENT_BYTES": "10",
}


def test_the_examples_in_docs_python_md_run(tmp_path: Path) -> None:
    failures, tried = doctest.testfile(
        str(ROOT / "docs" / "python.md"),
        module_relative=False,
        globs={"folder": tmp_path},
        optionflags=doctest.ELLIPSIS,
        raise_on_error=False,
        verbose=False,
    )
    assert tried > 20
    assert failures == 0


def test_open_reads_no_setting_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for name, value in HOSTILE_ENVIRONMENT.items():
        monkeypatch.setenv(name, value)
    db = tmp_path / "mine.db"
    with memwarden.open(db) as memory:
        added = memory.add("Write to ops@example.com about the long deploy window on Tuesdays")
        found = memory.search("deploy")
        tenant = memory.stats()["tenant"]
    assert added.memory.content.endswith("[REDACTED:email] about the long deploy window on Tuesdays")
    assert (added.memory.tenant, added.memory.actor, tenant) == ("default", "local", "default")
    assert found.degrade_reason == "no_embedder"  # not the openai endpoint of the environment
    assert not (tmp_path / "elsewhere.db").exists()
    with sqlite3.connect(db) as conn:  # the audit log was kept, though MEMWARDEN_AUDIT says false
        actions = [row[0] for row in conn.execute("SELECT action FROM audit_log")]
    assert actions[:2] == ["add", "search"]


def test_open_prints_nothing(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    with memwarden.open(tmp_path / "quiet.db", tenant="t") as memory:
        memory.add("A quiet memory")
        memory.search("quiet")
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")


def test_unknown_or_bad_settings_are_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(memwarden.ConfigError, match=r"unknown setting.*colour"):
        memwarden.open(tmp_path / "a.db", colour="blue")
    with pytest.raises(memwarden.ConfigError, match=r"langauges \(did you mean languages\?\)"):
        memwarden.open(tmp_path / "a.db", langauges="english")
    with pytest.raises(memwarden.ConfigError, match="redaction"):
        memwarden.open(tmp_path / "a.db", redaction="sometimes")
    with pytest.raises(memwarden.ConfigError, match="db is the first argument"):
        memwarden.open(tmp_path / "a.db", db="other.db")
    assert not (tmp_path / "a.db").exists()


def test_a_refused_write_changes_nothing(tmp_path: Path) -> None:
    with memwarden.open(tmp_path / "r.db", tenant="t", max_content_bytes=64) as memory:
        with pytest.raises(memwarden.InvalidInput) as caught:
            memory.add("x" * 65)
        assert caught.value.fields["field"] == "content"
        with pytest.raises(memwarden.InvalidInput, match="ttl_hours"):
            memory.add("A fine memory", ttl_hours=-1)
        assert memory.list() == [] and memory.stats()["memories"] == 0


def test_tenants_do_not_see_each_other(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    with memwarden.open(db, tenant="alice") as alice:
        mine = alice.add("Alice keeps her notes in the blue binder").memory.id
    with memwarden.open(db, tenant="bob") as bob:
        assert bob.search("binder").hits == []
        assert bob.get(mine) == GetResult([], [mine])
        with pytest.raises(memwarden.NotFound):
            bob.delete(mine)


def test_the_public_names_resolve_to_their_modules() -> None:
    assert memwarden.Memory is memwarden.library.Memory
    assert memwarden.MemoryRecord is memwarden.models.Memory
    assert issubclass(memwarden.InvalidInput, memwarden.MemwardenError)
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        _ = memwarden.nothing_here  # type: ignore[attr-defined]


@pytest.mark.postgres
def test_the_postgresql_url_form_works_the_same(pg_url: str) -> None:
    with memwarden.open(pg_url, tenant="pg-team") as memory:
        added = memory.add("Releases are cut from the main branch", project="eng", tags=["release"])
        assert memory.add("Releases are cut from the main branch", project="eng").duplicate
        found = memory.search("releases", project="eng")
        assert [hit.memory.id for hit in found.hits] == [added.memory.id]
        assert memory.update(added.memory.id, pinned=True).version == 2
        document = memory.export()
        assert document["count"] == 1
        assert memory.delete(added.memory.id).deleted
        assert memory.get(added.memory.id).missing == [added.memory.id]
    assert repr(memory) == "<memwarden.Memory closed>"


def test_library_writes_record_their_route(tmp_path: Path) -> None:
    with memwarden.open(tmp_path / "m.db") as memory:
        added = memory.add("The staging cluster runs in eu-west-1")
        assert added.memory.source == "library"
