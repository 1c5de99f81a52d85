"""The handshake answers shipped in the package are what the server answers now, and the relay
reads kept answers strictly by key (docs/daemon.md "Starting fast")."""

from __future__ import annotations

import json
from pathlib import Path

from memwarden.daemon.handshake import SHIPPED_FILE, KeptAnswers, read_answers, sdk_versions
from memwarden.daemon.handshake_derive import derive_answers, handshake_requests
from memwarden.version import __version__


def test_the_shipped_answers_are_what_the_server_answers_now() -> None:
    shipped = read_answers(SHIPPED_FILE)
    assert shipped == derive_answers(), (
        "the MCP handshake answer changed (instructions, capabilities, the SDK or the version): "
        "run python -m memwarden.daemon.handshake_derive --write"
    )


def test_the_sdk_releases_are_read_from_the_installed_distributions() -> None:
    from importlib.metadata import version

    assert sdk_versions() == {"mcp": version("mcp"), "mcp_types": version("mcp-types")}


def test_a_kept_answer_is_found_only_under_its_own_key(tmp_path: Path) -> None:
    core, everything = KeptAnswers(str(tmp_path), "core"), KeptAnswers(str(tmp_path), "all")
    request = handshake_requests()[0]
    result = {"capabilities": {}, "instructions": "kept", "serverInfo": {"name": "memwarden"}}
    assert core.remember(request, result)
    assert core.lookup(request) == result
    assert everything.lookup(request) != result  # another profile: the shipped answer, not this
    other_version = {**request, "params": {**request["params"], "protocolVersion": "2099-01-01"}}
    assert core.lookup(other_version) is None  # nothing kept or shipped for this revision
    assert not core.remember(request, result)  # the same answer again: the file is left alone
    kept = json.loads((tmp_path / "handshake-answers.json").read_text(encoding="utf-8"))
    assert list(kept["answers"]) == [core.key(request)]
    assert str(core.key(request)).startswith(f"memwarden={__version__} mcp=")


def test_a_result_without_capabilities_is_not_kept(tmp_path: Path) -> None:
    core = KeptAnswers(str(tmp_path), "core")
    request = handshake_requests()[0]
    assert not core.remember(request, {"error": "no"})
    (tmp_path / "handshake-answers.json").write_text(
        json.dumps({"format": 1, "answers": {str(core.key(request)): "not an object"}}), encoding="utf-8"
    )
    assert core.lookup(request) == read_answers(SHIPPED_FILE).get(str(core.key(request)))
