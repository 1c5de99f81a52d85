"""The vault mirror through the real service: real SQLite files, real folders, real notes."""

from __future__ import annotations

import fcntl
import os
import time
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.errors import ConfigError
from memwarden.models import Caller
from memwarden.service import MemoryService
from tests.vault_helpers import assert_front_matches, notes, read_note, related_stems

FLUSH = 30.0  # bounded wait for the background writer; it normally takes milliseconds


def unwritable_folder(tmp_path: Path) -> Path:
    """A vault path that cannot be written, even by root (the tests run as root).

    chmod does not stop root, and this machine offers no read-only mount to a test. A path
    whose parent is a regular file fails for every user (ENOTDIR): what a vault on an
    unmounted drive or a mistyped path looks like.
    """
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a regular file, so nothing can be created beneath it\n")
    return blocker / "vault"


@pytest.fixture
def vault_dirs(tmp_path: Path) -> tuple[Path, Path]:
    good = tmp_path / "vault-a"
    good.mkdir()
    return good, unwritable_folder(tmp_path)


@pytest.fixture
def mirrored(tmp_path: Path, vault_dirs: tuple[Path, Path]) -> Iterator[MemoryService]:
    settings = load_settings(
        db=str(tmp_path / "m.db"),
        log_file=str(tmp_path / "m.log"),
        vault_dirs=os.pathsep.join(str(p) for p in vault_dirs),
    )
    service = build_service(settings)
    yield service
    service.close()


def flushed(service: MemoryService) -> MemoryService:
    assert service.operations.vault_flush(FLUSH)
    return service


def test_writes_succeed_and_reach_the_good_folder_while_the_unwritable_one_is_counted(
    mirrored: MemoryService, vault_dirs: tuple[Path, Path]
) -> None:
    good, bad = vault_dirs
    added = mirrored.memories.add("The client prefers email over phone calls", project="acme", tags=["crm"])
    updated = mirrored.memories.update(added.memory.id, title="Contact preference")
    flushed(mirrored)
    front, body = read_note(notes(good)[added.memory.id])
    assert_front_matches(front, updated)
    assert "# Contact preference\n\nThe client prefers email over phone calls\n" in body
    assert not bad.exists()
    status = mirrored.operations.vault_status()
    bad_status = next(f for f in status["folders"] if f["path"] == str(bad))
    good_status = next(f for f in status["folders"] if f["path"] == str(good))
    assert bad_status["errors"] == 2 and good_status["errors"] == 0
    assert status["errors"] == 2 and str(bad) in status["last_error"]
    assert "not an existing folder" in status["last_error"] and "client" not in status["last_error"]
    assert status["pending"] == 0 and status["notes_written"] == 2


def test_a_folder_that_refuses_files_even_to_root_never_fails_a_write(tmp_path: Path) -> None:
    # sysfs directories exist but refuse new files for every user, root included (EPERM/EACCES).
    refusing = Path("/sys/kernel")
    if not refusing.is_dir() or (os.access(refusing, os.W_OK) and _can_create_in(refusing)):
        pytest.skip("no directory that refuses root here")
    service = build_service(load_settings(db=str(tmp_path / "m.db"), vault_dirs=str(refusing)))
    try:
        memory = service.memories.add("kept even though the vault refuses it").memory
        flushed(service)
        assert service.memories.get([memory.id])[0][0].content == "kept even though the vault refuses it"
        status = service.operations.vault_status()
        assert status["errors"] == 1 and status["last_error"].startswith(f"{refusing}: ")
    finally:
        service.close()


def _can_create_in(folder: Path) -> bool:
    try:
        (folder / ".memwarden-probe").mkdir()
    except OSError:
        return False
    (folder / ".memwarden-probe").rmdir()
    return True


def test_a_hanging_vault_does_not_block_the_write(
    mirrored: MemoryService, vault_dirs: tuple[Path, Path]
) -> None:
    good, _ = vault_dirs
    mirrored.memories.add("warm up the mirror")
    flushed(mirrored)
    # Another holder of the folder's lock stands in for a vault that does not answer.
    with open(good / ".memwarden" / "lock", "a+b") as holder:
        fcntl.flock(holder.fileno(), fcntl.LOCK_EX)
        started = time.perf_counter()
        memory = mirrored.memories.add("written while the vault hangs").memory
        elapsed = time.perf_counter() - started
        assert mirrored.operations.vault_flush(0.3) is False
        assert mirrored.operations.vault_status()["pending"] == 1
        fcntl.flock(holder.fileno(), fcntl.LOCK_UN)
    assert elapsed < 5.0  # the add returned although the note could not be written
    flushed(mirrored)
    assert memory.id in notes(good)


def test_notes_carry_frontmatter_heading_content_and_a_pinned_callout(
    mirrored: MemoryService, vault_dirs: tuple[Path, Path]
) -> None:
    good, _ = vault_dirs
    tricky = [
        {
            "title": "Quotes \"double\" and 'single'",
            "tags": ["a:b", "#hash", "two words"],
            "project": "p: x #1",
        },
        {"title": "--- looks like a fence ---", "tags": ["---"], "project": "line break"},
        {"title": "", "tags": ["İstanbul", "日本語", "emoji🙂"], "project": "Ünïcödé/nested"},
        {"title": "[[not a link]] | pipe ^ caret", "tags": ["2024"], "project": "default"},
    ]
    stored = [
        mirrored.memories.add(
            f"Memory number {i}: see #{i} and --- lines\nsecond line", pinned=i % 2 == 0, **kw
        ).memory
        for i, kw in enumerate(tricky)
    ]
    flushed(mirrored)
    found = notes(good)
    for memory in stored:
        front, body = read_note(found[memory.id])
        assert_front_matches(front, memory)
        if memory.pinned:
            assert f"> [!important] Pinned\n> Memory number {stored.index(memory)}:" in body
            assert "\n> second line\n" in body
        else:
            assert "[!important]" not in body and "\nsecond line\n" in body
    assert found[stored[2].id].name == "3 Memory number 2 see 2 and --- lines.md"


def test_file_names_are_numbered_readable_and_safe(
    mirrored: MemoryService, vault_dirs: tuple[Path, Path]
) -> None:
    good, _ = vault_dirs
    a = mirrored.memories.add("one", title='What: a <weird> "title"? \\ / | * #tag [x]. ').memory
    b = mirrored.memories.add("two", title='What: a <weird> "title"? \\ / | * #tag [x]. ').memory
    c = mirrored.memories.add("Cafe\u0301 notes about the first words of a long sentence that goes on").memory
    flushed(mirrored)
    found = notes(good)
    assert found[a.id].name == "1 What a weird title tag x.md"
    assert found[b.id].name == "2 What a weird title tag x.md"
    assert found[c.id].name == "3 Café notes about the first words of a.md"
    assert unicodedata.is_normalized("NFC", found[c.id].name)


def test_a_title_change_renames_the_note_and_updates_links_to_it(
    mirrored: MemoryService, vault_dirs: tuple[Path, Path]
) -> None:
    good, _ = vault_dirs
    target = mirrored.memories.add(
        "Deploys to production happen on Tuesdays", project="ops", title="Deploy day"
    ).memory
    linking = mirrored.memories.add("Production deploys need a change ticket", project="ops").memory
    flushed(mirrored)
    old = notes(good)[target.id]
    assert old.name == "1 Deploy day.md"
    assert related_stems(read_note(notes(good)[linking.id])[1]) == ["1 Deploy day"]
    mirrored.memories.update(target.id, title="Release day")
    flushed(mirrored)
    found = notes(good)
    assert not old.exists() and found[target.id].name == "1 Release day.md"
    assert related_stems(read_note(found[linking.id])[1]) == ["1 Release day"]
    assert sorted(p.name for p in good.glob("*.md")) == [
        "1 Release day.md",
        "2 Production deploys need a change ticket.md",
    ]


def test_deleting_a_memory_removes_its_notes_and_the_links_to_it(tmp_path: Path) -> None:
    folders = [tmp_path / "one", tmp_path / "two"]
    for folder in folders:
        folder.mkdir()
    service = build_service(
        load_settings(db=str(tmp_path / "m.db"), vault_dirs=os.pathsep.join(map(str, folders)))
    )
    try:
        gone = service.memories.add("Backups run every night at two", project="ops").memory
        stays = service.memories.add("Backups are kept for thirty nights", project="ops").memory
        flushed(service)
        for folder in folders:
            assert related_stems(read_note(notes(folder)[stays.id])[1]) == [
                "1 Backups run every night at two"
            ]
        service.memories.delete(gone.id)
        flushed(service)
        for folder in folders:
            found = notes(folder)
            assert set(found) == {stays.id}
            assert related_stems(read_note(found[stays.id])[1]) == []
            assert "## Related" not in found[stays.id].read_text(encoding="utf-8")
        assert service.operations.vault_status()["notes_removed"] == 2
    finally:
        service.close()


def test_related_links_stay_in_the_project_and_count_no_use(
    mirrored: MemoryService, vault_dirs: tuple[Path, Path]
) -> None:
    good, _ = vault_dirs
    same = mirrored.memories.add("The staging database runs PostgreSQL 16", project="infra").memory
    other = mirrored.memories.add("The staging database is reset weekly", project="elsewhere").memory
    new = mirrored.memories.add("Staging database backups are not kept", project="infra").memory
    flushed(mirrored)
    found = notes(good)
    assert related_stems(read_note(found[new.id])[1]) == [found[same.id].stem]
    assert other.id not in [m.id for m in mirrored.searcher.related(new)]
    counts = {m.id: m.hit_count for m in mirrored.memories.get([same.id, other.id, new.id])[0]}
    assert set(counts.values()) == {0}


def test_only_the_stored_memory_of_the_local_tenant_is_mirrored(
    mirrored: MemoryService, vault_dirs: tuple[Path, Path]
) -> None:
    good, _ = vault_dirs
    mine = mirrored.memories.add("  Cafe\u0301 opens at eight\r\n").memory
    again = mirrored.memories.add("Cafe\u0301 opens at eight")
    theirs = mirrored.memories.add(
        "another tenant's memory", caller=Caller(actor="bob", tenant="other")
    ).memory
    flushed(mirrored)
    found = notes(good)
    assert set(found) == {mine.id} and again.duplicate and theirs.id not in found
    assert "\nCafé opens at eight\n" in read_note(found[mine.id])[1]


def test_sync_is_idempotent_and_leaves_every_other_file_alone(
    mirrored: MemoryService, vault_dirs: tuple[Path, Path]
) -> None:
    good, bad = vault_dirs
    own = {
        "Daily.md": "# my own note\n",
        "3 Clash with a future name.md": "mine, not memwarden's\n",
        "sub/1 Deep.md": '---\nid: "01JD3Z5X9Q2W8E7R6T5Y4V3K2M"\n---\nlooks like ours, is not\n',
    }
    for name, text in own.items():
        (good / name).parent.mkdir(exist_ok=True)
        (good / name).write_text(text, encoding="utf-8")
    before = {name: (good / name).stat().st_mtime_ns for name in own}
    a = mirrored.memories.add("Sync keeps the vault right", project="p").memory
    b = mirrored.memories.add("Sync removes notes of deleted memories", project="p").memory
    c = mirrored.memories.add("Clash with a future name", project="p").memory
    flushed(mirrored)
    assert notes(good)[c.id].name == f"3 Clash with a future name ({c.id[-6:].lower()}).md"
    mirrored.memories.delete(b.id)
    flushed(mirrored)
    notes(good)[a.id].write_text("a person edited this note\n", encoding="utf-8")  # not ours any more
    report = mirrored.operations.vault_sync()
    folder = next(f for f in report["folders"] if f["path"] == str(good))
    assert report["memories"] == 2 and report["ok"] is False
    assert folder["written"] == 1 and folder["removed"] == 0 and folder["error"] is None
    again = next(f for f in mirrored.operations.vault_sync()["folders"] if f["path"] == str(good))
    assert again == {
        "path": str(good),
        "error": None,
        "written": 0,
        "unchanged": 2,
        "renamed": 0,
        "removed": 0,
    }
    assert {name: (good / name).read_text(encoding="utf-8") for name in own} == own
    assert {name: (good / name).stat().st_mtime_ns for name in own} == before
    found = notes(good)
    assert set(found) == {a.id, c.id}
    assert found[a.id].name == "1 Sync keeps the vault right (" + a.id[-6:].lower() + ").md"
    assert (good / "1 Sync keeps the vault right.md").read_text(
        encoding="utf-8"
    ) == "a person edited this note\n"
    assert "is a file, not a folder" in next(f for f in report["folders"] if f["path"] == str(bad))["error"]


def test_sync_removes_notes_of_memories_deleted_while_the_mirror_was_off(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    db = str(tmp_path / "m.db")
    on = build_service(load_settings(db=db, vault_dirs=str(vault)))
    kept = on.memories.add("kept memory").memory
    dropped = on.memories.add("dropped memory").memory
    on.close()
    off = build_service(load_settings(db=db))
    off.memories.delete(dropped.id)
    off.memories.update(kept.id, pinned=True)
    off.close()
    assert set(notes(vault)) == {kept.id, dropped.id}
    again = build_service(load_settings(db=db, vault_dirs=str(vault)))
    try:
        report = again.operations.vault_sync()
        assert report["folders"][0] == {
            "path": str(vault),
            "error": None,
            "written": 1,
            "unchanged": 0,
            "renamed": 0,
            "removed": 1,
        }
        found = notes(vault)
        assert set(found) == {kept.id}
        assert read_note(found[kept.id])[0]["pinned"] is True
    finally:
        again.close()


def test_sync_without_vault_folders_is_a_config_error(service: MemoryService) -> None:
    with pytest.raises(ConfigError, match="MEMWARDEN_VAULT_DIRS"):
        service.operations.vault_sync()
    assert service.operations.vault_status() == {
        "enabled": False,
        "pending": 0,
        "errors": 0,
        "last_error": None,
        "failing": [],
        "folders": [],
    }


def test_vault_dirs_split_on_the_os_path_separator(tmp_path: Path) -> None:
    settings = load_settings(
        vault_dirs=f" {tmp_path / 'a'}{os.pathsep}{os.pathsep}~/b{os.pathsep}{tmp_path / 'a'}"
    )
    assert settings.vault_folders() == [tmp_path / "a", Path("~/b").expanduser()]
    assert load_settings(vault_dirs="").vault_folders() == []


def test_health_probes_the_folders_and_is_degraded_while_one_fails(
    mirrored: MemoryService, vault_dirs: tuple[Path, Path]
) -> None:
    good, bad = vault_dirs
    report = mirrored.operations.health(repair=False)  # before any write: the probe finds the bad folder
    vault = report["checks"]["vault"]
    assert report["status"] == "degraded" and vault["ok"] is False and vault["state"] == "failing"
    assert vault["failing"] == [str(bad)] and vault["errors"] == 1
    assert [p.name for p in (good / ".memwarden").iterdir()] == []  # the probe file is gone again
    bad.parent.unlink()
    bad.mkdir(parents=True)  # the folder comes back: the next probe clears it
    vault = mirrored.operations.health(repair=False)["checks"]["vault"]
    assert vault["ok"] is True and vault["failing"] == [] and vault["errors"] == 1


def test_health_says_not_configured_without_vault_folders(service: MemoryService) -> None:
    assert service.operations.health(repair=False)["checks"]["vault"] == {
        "state": "not_configured",
        "ok": True,
    }
