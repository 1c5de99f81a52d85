"""hypothesis on what users type into titles, tags and projects: YAML, file names, tags, links."""

from __future__ import annotations

import re
import tempfile
import unicodedata
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from memwarden import validation as v
from memwarden.errors import InvalidInput
from memwarden.identifiers import escape_identifier
from memwarden.intake import content_hash
from memwarden.models import Memory
from memwarden.vault.folder import VaultFolder
from memwarden.vault.frontmatter import render_frontmatter, yaml_string
from memwarden.vault.inert_markdown import inert_line
from memwarden.vault.naming import display_title, note_stem, obsidian_tag
from tests.vault_helpers import assert_front_matches, notes, read_note, related_stems, split_note

SPECIALS = [
    '"',
    "'",
    ":",
    ": ",
    "#",
    " #",
    "---",
    "\n",
    "\r",
    "\t",
    "\\",
    "[[",
    "]]",
    "|",
    "^",
    "- ",
    "&a",
    "*b",
    "!",
    "%",
    "@",
    "`",
    "{",
    "}",
    ">",
    "?",
    "\u2028",
    "\u2029",
    "\x85",
    "\ufeff",
    "\xa0",
    "🙂",
    "İı",
    "ß",
    "e\u0301",
    "日本",
    "\U0010fffd",
    "\ufffe",
    "null",
    "true",
    "1e3",
    "~",
    ".",
]
ANY_CHAR = st.characters(blacklist_categories=("Cs",))
PIECE = st.one_of(st.sampled_from(SPECIALS), st.text(ANY_CHAR, max_size=6))
TEXT = st.lists(PIECE, max_size=12).map("".join)
# What a tag or project may hold (the identifier policy, identifiers.py: a refused character
# becomes its stand-in; not blank; the rest is free).
LINE = (
    st.lists(PIECE, min_size=1, max_size=8)
    .map("".join)
    .map(escape_identifier)
    .filter(lambda s: s.strip() and len(s) <= 64)
)
_WINDOWS_FORBIDDEN = re.compile(r'[<>:"/\\|?*\x00-\x1f]')
_LINK_BREAKING = re.compile(r"[#^\[\]|]")
BASE = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)


def valid(check, value):  # type: ignore[no-untyped-def]
    try:
        return check(value)
    except InvalidInput:
        assume(False)


def make_memory(n: int, title: str, tags: list[str], project: str, *, pinned: bool = False) -> Memory:
    content = v.normalize_content(f"memory {n}: {title} {' '.join(tags)}")
    return Memory(
        id=f"01JD3Z5X9Q2W8E7R6T5Y4V3K{n:02d}"[-26:],
        tenant="default",
        project=valid(v.check_project, project),
        kind="note",
        title=valid(v.check_title, title),
        tags=valid(v.check_tags, tags),
        content=content,
        content_hash=content_hash(content),
        pinned=pinned,
        created_at=BASE + timedelta(seconds=n),
        updated_at=BASE + timedelta(seconds=n, microseconds=n),
    )


@given(TEXT)
def test_any_string_is_a_yaml_scalar_that_parses_back_to_itself(text: str) -> None:
    assert yaml.safe_load(f"key: {yaml_string(text)}\n") == {"key": text}


@given(title=TEXT, tags=st.lists(LINE, max_size=5), project=LINE, pinned=st.booleans())
def test_frontmatter_parses_back_to_the_memory_fields(
    title: str, tags: list[str], project: str, pinned: bool
) -> None:
    memory = make_memory(1, title, tags, project, pinned=pinned)
    front, rest = split_note(render_frontmatter(memory) + "# body\n")
    assert_front_matches(front, memory)
    assert rest == "# body\n"


@given(TEXT)
def test_obsidian_tags_use_only_tag_characters_and_are_stable(tag: str) -> None:
    converted = obsidian_tag(tag)
    assert re.fullmatch(r"[\w/-]+", converted)
    assert not converted.replace("/", "").isdigit()
    assert obsidian_tag(converted) == converted


@given(TEXT, st.integers(min_value=1, max_value=10**9))
def test_file_names_are_safe_on_every_system_and_keep_their_number(title: str, number: int) -> None:
    name = note_stem(number, title) + ".md"
    stem = name[:-3]
    assert name.startswith(f"{number} ")
    assert not _WINDOWS_FORBIDDEN.search(name) and not _LINK_BREAKING.search(stem)
    assert not stem.endswith((" ", ".")) and stem == stem.strip()
    assert "\u2028" not in name and "\x85" not in name and "\x7f" not in name
    assert len(name.encode("utf-8")) <= 160 and unicodedata.is_normalized("NFC", name)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(TEXT, st.lists(LINE, max_size=3), st.sampled_from(["a", "b: c", "#d", "x y"])),
        min_size=1,
        max_size=5,
    ),
    TEXT,
)
def test_notes_on_disk_round_trip_and_every_link_resolves_after_renames(
    specs: list[tuple[str, list[str], str]], new_title: str
) -> None:
    memories = [make_memory(i + 1, title, tags, project) for i, (title, tags, project) in enumerate(specs)]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = VaultFolder(root)
        for i, memory in enumerate(memories):
            folder.upsert(memory, [m.id for m in memories[:i]])  # link to every earlier note
        renamed = memories[0]._replace(title=valid(v.check_title, new_title))
        folder.upsert(renamed, [])
        memories[0] = renamed
        found = notes(root)
        assert set(found) == {m.id for m in memories}
        assert len(list(root.glob("*.md"))) == len(memories)
        for i, memory in enumerate(memories):
            front, body = read_note(found[memory.id])
            assert_front_matches(front, memory)
            assert body.startswith(f"# {inert_line(display_title(memory))}\n")
            assert found[memory.id].name == note_stem(i + 1, display_title(memory)) + ".md"
            stems = related_stems(body)
            assert stems == [found[m.id].stem for m in memories[:i]]
            assert all((root / f"{stem}.md").is_file() for stem in stems)
