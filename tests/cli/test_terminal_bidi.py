"""Bidirectional controls in stored text cannot reorder what the operator's terminal shows
("Trojan Source"): the CLI writes them as escapes, in plain and in --json output."""

from __future__ import annotations

import json
import subprocess
import sys

from memwarden.cli.output import for_terminal
from memwarden.service import MemoryService

BIDI = [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]


def test_for_terminal_escapes_every_bidi_control_and_json_still_decodes() -> None:
    text = "pay " + "".join(BIDI) + " alice"
    shown = for_terminal(text)
    assert not set(BIDI) & set(shown)
    assert "\\u202e" in shown and "\\u2069" in shown
    assert json.loads(for_terminal(json.dumps(text, ensure_ascii=False))) == text


def test_list_and_get_json_show_a_stored_override_as_an_escape(
    service: MemoryService, cli_env: dict[str, str]
) -> None:
    content = "Transfer to \u202eevil\u202c account, then \u2067isolate\u2069 done"
    memory = service.memories.add(content).memory
    service.close()
    for args in (["list"], ["get", memory.id, "--json"]):
        done = subprocess.run(
            [sys.executable, "-m", "memwarden", *args],
            capture_output=True,
            text=True,
            env=cli_env,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert not set(BIDI) & set(done.stdout), args
        assert "\\u202e" in done.stdout, args
    assert json.loads(done.stdout)["memories"][0]["content"] == content
