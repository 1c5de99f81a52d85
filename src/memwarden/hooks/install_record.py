"""What ``install claude-code`` changed, kept so that ``--uninstall`` gives back the same bytes.

Install records, per file it wrote, the bytes that were there before (or that there was no file)
and the bytes it wrote, plus the folders it had to create. The record lives in memwarden's data
folder (``<data dir>/installs/``), never in the project, so a repository gets no backup files.
Uninstall restores each recorded file whose bytes are still exactly what install wrote
(indentation, key order, trailing newline and all), deletes the files install created, then
removes the folders it created when they are empty (``~/.claude`` included, when install made
it). A file changed since install is not restored blindly: uninstall removes memwarden's
entries from it instead and keeps the rest.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any


def record_path(state_dir: Path, scope: str, root: Path) -> Path:
    """One record per scope and root folder (the home folder, or the project folder)."""
    key = hashlib.sha256(f"{scope}\0{root.resolve()}".encode()).hexdigest()[:16]
    return state_dir / f"claude-code-{scope}-{key}.json"


def _encode(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _decode(text: str | None) -> bytes | None:
    return None if text is None else base64.b64decode(text)


def missing_folders(paths: list[Path], root: Path) -> list[Path]:
    """The folders that writing ``paths`` will create below ``root``, deepest last."""
    found: list[Path] = []
    for path in paths:
        for folder in reversed(path.parents):
            if folder == root or root not in folder.parents:
                continue
            if not folder.exists() and folder not in found:
                found.append(folder)
    return found


def read_record(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"root": None, "files": {}, "folders": []}
    return data if isinstance(data, dict) else {"root": None, "files": {}, "folders": []}


def save_record(
    path: Path, *, root: Path, before: dict[Path, bytes | None], folders: list[Path], targets: list[Path]
) -> None:
    """Add what this install wrote to the record (the first original of a file is kept)."""
    record = read_record(path)
    files: dict[str, Any] = record.get("files") or {}
    for target in targets:
        key = str(target)
        original = files[key]["before"] if key in files else _encode(before.get(target))
        files[key] = {
            "before": original,
            "written": _encode(target.read_bytes() if target.is_file() else None),
        }
    known = list(record.get("folders") or [])
    known += [str(f) for f in folders if str(f) not in known]
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(
        path, json.dumps({"root": str(root), "files": files, "folders": known}, indent=2).encode(), None
    )


def write_atomically(path: Path, data: bytes, like: int | None) -> None:
    """Replace ``path`` by ``data`` through a temporary file in its folder, keeping mode ``like``."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".memwarden-tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
            os.fchmod(file.fileno(), like if like is not None else 0o600)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def restore_files(path: Path) -> tuple[list[str], set[Path]]:
    """Give back the recorded originals of unchanged files; (report lines, files handled).

    Files changed since install are left to the caller (memwarden's entries removed in place)."""
    record = read_record(path)
    report: list[str] = []
    handled: set[Path] = set()
    for key, entry in (record.get("files") or {}).items():
        target = Path(key)
        current = target.read_bytes() if target.is_file() else None
        if current != _decode(entry.get("written")):
            continue
        original = _decode(entry.get("before"))
        handled.add(target)
        if original is None:
            target.unlink(missing_ok=True)
            report.append(f"removed {target}")
        else:
            mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else None
            write_atomically(target, original, mode)
            report.append(f"restored {target} as it was before install")
    return report, handled


def remove_folders(path: Path) -> list[str]:
    """Remove the folders install created, deepest first, when empty; then forget the record."""
    record = read_record(path)
    report: list[str] = []
    for folder in reversed([Path(f) for f in record.get("folders") or []]):
        try:
            folder.rmdir()
            report.append(f"removed folder {folder}")
        except OSError:
            pass  # not empty (or gone): someone else's files live there now
    path.unlink(missing_ok=True)
    return report
