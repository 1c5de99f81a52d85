"""max_tokens on memory_search: the service, the MCP tool and the CLI."""

from __future__ import annotations

import json

import anyio
import pytest

from memwarden.cli.main import main
from memwarden.errors import InvalidInput
from memwarden.service import MemoryService
from memwarden.text.tokens import estimate_tokens
from tests.mcp_helpers import call_error, call_ok, mcp_client


def test_tokens_are_estimated_high_for_ascii_and_per_character_elsewhere() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1 and estimate_tokens("abcde") == 2
    assert estimate_tokens("数据库") == 3
    assert estimate_tokens("yedeği") == 3  # 5 ASCII letters -> 2, plus 1 for ğ


def test_the_best_hits_that_fit_are_returned_in_rank_order(service: MemoryService) -> None:
    big = service.memories.add("backup " + "with a very long explanation " * 20, project="p").memory
    small = [service.memories.add(f"backup note {i}", project="p").memory for i in range(3)]
    full = service.searcher.search("backup", project="p", limit=10)
    assert len(full.hits) == 4 and full.tokens is None and full.omitted == 0
    budget = sum(estimate_tokens(m.content) for m in small)
    fitted = service.searcher.search("backup", project="p", limit=10, max_tokens=budget)
    assert {h.memory.id for h in fitted.hits} == {m.id for m in small}
    assert big.id not in {h.memory.id for h in fitted.hits}
    assert fitted.tokens == budget and fitted.omitted == 1
    assert [h.memory.id for h in fitted.hits] == [h.memory.id for h in full.hits if h.memory.id != big.id]
    # Usage is counted only for hits actually returned.
    counts = {m.id: m.hit_count for m in service.memories.get([big.id, *(m.id for m in small)])[0]}
    assert counts[big.id] == 1 and all(counts[m.id] == 2 for m in small)


def test_a_budget_too_small_for_any_hit_returns_none(service: MemoryService) -> None:
    service.memories.add("a memory about deployments that is longer than two tokens")
    result = service.searcher.search("deployments", max_tokens=2)
    assert result.hits == [] and result.omitted == 1 and result.tokens == 0


@pytest.mark.parametrize("bad", [0, -5, 1_000_001, "100", 2.5, True])
def test_bad_budgets_are_refused_by_name(service: MemoryService, bad: object) -> None:
    with pytest.raises(InvalidInput, match="max_tokens"):
        service.searcher.search("x", max_tokens=bad)


def test_memory_search_tool_takes_max_tokens(service: MemoryService) -> None:
    service.memories.add("The cache TTL of the CDN is five minutes.")
    service.memories.add("The CDN is Cloudflare. " * 30)

    async def run() -> None:
        async with mcp_client(service) as client:
            found = await call_ok(client, "memory_search", {"query": "CDN", "max_tokens": 20})
            assert found["count"] == 1 and found["tokens"] <= 20 and found["omitted"] == 1
            assert "max_tokens" in await call_error(
                client, "memory_search", {"query": "CDN", "max_tokens": 0}
            )

    anyio.run(run)


def test_cli_search_takes_max_tokens(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str]
) -> None:
    for key, value in cli_env.items():
        monkeypatch.setenv(key, value)
    assert main(["add", "Staging resets every Sunday night."]) == 0
    assert main(["add", "Staging " + "is described at length here. " * 20]) == 0
    capsys.readouterr()
    assert main(["search", "staging", "--max-tokens", "15", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["count"] == 1 and result["omitted"] == 1
    assert main(["search", "staging", "--max-tokens", "15"]) == 0
    assert "1 more did not fit" in capsys.readouterr().out
    assert main(["search", "staging", "--max-tokens", "0"]) == 1
    assert "max_tokens" in capsys.readouterr().err
