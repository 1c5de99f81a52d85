"""Reading vault notes back in tests: frontmatter through a real YAML parser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from memwarden.models import Memory
from memwarden.vault.naming import obsidian_tag


def split_note(text: str) -> tuple[dict[str, Any], str]:
    """(frontmatter as parsed by PyYAML, the Markdown after it)."""
    assert text.startswith("---\n")
    end = text.index("\n---\n", 3)
    front = yaml.safe_load(text[4:end])
    assert isinstance(front, dict)
    return front, text[end + len("\n---\n") :]


def read_note(path: Path) -> tuple[dict[str, Any], str]:
    return split_note(path.read_text(encoding="utf-8"))


def assert_front_matches(front: dict[str, Any], memory: Memory) -> None:
    """The frontmatter carries exactly the memory's fields."""
    assert front["id"] == memory.id
    assert front["project"] == memory.project
    assert front["kind"] == memory.kind
    assert front["title"] == memory.title
    assert front["pinned"] is memory.pinned
    assert front["created"] == memory.created_at
    assert front["updated"] == memory.updated_at
    assert front["tags"][-1] == f"project/{obsidian_tag(memory.project)}"
    assert front["tags"][:-1] == [obsidian_tag(t) for t in memory.tags]
    assert front.get("memwarden_tags", front["tags"][:-1]) == list(memory.tags)


def notes(folder: Path) -> dict[str, Path]:
    """memory id → note path, for every memwarden note in the folder."""
    found: dict[str, Path] = {}
    for path in folder.glob("*.md"):
        text = path.read_text(encoding="utf-8")
        if not text.startswith("---\n"):
            continue
        front, _ = split_note(text)
        if "id" in front:
            found[front["id"]] = path
    return found


def related_stems(body: str) -> list[str]:
    if "## Related\n" not in body:
        return []
    section = body.rsplit("## Related\n", 1)[1]
    return [line[4:-2] for line in section.splitlines() if line.startswith("- [[")]
