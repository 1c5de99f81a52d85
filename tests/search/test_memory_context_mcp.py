"""context, thread and occurred_at through a real MCP client session: stored, redacted,
searchable, returned only on request, lifting thread neighbours; bad input stores nothing."""

from __future__ import annotations

import anyio
import pytest

from memwarden.service import MemoryService
from tests.mcp_helpers import call_error, call_ok, mcp_client

pytestmark = pytest.mark.keyword_only


def test_context_is_stored_redacted_and_returned_only_on_request(service: MemoryService) -> None:
    async def run() -> None:
        async with mcp_client(service) as client:
            added = await call_ok(
                client,
                "memory_add",
                {
                    "content": "A blue bowl with a wavy rim!",
                    "project": "chat",
                    "context": "Bo, what did you make in pottery class? Mail me at bo@example.com",
                    "thread": "chat-1/session-1",
                    "occurred_at": "2023-05-08T13:56:00Z",
                },
            )
            memory = added["memory"]
            assert memory["thread"] == "chat-1/session-1" and memory["occurred_at"].startswith(
                "2023-05-08T13:56"
            )
            assert memory.get("context") is None and "email" in added["redactions"]
            found = await call_ok(client, "memory_search", {"query": "pottery class", "project": "chat"})
            assert [h["id"] for h in found["hits"]] == [added["id"]]
            assert found["hits"][0].get("context") is None
            with_context = await call_ok(
                client, "memory_search", {"query": "pottery", "project": "chat", "include_context": True}
            )
            context = with_context["hits"][0]["context"]
            assert "pottery class" in context and "bo@example.com" not in context and "[REDACTED" in context
            got = await call_ok(client, "memory_get", {"ids": [added["id"]], "include_context": True})
            assert got["memories"][0]["context"] == context
            budget = await call_ok(
                client,
                "memory_search",
                {"query": "pottery", "project": "chat", "include_context": True, "max_tokens": 12},
            )
            assert budget["count"] == 1  # the context does not count against the budget

    anyio.run(run)


def test_a_reply_is_found_through_its_thread_neighbour_with_why(service: MemoryService) -> None:
    async def run() -> None:
        async with mcp_client(service) as client:
            turns = [
                "Did you finish the pottery class project?",
                "Yes! A blue bowl with a wavy rim.",
                "Nice, the weather is lovely today.",
            ]
            ids = []
            for minute, turn in enumerate(turns):
                added = await call_ok(
                    client,
                    "memory_add",
                    {
                        "content": turn,
                        "project": "chat",
                        "thread": "s1",
                        "occurred_at": f"2023-05-08T13:5{minute}:00Z",
                    },
                )
                ids.append(added["id"])
            found = await call_ok(
                client, "memory_search", {"query": "pottery class project", "project": "chat"}
            )
            by_id = {h["id"]: h for h in found["hits"]}
            assert ids[1] in by_id and by_id[ids[1]]["why"]["thread"] > 0
            assert found["hits"][0]["id"] == ids[0]

    anyio.run(run)


def test_yesterday_is_found_by_the_date_it_names(service: MemoryService) -> None:
    async def run() -> None:
        async with mcp_client(service) as client:
            said = await call_ok(
                client,
                "memory_add",
                {"content": "Yesterday I ran a charity race", "project": "p", "occurred_at": "2023-05-09"},
            )
            await call_ok(
                client,
                "memory_add",
                {"content": "I ran a charity race", "project": "p", "occurred_at": "2023-07-20"},
            )
            found = await call_ok(client, "memory_search", {"query": "race on 8 May 2023", "project": "p"})
            assert found["hits"][0]["id"] == said["id"]

    anyio.run(run)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"context": "x" * (16 * 1024 + 1)}, "context is 16385 bytes, over the limit"),
        ({"occurred_at": "last tuesday"}, "occurred_at is not an ISO 8601"),  # not echoed (issue 31)
        ({"occurred_at": "2999-01-01"}, "lies more than 366 days in the future"),
        ({"thread": "chat\x07one"}, "thread may not contain U+0007"),
        ({"thread": "t" * 201}, "thread must be at most 200"),
        ({"context": "a\x00b"}, "context contains a NUL byte"),
    ],
)
def test_bad_context_thread_or_time_is_refused_and_nothing_is_stored(
    service: MemoryService, arguments: dict[str, object], message: str
) -> None:
    async def run() -> None:
        async with mcp_client(service) as client:
            text = await call_error(
                client, "memory_add", {"content": "fine content", "project": "p", **arguments}
            )
            assert message in text
            assert (await call_ok(client, "memory_stats", {}))["memories"] == 0
            kept = await call_ok(client, "memory_add", {"content": "fine content", "project": "p"})
            text = await call_error(client, "memory_update", {"id": kept["id"], **arguments})
            assert message in text
            got = await call_ok(client, "memory_get", {"ids": [kept["id"]], "include_context": True})
            assert got["memories"][0]["version"] == 1 and got["memories"][0]["context"] == ""

    anyio.run(run)


def test_update_changes_context_thread_and_time(service: MemoryService) -> None:
    async def run() -> None:
        async with mcp_client(service) as client:
            added = await call_ok(
                client, "memory_add", {"content": "A blue bowl", "project": "p", "context": "pottery"}
            )
            updated = await call_ok(
                client,
                "memory_update",
                {
                    "id": added["id"],
                    "context": "ceramics",
                    "thread": "t2",
                    "occurred_at": "2024-01-02T03:04:05+01:00",
                },
            )
            assert updated["memory"]["thread"] == "t2" and updated["memory"]["occurred_at"].startswith(
                "2024-01-02T02:04:05"
            )
            assert (await call_ok(client, "memory_search", {"query": "pottery", "project": "p"}))[
                "count"
            ] == 0
            assert (await call_ok(client, "memory_search", {"query": "ceramics", "project": "p"}))[
                "count"
            ] == 1

    anyio.run(run)


def test_a_reply_ranks_above_the_question_it_answers(service: MemoryService) -> None:
    """A thread memory that asks a question keeps part of its own text match (threads.py), so
    the reply that answers it, matching as many words, ranks first; outside a thread nothing
    changes."""
    turns = [
        "Caroline: Melanie, you play any instruments?",
        "Melanie: Yeah, I play clarinet! Instruments relax me.",
    ]
    ids = [
        service.memories.add(t, project="chat", thread="s1", occurred_at=f"2023-05-08T13:5{i}:00Z").memory.id
        for i, t in enumerate(turns)
    ]
    hits = service.searcher.search("What instruments does Melanie play?", project="chat").hits
    assert [h.memory.id for h in hits[:2]] == [ids[1], ids[0]]
    loose = [service.memories.add(t, project="loose").memory.id for t in turns]
    hits = service.searcher.search("What instruments does Melanie play?", project="loose").hits
    assert hits[0].memory.id == loose[0]  # no thread: the question's own match counts in full


def test_question_marks_of_other_scripts_count(service: MemoryService) -> None:

    from memwarden.search.threads import asks_question

    memory = service.memories.add("a turn of the chat", project="chat", thread="s1").memory
    for text, asks in (("你会弹乐器吗？", True), ("هل تعزف؟", True), ("Any plans? ", True), ("Sure.", False)):
        assert asks_question(memory._replace(content=text)) is asks
    assert asks_question(memory._replace(content="Any plans?", thread="")) is False
