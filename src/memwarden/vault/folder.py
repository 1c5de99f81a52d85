"""One vault folder: the notes memwarden owns there, and the manifest that says which they are.

memwarden touches only files it wrote. ``<folder>/.memwarden/manifest.jsonl`` (Obsidian hides
dot folders) lists every note memwarden owns: memory id, note number, file name, and the ids it
links to. Before overwriting, renaming or deleting a note, the file's frontmatter ``id`` must
still be that memory's; a file a person replaced or wrote under the same name is left alone (a
new note then gets a name with a short id suffix).

The manifest is append-only (one JSON line per change, ``{"id", "gone": true}`` for a removal),
so a change costs one small append, not a rewrite of 10k entries; it is compacted when it grows
past twice its live size. Several processes (a server per client, the CLI) may mirror into one
folder: each change runs under an exclusive lock on ``.memwarden/lock`` and first reads what
others appended, so note numbers stay unique. Notes are written to a temporary file in
``.memwarden`` and renamed into place, so Obsidian never sees half a note.
"""

from __future__ import annotations

import errno
import json
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from memwarden.models import Memory
from memwarden.vault.frontmatter import FRONTMATTER_SCAN_CHARS, frontmatter_id
from memwarden.vault.naming import NOTE_SUFFIX, display_title, note_stem
from memwarden.vault.note import render_note, replace_related

STATE_DIR = ".memwarden"
MANIFEST = "manifest.jsonl"
COMPACT_SLACK = 512

try:
    import fcntl

    def _lock(handle: IO[bytes]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)

    def _unlock(handle: IO[bytes]) -> None:
        fcntl.flock(handle.fileno(), fcntl.LOCK_UN)

except ImportError:  # pragma: no cover - Windows
    import msvcrt

    def _lock(handle: IO[bytes]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_LOCK, 1)  # type: ignore[attr-defined]

    def _unlock(handle: IO[bytes]) -> None:
        handle.seek(0)
        msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]


class VaultUnavailable(OSError):
    """The vault folder is missing or not a folder (an unmounted drive, a typo)."""


@dataclass(frozen=True, slots=True)
class NoteEntry:
    number: int
    file: str
    links: tuple[str, ...] = ()

    @property
    def stem(self) -> str:
        return self.file[: -len(NOTE_SUFFIX)]


def _remove_stale_temps(state_dir: Path) -> None:
    """Remove ``tmp-<pid>-<thread>`` files whose process is gone (a writer killed between writing a
    note and renaming it into place); run once per folder when a process first uses it."""
    for temp in state_dir.glob("tmp-*-*"):
        pid = temp.name.split("-")[1]
        if not pid.isdigit():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            temp.unlink(missing_ok=True)
        except PermissionError:  # alive, another user's
            continue


class VaultFolder:
    """The memwarden notes in one folder. Thread-safe; safe to share with other processes."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.state_dir = self.root / STATE_DIR
        self.manifest_path = self.state_dir / MANIFEST
        self.entries: dict[str, NoteEntry] = {}
        self._next_number = 1
        self._inode: int | None = None
        self._offset = 0
        self._lines = 0
        self._dangling = False
        self._mutex = threading.Lock()
        self._linked_from: dict[str, set[str]] = {}
        self._ready = False

    # -- lock and manifest -------------------------------------------------------------------

    @contextmanager
    def session(self, *, create: bool = False) -> Iterator[None]:
        """Hold the folder's lock (threads and processes), with the manifest caught up."""
        if create:
            self.root.mkdir(parents=True, exist_ok=True)
        if not self._ready:  # checked until it works once; later failures surface on open below
            if not self.root.is_dir():
                raise VaultUnavailable(
                    errno.ENOENT, "not an existing folder (create it, or run `memwarden vault sync`)"
                )
            self.state_dir.mkdir(exist_ok=True)
            _remove_stale_temps(self.state_dir)
        try:
            handle = open(self.state_dir / "lock", "a+b")  # noqa: SIM115 - closed below
        except OSError:
            self._ready = False
            raise
        self._ready = True
        with self._mutex, handle:
            _lock(handle)
            try:
                self._catch_up()
                yield
            finally:
                _unlock(handle)

    def _reset(self, inode: int | None) -> None:
        self.entries, self._next_number, self._linked_from = {}, 1, {}
        self._inode, self._offset, self._lines, self._dangling = inode, 0, 0, False

    def _catch_up(self) -> None:
        """Apply what was appended to the manifest since we last read it (by anyone)."""
        try:
            st = os.stat(self.manifest_path)
        except FileNotFoundError:
            self._reset(None)
            return
        if st.st_ino != self._inode or st.st_size < self._offset:
            self._reset(st.st_ino)
        if st.st_size == self._offset:
            return
        with open(self.manifest_path, "rb") as handle:
            handle.seek(self._offset)
            data = handle.read()
        end = data.rfind(b"\n") + 1
        for line in data[:end].splitlines():
            self._apply(line)
        self._offset += end
        self._dangling = end < len(data)

    def _apply(self, line: bytes) -> None:
        try:
            record = json.loads(line)
            self._lines += 1
            if "next" in record:
                self._next_number = max(self._next_number, int(record["next"]))
            elif record.get("gone"):
                self._set(str(record["id"]), None)
            else:
                entry = NoteEntry(int(record["n"]), str(record["file"]), tuple(record.get("links", ())))
                self._set(str(record["id"]), entry)
                self._next_number = max(self._next_number, entry.number + 1)
        except (ValueError, KeyError, TypeError):
            return  # a line torn by a crash; the entries before and after it still count

    def _set(self, memory_id: str, entry: NoteEntry | None) -> None:
        """Record a note (None: its removal), keeping the index of who links to whom."""
        old = self.entries.pop(memory_id, None)
        for target in old.links if old else ():
            self._linked_from.get(target, set()).discard(memory_id)
        if entry is not None:
            self.entries[memory_id] = entry
            for target in entry.links:
                self._linked_from.setdefault(target, set()).add(memory_id)

    def _append(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        if self._dangling:
            line = b"\n" + line
        with open(self.manifest_path, "ab") as handle:
            handle.write(line)
        self._inode = self._inode if self._inode is not None else os.stat(self.manifest_path).st_ino
        self._offset += len(line)
        self._dangling = False
        self._apply(line.strip())
        if self._lines > 2 * len(self.entries) + COMPACT_SLACK:
            self.compact()

    def _put(self, memory_id: str, entry: NoteEntry) -> None:
        self._append({"id": memory_id, "n": entry.number, "file": entry.file, "links": list(entry.links)})

    def compact(self) -> None:
        """Rewrite the manifest as one line per live note (call inside ``session``)."""
        lines = [json.dumps({"next": self._next_number})]
        lines += [
            json.dumps({"id": i, "n": e.number, "file": e.file, "links": list(e.links)}, ensure_ascii=False)
            for i, e in self.entries.items()
        ]
        self._write_file(self.manifest_path, "\n".join(lines) + "\n")
        st = os.stat(self.manifest_path)
        self._inode, self._offset, self._lines, self._dangling = st.st_ino, st.st_size, len(lines), False

    # -- files -------------------------------------------------------------------------------

    def _write_file(self, path: Path, text: str) -> None:
        temp = self.state_dir / f"tmp-{os.getpid()}-{threading.get_ident()}"
        try:
            with open(temp, "wb") as handle:
                handle.write(text.encode("utf-8"))
            os.replace(temp, path)
        except BaseException:
            temp.unlink(missing_ok=True)
            raise

    def _read(self, file: str, limit: int = -1) -> str | None:
        try:
            with open(self.root / file, "rb") as handle:
                return handle.read(limit).decode("utf-8", errors="replace")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def owns(self, file: str, memory_id: str) -> bool:
        """True when ``file`` exists and is memwarden's note of this memory."""
        head = self._read(file, FRONTMATTER_SCAN_CHARS)
        return head is not None and frontmatter_id(head) == memory_id

    def _free_name(self, number: int, title: str, memory_id: str) -> str:
        """``<number> <title>.md``, unless a file that is not this memory's note has that name."""
        for suffix in ("", memory_id[-6:].lower(), memory_id.lower()):
            file = note_stem(number, title, disambiguator=suffix) + NOTE_SUFFIX
            if not (self.root / file).exists() or self.owns(file, memory_id):
                return file
        raise FileExistsError(f"no free note name for memory {memory_id} in {self.root}")

    def _place(self, memory: Memory, entry: NoteEntry | None) -> tuple[NoteEntry, bool]:
        """The entry (number, file) the memory's note should have now; True if it moved."""
        number = entry.number if entry else self._next_number
        kept = entry is not None and self.owns(entry.file, memory.id)
        wanted = note_stem(number, display_title(memory)) + NOTE_SUFFIX
        if entry is not None and kept and entry.file == wanted:
            return entry, False
        if entry is not None and kept and entry.file.casefold() == wanted.casefold():
            os.replace(self.root / entry.file, self.root / wanted)  # a case-only change
            return NoteEntry(number, wanted, entry.links), True
        file = self._free_name(number, display_title(memory), memory.id)
        if entry is not None and kept and file != entry.file:
            os.replace(self.root / entry.file, self.root / file)
        return NoteEntry(number, file, entry.links if entry else ()), entry is not None and file != entry.file

    def _stems(self, ids: Sequence[str], renamed: Mapping[str, str] | None = None) -> list[str]:
        renamed = renamed or {}
        return [renamed.get(i) or self.entries[i].stem for i in ids if i in self.entries or i in renamed]

    def _rewrite_links(self, target: str, new_stem: str | None) -> None:
        """Point every note linking to ``target`` at ``new_stem`` (None: drop the link)."""
        for source in sorted(self._linked_from.get(target, ())):
            entry = self.entries.get(source)
            if entry is None or target not in entry.links or source == target:
                continue
            text = self._read(entry.file)
            links = entry.links if new_stem else tuple(i for i in entry.links if i != target)
            if text is None or frontmatter_id(text) != source:
                continue
            new_text = replace_related(
                text, source, self._stems(entry.links), self._stems(links, {target: new_stem or ""})
            )
            if new_text is not None:
                self._write_file(self.root / entry.file, new_text)
            if links != entry.links:
                self._put(source, NoteEntry(entry.number, entry.file, links))

    def probe(self) -> None:
        """Raise OSError unless a file can be written in this folder now (no lock taken)."""
        if not self.root.is_dir():
            raise VaultUnavailable(
                errno.ENOENT, "not an existing folder (create it, or run `memwarden vault sync`)"
            )
        self.state_dir.mkdir(exist_ok=True)
        probe = self.state_dir / f"probe-{os.getpid()}-{threading.get_ident()}"
        probe.write_bytes(b"memwarden health probe\n")
        probe.unlink()

    # -- changes -----------------------------------------------------------------------------

    def upsert(self, memory: Memory, related_ids: Sequence[str]) -> bool:
        """Write the memory's note; returns True when it was renamed (a new title)."""
        with self.session():
            old = self.entries.get(memory.id)
            entry, moved = self._place(memory, old)
            links = tuple(i for i in related_ids if i in self.entries and i != memory.id)
            entry = NoteEntry(entry.number, entry.file, links)
            self._write_file(self.root / entry.file, render_note(memory, self._stems(links)))
            if moved and old is not None:
                self._rewrite_links(memory.id, entry.stem)
            self._put(memory.id, entry)
            return moved

    def remove(self, memory_id: str) -> bool:
        """Delete the memory's note and the links to it; False when there was none."""
        with self.session():
            entry = self.entries.get(memory_id)
            if entry is None:
                return False
            if self.owns(entry.file, memory_id):
                (self.root / entry.file).unlink(missing_ok=True)
            self._rewrite_links(memory_id, None)
            self._append({"id": memory_id, "gone": True})
            return True

    def sync(
        self,
        memories: Sequence[Memory],
        related: Mapping[str, Sequence[str]],
        on_note: Callable[[], None] | None = None,
    ) -> dict[str, int]:
        """Make the folder hold exactly these memories' notes; touch nothing else.

        Notes already right are not rewritten, so a second sync changes no file.
        """
        report = {"written": 0, "unchanged": 0, "renamed": 0, "removed": 0}
        with self.session(create=True):
            live = {m.id for m in memories}
            for memory_id in [i for i in self.entries if i not in live]:
                entry = self.entries[memory_id]
                if self.owns(entry.file, memory_id):
                    (self.root / entry.file).unlink(missing_ok=True)
                    report["removed"] += 1
                self._append({"id": memory_id, "gone": True})
            for memory in sorted(memories, key=lambda m: m.id):  # ULIDs sort by creation time
                old = self.entries.get(memory.id)
                entry, moved = self._place(memory, old)
                report["renamed"] += moved
                if entry != old:
                    self._put(memory.id, entry)
            for memory in memories:
                entry = self.entries[memory.id]
                links = tuple(i for i in related.get(memory.id, ()) if i in self.entries and i != memory.id)
                text = render_note(memory, self._stems(links))
                if self._read(entry.file) == text:
                    report["unchanged"] += 1
                else:
                    self._write_file(self.root / entry.file, text)
                    report["written"] += 1
                if links != entry.links:
                    self._put(memory.id, NoteEntry(entry.number, entry.file, links))
                if on_note is not None:
                    on_note()
            self.compact()
        return report
