"""Export and import: round trips, dedup, malformed files refused whole, other tools' formats."""

from __future__ import annotations

import io
import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from memwarden.app import build_service
from memwarden.config import Settings, load_settings
from memwarden.errors import InvalidInput
from memwarden.models import Caller
from memwarden.ops.transfer import read_limited
from memwarden.service import MemoryService

DOCS = Path(__file__).resolve().parents[2] / "docs"
SCHEMA = json.loads((DOCS / "export-format.schema.json").read_text(encoding="utf-8"))


@pytest.fixture
def service(settings: Settings) -> Iterator[MemoryService]:
    svc = build_service(settings, ops=True)
    yield svc
    svc.close()


def _rows(db: Path) -> list[tuple]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT * FROM memories ORDER BY id").fetchall()
    finally:
        conn.close()


def _export(service: MemoryService, **kwargs: object) -> str:
    buffer = io.StringIO()
    service.operations.export_to(buffer, **kwargs)  # type: ignore[arg-type]
    return buffer.getvalue()


def _other_service(tmp_path: Path, name: str) -> MemoryService:
    return build_service(
        load_settings(
            db=str(tmp_path / f"{name}.db"),
            log_file=str(tmp_path / "log"),
            backup_dir=str(tmp_path / "bk"),
            export_dir=str(tmp_path / "x"),
        ),
        ops=True,
    )


def test_export_matches_the_published_schema_and_round_trips_ids_and_times(
    service: MemoryService, tmp_path: Path
) -> None:
    a = service.memories.add(
        "Prefers email over calls", project="crm", tags=["contact"], pinned=True, title="Contact"
    ).memory
    b = service.memories.add("Deploys on Tuesdays", project="ops", ttl_hours=48).memory
    gone = service.memories.add("deleted one").memory
    service.memories.delete(gone.id)
    service.searcher.search("email")
    text = _export(service, include_deleted=True)
    document = json.loads(text)
    jsonschema.validate(document, SCHEMA)
    assert document["format"] == "memwarden.export" and document["version"] == 1
    assert document["count"] == 3
    other = _other_service(tmp_path, "other")
    try:
        report = other.operations.import_text(text)
        assert report["inserted"] == 3 and report["format"] == "memwarden"
        mine = {m.id: m for m in service.store.iter_memories("default", project=None, include_deleted=True)}
        theirs = {m.id: m for m in other.store.iter_memories("default", project=None, include_deleted=True)}
        # Everything round-trips but provenance: an imported memory was written by an import.
        assert theirs == {i: m._replace(source="import") for i, m in mine.items()}
        assert {m.source for m in mine.values()} == {"unknown"}  # a service built without a route
        assert [h.memory.id for h in other.searcher.search("email").hits] == [a.id]
        assert other.memories.get([b.id])[0][0].expires_at == b.expires_at
        assert other.searcher.search("deleted").hits == []
    finally:
        other.close()


def test_importing_a_10k_memory_file_twice_leaves_10k_memories(
    service: MemoryService, tmp_path: Path
) -> None:
    source = _other_service(tmp_path, "source")
    try:
        records = [
            {"content": f"memory number {i} about topic {i % 97}", "scope": f"p{i % 5}"}
            for i in range(10_000)
        ]
        source.operations.import_text(json.dumps(records), fmt="memorry")
        text = _export(source)
    finally:
        source.close()
    first = service.operations.import_text(text)
    second = service.operations.import_text(text)
    assert first["inserted"] == 10_000
    assert second["inserted"] == 0 and second["skipped_same_id"] == 10_000
    assert service.memories.stats()["memories"] == 10_000
    assert service.store.keyword_index_mismatch() is None
    # A foreign format has no ids: the second import is skipped as exact duplicates instead.
    again = service.operations.import_text(json.dumps(records[:100]), fmt="memorry")
    assert again["inserted"] == 0 and again["skipped_duplicate"] == 100


BAD_FILES = [
    ("{not json", "not valid JSON"),
    ('{"format": "memwarden.export", "version": 2, "memories": []}', "version 2 is not supported"),
    ('{"format": "memwarden.export", "version": 1}', 'no "memories" list'),
    (
        '{"format": "memwarden.export", "version": 1, "memories": [{"content": "x", "created_at": '
        '"2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}]}',
        "missing field 'id'",
    ),
    (
        '{"format": "memwarden.export", "version": 1, "memories": [{"id": "01JD3Z5X9Q2W8E7R6T5Y4V3K2M", '
        '"created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}]}',
        "missing field 'content'",
    ),
    (
        '{"format": "memwarden.export", "version": 1, "memories": [{"id": "../../etc/passwd", "content": "x", '
        '"created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}]}',
        "not a memory id",
    ),
    (
        '{"format": "memwarden.export", "version": 1, "memories": [{"id": "01JD3Z5X9Q2W8E7R6T5Y4V3K2M", '
        '"content": "x", "created_at": "yesterday", "updated_at": "2026-01-01T00:00:00Z"}]}',
        "not an ISO 8601",
    ),
    (
        '{"format": "memwarden.export", "version": 1, "memories": [{"id": "01JD3Z5X9Q2W8E7R6T5Y4V3K2M", '
        '"content": "   ", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}]}',
        "empty",
    ),
    ('[{"content": "fine"}, {"content": "x", "tags": "not-a-list"}]', "tags must be list"),
    (
        '{"format": "memwarden.export", "version": 1, "memories": [{"id": "01JD3Z5X9Q2W8E7R6T5Y4V3K2M", '
        '"content": "x", "kind": "poem", "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"}]}',
        "kind must be one of",
    ),
    ('"just a string"', "cannot tell what kind of file"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
]


@pytest.mark.parametrize(("text", "message"), BAD_FILES)
def test_malformed_imports_are_refused_whole_and_change_nothing(
    service: MemoryService, db_path: Path, text: str, message: str
) -> None:
    service.memories.add("already here")
    before = _rows(db_path)
    with pytest.raises(InvalidInput, match=message):
        service.operations.import_text(text)
    assert _rows(db_path) == before


def test_a_bad_record_late_in_a_file_imports_nothing(service: MemoryService, db_path: Path) -> None:
    records = [{"content": f"good {i}"} for i in range(2500)] + [{"text": None}]
    before = _rows(db_path)
    with pytest.raises(InvalidInput, match="memory #2501"):
        service.operations.import_text(json.dumps(records), fmt="memorry")
    assert _rows(db_path) == before


def test_a_1_gib_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    huge = tmp_path / "huge.json"
    with huge.open("wb") as handle:  # sparse: no gigabyte is written to disk
        handle.truncate(1024**3)
    assert huge.stat().st_size == 1024**3
    assert os.stat(huge).st_blocks * 512 < 1024**2
    with pytest.raises(InvalidInput, match="over the import limit"):
        read_limited(huge, 64 * 1024 * 1024)


def test_files_that_are_not_utf8_or_not_files_are_refused(tmp_path: Path) -> None:
    latin = tmp_path / "latin.json"
    latin.write_bytes('[{"content": "café"}]'.encode("latin-1"))
    with pytest.raises(InvalidInput, match="not UTF-8"):
        read_limited(latin, 1024)
    with pytest.raises(InvalidInput, match="not a regular file"):
        read_limited(tmp_path, 1024)
    with pytest.raises(InvalidInput, match="cannot read"):
        read_limited(tmp_path / "missing.json", 1024)


@pytest.mark.parametrize(
    "name",
    [
        "../escape.json",
        "/etc/passwd",
        "a/b.json",
        "..",
        ".hidden",
        "x\\y.json",
        "",
        "a" * 200,
        "nul\x00.json",
        "..json",
    ],
)
def test_file_names_with_path_traversal_are_refused(
    service: MemoryService, tmp_path: Path, name: str, db_path: Path
) -> None:
    service.memories.add("exportable")
    before = _rows(db_path)
    with pytest.raises(InvalidInput, match="plain file name"):
        service.operations.export_file(name)
    with pytest.raises(InvalidInput, match="plain file name"):
        service.operations.import_file(name)
    assert _rows(db_path) == before
    assert not (tmp_path / "escape.json").exists()


def test_export_file_and_import_file_stay_in_the_export_folder(
    service: MemoryService, tmp_path: Path
) -> None:
    service.memories.add("kept in the exchange folder")
    written = service.operations.export_file("team.json")
    assert Path(written["file"]).parent == service.operations.options.exchange_dir and written["count"] == 1
    with pytest.raises(InvalidInput, match="exists"):
        service.operations.export_file("team.json")
    assert service.operations.import_file("team.json")["skipped_same_id"] == 1


def test_import_redacts_through_the_service_content_path(service: MemoryService) -> None:
    calls: list[str] = []
    original = service.intake.clean_content

    def spy(content: object) -> tuple[str, tuple[str, ...]]:
        calls.append(str(content))
        return original(content)

    service.intake.clean_content = spy  # type: ignore[method-assign]
    service.operations.import_text(json.dumps([{"content": "one"}, {"content": "two"}]), fmt="memorry")
    assert calls == ["one", "two"]


def test_import_goes_to_the_callers_tenant_never_the_files(service: MemoryService, tmp_path: Path) -> None:
    document = json.loads(_export_with_one(service))
    document["tenant"] = "someone-else"
    bob = Caller(actor="bob", tenant="bobs")
    target = _other_service(tmp_path, "bob")
    try:
        report = target.operations.import_text(json.dumps(document), caller=bob, project="moved")
        assert report["inserted"] == 1
        assert target.memories.list(caller=bob)[0].project == "moved"
        assert target.memories.list(caller=Caller(actor="x", tenant="someone-else")) == []
        # Bob's import stored the record under an id of his own tenant, so the file's id stays free:
        # the operator's import of the same file keeps it, and takes nothing from Bob.
        again = target.operations.import_text(json.dumps(document))
        assert (again["inserted"], again["skipped_same_id"], again["new_ids"]) == (1, 0, 0)
        assert len(target.memories.list(caller=bob)) == 1
    finally:
        target.close()


def _export_with_one(service: MemoryService) -> str:
    service.memories.add("a single memory")
    return _export(service)


def test_mcp_memory_knowledge_graph_jsonl_becomes_memories(service: MemoryService) -> None:
    lines = [
        {
            "type": "entity",
            "name": "John_Smith",
            "entityType": "person",
            "observations": ["Speaks fluent Spanish", "Graduated in 2019"],
        },
        {"type": "entity", "name": "Anthropic", "entityType": "organization", "observations": []},
        {"type": "relation", "from": "John_Smith", "to": "Anthropic", "relationType": "works_at"},
    ]
    text = "\n".join(json.dumps(line) for line in lines) + "\n"
    report = service.operations.import_text(text)
    assert report["format"] == "mcp-memory" and report["inserted"] == 3
    contents = sorted(m.content for m in service.memories.list(limit=10))
    assert contents == [
        "John_Smith works_at Anthropic",
        "John_Smith: Graduated in 2019",
        "John_Smith: Speaks fluent Spanish",
    ]
    assert service.searcher.search("Spanish").hits[0].memory.tags == ("person",)
    assert service.operations.import_text(text)["inserted"] == 0


def test_long_names_are_cut_at_a_word_so_no_part_of_a_secret_survives(
    service: MemoryService, db_path: Path
) -> None:
    """An entity name or type over the title's or tag's length is cut at a space: cut inside a
    word, a token across the limit kept a part no rule recognises (``ghp_abcdefghijklmnopqrstu``)."""
    token = "ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
    name = "x" * 280 + " " + token
    entity = {"type": "entity", "name": name, "entityType": "t" * 50 + " " + token, "observations": ["o"]}
    assert service.operations.import_text(json.dumps(entity) + "\n")["inserted"] == 1
    (memory,) = service.memories.list(limit=5)
    assert memory.title == "x" * 280 and memory.tags == ("t" * 50,)
    assert "[REDACTED:github_token]" in memory.content
    assert b"ghp_abcdefghij" not in db_path.read_bytes() + Path(f"{db_path}-wal").read_bytes()


def test_mem0_export_json_becomes_memories(service: MemoryService) -> None:
    document = {
        "results": [
            {
                "id": "892db2ae-06d9-49e5-8b3e-585ef9b85b8e",
                "memory": "Dev works at TechCorp as a senior engineer",
                "hash": "4b7e9a",
                "metadata": {"type": "professional"},
                "categories": ["work"],
                "created_at": "2025-01-02T10:00:00.000000-08:00",
                "updated_at": "2025-01-03T10:00:00-08:00",
                "user_id": "dev",
            },
            {
                "id": "b2",
                "memory": "Arjun prefers morning meetings",
                "metadata": None,
                "created_at": "2025-02-01T09:00:00Z",
                "updated_at": None,
            },
        ],
        "count": 2,
    }
    report = service.operations.import_text(json.dumps(document))
    assert report["format"] == "mem0" and report["inserted"] == 2
    dev = service.searcher.search("TechCorp").hits[0].memory
    assert dev.tags == ("work", "professional")
    assert dev.created_at.isoformat().startswith("2025-01-02T18:00:00")
    assert (
        service.operations.import_text(json.dumps(document["results"]), fmt="mem0")["skipped_duplicate"] == 2
    )


def test_memorry_style_dump_becomes_memories(service: MemoryService) -> None:
    dump = {
        "memories": [
            {
                "id": 17,
                "text": "Staging DB is db-stage-2",
                "scope": "infra",
                "tags": ["db"],
                "type": "fact",
                "created_at": "2025-05-01T12:00:00Z",
            },
            {"content": "Likes dark mode", "type": "preference", "pinned": True},
            {"content": "odd kind", "type": "reminder"},
        ]
    }
    report = service.operations.import_text(json.dumps(dump))
    assert report["format"] == "memorry" and report["inserted"] == 3
    staging = service.searcher.search("staging", project="infra").hits[0].memory
    assert staging.tags == ("db",) and staging.created_at.year == 2025
    assert service.memories.list(pinned=True)[0].kind == "preference"
    assert {m.kind for m in service.memories.list()} == {"fact", "preference", "note"}


@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(
            st.text(min_size=1, max_size=60).filter(lambda t: t.strip() and "\x00" not in t),
            st.sampled_from(["a", "b", "ünï"]),
            st.lists(st.text(alphabet="abcxyz-", min_size=1, max_size=8), max_size=3),
        ),
        max_size=8,
    )
)
def test_export_then_import_round_trips_any_content(
    tmp_path_factory: pytest.TempPathFactory, items: list[tuple[str, str, list[str]]]
) -> None:
    base = tmp_path_factory.mktemp("rt")
    source = _other_service(base, "src")
    target = _other_service(base, "dst")
    try:
        for content, project, tags in items:
            try:
                source.memories.add(content, project=project, tags=tags)
            except InvalidInput:
                continue
        target.operations.import_text(_export(source))
        mine = {m.id: m for m in source.store.iter_memories("default", project=None, include_deleted=True)}
        theirs = {m.id: m for m in target.store.iter_memories("default", project=None, include_deleted=True)}
        assert theirs == {i: m._replace(source="import") for i, m in mine.items()}  # provenance: an import
    finally:
        source.close()
        target.close()


def test_the_published_schema_is_the_one_the_export_models_describe() -> None:
    from memwarden.ops.export_format import schema_text

    published = (DOCS / "export-format.schema.json").read_text(encoding="utf-8")
    assert published == schema_text(), "run: python scripts/generate_export_schema.py"


def test_an_export_with_a_wrong_type_names_the_record_and_the_field(
    service: MemoryService, db_path: Path
) -> None:
    record = {
        "id": "01JD3Z5X9Q2W8E7R6T5Y4V3K2M",
        "content": "x",
        "pinned": "yes",
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
    }
    document = {"format": "memwarden.export", "version": 1, "memories": [record]}
    before = _rows(db_path)
    with pytest.raises(InvalidInput, match=r"memory #1: pinned"):
        service.operations.import_text(json.dumps(document))
    assert _rows(db_path) == before
