"""Vault notes render inert in Obsidian (vault/inert_markdown.py): no remote or local embeds, no
HTML, no code block or inline query a plugin runs, no Templater tag; reading view shows the
stored text, and the stored memory is never changed. Notes are parsed with markdown-it-py
(CommonMark with raw HTML on, as Obsidian renders it)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.service import MemoryService
from memwarden.vault.inert_markdown import WORD_JOINER, inert_markdown
from tests.vault_helpers import notes, read_note

MARKDOWN = MarkdownIt("commonmark")
HOSTILE = "\n".join(
    [
        "Quarterly note ![beacon](https://evil.example/b.png?u=1) and ![[secret.pdf]]",
        '<img src="https://evil.example/p.png"> <iframe src="https://evil.example"></iframe>',
        "<script>fetch('https://evil.example')</script><object data='https://evil.example/x.swf'></object>",
        "Inline `$= dv.el('b', 'x')` and `= this.file.name` and `button-wipe`",
        "<% tp.system.prompt('key') %> <%* await tp.user.run() %> %%hidden%% &lt;b&gt; a\\*b",
        "```dataviewjs",
        "dv.el('img', '', {attr: {src: 'https://evil.example/d.png'}}) <% tp.file.title %>",
        "```",
        "~~~button",
        "name wipe",
        "~~~",
        "```dataview",
        "TABLE file.name",
    ]
)
IN_CONTAINERS = "> ~~~dataviewjs\n> dv.el('b', 'x')\n> ~~~\n- ```dataviewjs\n  dv.el('b', 'y')\n  ```"


@pytest.fixture
def mirrored(tmp_path: Path) -> Iterator[tuple[MemoryService, Path]]:
    vault = tmp_path / "vault"
    vault.mkdir()
    service = build_service(
        load_settings(db=str(tmp_path / "m.db"), log_file=str(tmp_path / "m.log"), vault_dirs=str(vault)),
        embeddings=False,
    )
    yield service, vault
    service.close()


def walk(tokens: list[Any]) -> Iterator[Any]:
    for token in tokens:
        yield token
        yield from walk(token.children or [])


def assert_inert(markdown: str) -> list[Any]:
    """The rendered note holds nothing that loads, embeds or runs; its tokens are returned."""
    tokens = list(walk(MARKDOWN.parse(markdown)))
    kinds = {t.type for t in tokens}
    assert not kinds & {"image", "html_block", "html_inline", "code_inline"}, kinds
    for fence in (t for t in tokens if t.type == "fence"):
        assert fence.info.split()[:1] in ([], ["text"]), fence.info
    assert "<%" not in markdown
    assert "![" not in markdown.replace("!\\[", "")
    return tokens


def shown_text(markdown: str) -> str:
    """What reading view shows, as text: the HTML without its tags, whitespace collapsed."""
    rendered = re.sub(r"<[^>]+>", " ", MARKDOWN.render(markdown))
    return " ".join(html.unescape(rendered).replace(WORD_JOINER, "").split())


def test_a_hostile_memory_writes_an_inert_note_and_stays_as_stored(
    mirrored: tuple[MemoryService, Path],
) -> None:
    service, vault = mirrored
    for pinned in (False, True):
        memory = service.memories.add(
            HOSTILE, title="<img src=https://evil.example/t.png> `$= 1`", pinned=pinned
        ).memory
        assert service.operations.vault_flush(30.0)
        front, body = read_note(notes(vault)[memory.id])
        assert front["title"] == memory.title  # the exact fields stay readable in the frontmatter
        assert body.count("%%") == 2  # only the note's own footer, an Obsidian comment (not shown)
        assert_inert(body[: body.index("%% memwarden:")])
        (stored,) = service.memories.get([memory.id])[0]
        assert stored.content == memory.content and "![beacon](https://evil.example" in stored.content
        service.memories.delete(memory.id)
    report = service.operations.vault_sync()
    assert report["ok"]


def test_reading_view_shows_the_stored_characters() -> None:
    prose = [line for line in HOSTILE.split("\n")[:5]]
    text = "\n".join(prose)
    assert shown_text(inert_markdown(text)) == " ".join(text.split())
    code = "```dataviewjs\nconst x = '<% tp.file.title %>' && a < b;\n```"
    assert shown_text(inert_markdown(code)) == "const x = '<% tp.file.title %>' && a < b;"


def test_fences_inside_quotes_and_lists_and_unclosed_fences_are_inert() -> None:
    assert_inert(inert_markdown(IN_CONTAINERS))
    tokens = assert_inert(
        inert_markdown("text\n```dataviewjs\ndv.el('b', 'x')") + "\n\n## Related\n\n- [[1 x]]"
    )
    assert any(t.type == "heading_open" for t in tokens)  # the open block did not swallow the rest


@given(st.text(alphabet=st.sampled_from(list("<>!&%`~[]()*_#\\- \n:=$abc/hs.")), max_size=120))
def test_any_text_is_inert_once_written(text: str) -> None:
    written = inert_markdown(text)
    assert_inert(written)
    assert_inert("> [!important] Pinned\n" + "\n".join(f"> {line}" for line in written.split("\n")))


def test_obsidian_guide_documents_the_inert_notes() -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "obsidian.md").read_text(encoding="utf-8")
    assert "## Notes are inert" in guide and "dataviewjs" in guide
