"""The request models: one per operation, checked once, refusing bad input with memwarden's errors."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memwarden.errors import InvalidInput
from memwarden.requests import (
    AddRequest,
    DeleteRequest,
    GetRequest,
    ImportRequest,
    ListRequest,
    SearchRequest,
    UpdateRequest,
)
from memwarden.tool_text import TOOLS

AN_ID = "01JD3Z5X9Q2W8E7R6T5Y4V3K2M"


def test_a_valid_add_keeps_its_values_and_fills_the_defaults() -> None:
    request = AddRequest(content="The client prefers email", tags=["crm", "crm", " mail "], ttl_hours=2)
    assert request.kind == "fact" and request.title == "" and request.pinned is False
    assert request.tags == ["crm", "mail"]
    assert request.ttl_hours == 2.0 and isinstance(request.ttl_hours, float)


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({}, "content", "required"),
        ({"content": 7}, "content", "must be a string"),
        ({"content": "   "}, "content", "empty"),
        ({"content": "x", "kind": "rumour"}, "kind", "one of fact"),
        ({"content": "x", "tags": "a,b"}, "tags", "list of strings"),
        ({"content": "x", "tags": ["x" * 65]}, "tags", "1-64"),
        ({"content": "x", "ttl_hours": 0}, "ttl_hours", "more than 0"),
        ({"content": "x", "ttl_hours": "5"}, "ttl_hours", "number of hours"),
        ({"content": "x", "pinned": "yes"}, "pinned", "true or false"),
        ({"content": "x", "project": "p" * 101}, "project", "1-100"),
        ({"content": "x", "title": "t" * 301}, "title", "300"),
        ({"content": "x", "occurred_at": 2023}, "occurred_at", "ISO 8601"),
        ({"content": "x", "tenant": "someone-else"}, "tenant", "not a field"),
    ],
)
def test_bad_add_input_is_refused_naming_the_field(fields: dict[str, object], field: str, words: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        AddRequest.parse(fields)
    assert caught.value.fields["field"] == field
    assert words in caught.value.message


def test_every_operation_refuses_its_own_bad_fields() -> None:
    with pytest.raises(InvalidInput, match="limit must be between 1 and 100"):
        SearchRequest(limit=0)
    with pytest.raises(InvalidInput, match="limit must be a whole number"):
        ListRequest.parse({"limit": True})
    with pytest.raises(InvalidInput, match="max_tokens must be between"):
        SearchRequest(max_tokens=0)
    with pytest.raises(InvalidInput, match="not a memory id"):
        DeleteRequest(id="nope")
    with pytest.raises(InvalidInput, match="at most 100 ids"):
        GetRequest(ids=[AN_ID] * 101)
    with pytest.raises(InvalidInput, match="if_version must be a whole number"):
        UpdateRequest.parse({"id": AN_ID, "if_version": "3"})
    with pytest.raises(InvalidInput, match="query is longer than 4000"):
        SearchRequest(query="q" * 4001)
    with pytest.raises(InvalidInput, match="data is empty"):
        ImportRequest(data=" ")
    with pytest.raises(InvalidInput, match="JSON object"):
        SearchRequest.parse(["not", "an", "object"])


def test_update_tells_unchanged_from_cleared() -> None:
    untouched = UpdateRequest(id=AN_ID.lower())
    assert untouched.id == AN_ID  # ids are read case-insensitively, stored upper-case
    assert untouched.tags is None and untouched.title is None
    cleared = UpdateRequest(id=AN_ID, tags=[], title="", context="")
    assert (cleared.tags, cleared.title, cleared.context) == ([], "", "")


def test_occurred_at_takes_a_datetime_or_iso_text() -> None:
    when = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert AddRequest(content="x", occurred_at=when).occurred_at == when
    assert AddRequest(content="x", occurred_at="2023-05-08").occurred_at == "2023-05-08"


def test_requests_are_frozen_values() -> None:
    request = SearchRequest(query="deploy")
    with pytest.raises(Exception, match="frozen"):
        request.query = "other"  # type: ignore[misc]
    assert request == SearchRequest.parse({"query": "deploy"})


def test_the_fields_carry_the_words_the_mcp_tools_publish() -> None:
    for model in (AddRequest, UpdateRequest, SearchRequest, ListRequest, GetRequest, DeleteRequest):
        assert model.tool is not None
        words = TOOLS[model.tool].params
        for name, field in model.model_fields.items():
            if name in words:
                assert field.description == words[name], (model.tool, name)
        # Every parameter a tool publishes is a field of its request, but the MCP alias ``scope``.
        assert set(words) - {"scope"} <= set(model.model_fields), model.tool


def _options(command: str) -> set[str]:
    """The destinations of the options of one CLI command."""
    import argparse

    from memwarden.cli.main import build_parser

    for action in build_parser(core_only=True)._actions:
        if isinstance(action, argparse._SubParsersAction):
            return {a.dest for a in action.choices[command]._actions}
    raise AssertionError("no commands")


def test_the_cli_offers_every_field_of_its_requests() -> None:
    # The CLI's option names: a repeatable --tag fills ``tags``, --hybrid the search's ``vector``.
    spelled = {"tags": "tag", "vector": "hybrid"}
    for command, model in [
        ("add", AddRequest),
        ("update", UpdateRequest),
        ("search", SearchRequest),
        ("list", ListRequest),
        ("get", GetRequest),
        ("delete", DeleteRequest),
    ]:
        missing = {spelled.get(name, name) for name in model.model_fields} - _options(command)
        assert missing == set(), (command, missing)
