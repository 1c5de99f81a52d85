"""What the Stop hook costs: model turns it blocks over a set of written Claude Code sessions.

Each session is a transcript (JSON lines, as Claude Code writes them) with the messages a user
typed, tool calls and results between them, and a label: does it hold a durable fact (a
decision, a preference) that a later session would need? Nothing is stored during any session,
the case in which the hook may ask. The real hook (``memwarden hook session-start`` then
``stop``, in this process) runs on each under every MEMWARDEN_HOOK_STOP mode; a "block" answer
costs one more model turn. Printed: sessions asked, of them with a durable fact (a useful
question) and without (a wasted turn), and durable-fact sessions not asked.

    python bench/stop_hook_cost.py
"""

from __future__ import annotations

import io
import json
import os
import sys
import tempfile
from pathlib import Path

# (typed messages, holds a durable fact) for each written session.
QUICK = [
    (["What does git rebase --onto do?"], False),
    (["Why is this test flaky?", "thanks"], False),
    (["Rename the helper to parse_dates", "ok"], False),
    (["Explain the retry loop in client.py", "and the backoff?"], False),
    (["Fix the typo in the README"], False),
    (["Which Python version does CI use?"], False),
    (["Add a docstring to export_rows", "looks good"], False),
    (["Run the linter and fix what it finds", "great"], False),
    (["From now on, always use pnpm here, never npm", "thanks"], True),
    (["What port does the dev server use?", "ok"], False),
]
MEDIUM = [
    (["The export crashes on empty rows", "Here is the trace", "Try guarding the loop", "Works now"], False),
    (["Set up pre-commit", "Also add ruff", "And mypy", "ok"], False),
    (["We decided to keep dates in UTC in the database", "Update the model", "And the API", "ok"], True),
    (["Bump the dependency", "Run the tests", "Fix the one failure", "Commit it", "thanks"], False),
    (["Draft the release notes", "Shorter", "Mention the migration", "Good"], False),
    (["The client prefers weekly summaries by email", "Add that to the report job", "Test it", "ok"], True),
]
LONG = [
    ([f"Step {n} of the billing refactor: move {n} more functions" for n in range(1, 9)], True),
    ([f"Review comment {n}: address it" for n in range(1, 7)], False),
    (["Our staging DB is at db-stage-2 now"] + [f"Migrate table {n}" for n in range(1, 10)], True),
    ([f"Debug attempt {n} on the websocket drop" for n in range(1, 12)], True),
    ([f"Write test case {n} for the parser" for n in range(1, 7)], False),
    (["Use tabs in this repo, the team agreed"] + [f"Format module {n}" for n in range(1, 7)], True),
    ([f"Translate page {n} of the docs to German" for n in range(1, 8)], False),
    (["I am the only maintainer; ask before force-pushing"] + [f"Task {n}" for n in range(1, 15)], True),
]
SESSIONS = QUICK + MEDIUM + LONG


def write_transcript(path: Path, typed: list[str]) -> None:
    entries: list[dict[str, object]] = []
    for n, text in enumerate(typed):
        entries += [
            {"type": "user", "message": {"role": "user", "content": text}},
            {
                "type": "assistant",
                "message": {"role": "assistant", "content": [{"type": "text", "text": "Done."}]},
            },
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": f"t{n}", "content": "ok"}],
                },
            },
        ]
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")


def run(hook: str, payload: dict[str, object], db: Path) -> str:
    from memwarden.hooks.commands import run_hook

    out = io.StringIO()
    run_hook(hook, db=str(db), stdin=io.StringIO(json.dumps(payload)), stdout=out)
    return out.getvalue()


def measure(mode: str, folder: Path) -> dict[str, int]:
    os.environ["MEMWARDEN_HOOK_STOP"] = mode
    db = folder / f"{mode}.db"
    from memwarden.app import build_service
    from memwarden.settings_reader import load_hot_settings

    build_service(load_hot_settings(db=str(db)), embeddings=False).close()  # the database exists
    counts = {"asked": 0, "asked_with_fact": 0, "asked_without_fact": 0, "fact_not_asked": 0}
    for n, (typed, durable) in enumerate(SESSIONS):
        transcript = folder / f"{mode}-{n}.jsonl"
        write_transcript(transcript, typed)
        base = {"session_id": f"{mode}-{n}", "transcript_path": str(transcript), "cwd": str(folder)}
        run("session-start", {**base, "hook_event_name": "SessionStart", "source": "startup"}, db)
        answer = run("stop", {**base, "hook_event_name": "Stop", "stop_hook_active": False}, db)
        asked = bool(answer) and json.loads(answer).get("decision") == "block"
        counts["asked"] += asked
        counts["asked_with_fact"] += asked and durable
        counts["asked_without_fact"] += asked and not durable
        counts["fact_not_asked"] += durable and not asked
    return counts


def main() -> int:
    os.environ.update(MEMWARDEN_EMBEDDER="none", MEMWARDEN_DAEMON="off")
    durable = sum(1 for _, fact in SESSIONS if fact)
    print(f"{len(SESSIONS)} sessions, {durable} with a durable fact, nothing stored in any")
    print(f"{'mode':<6} {'turns blocked':>13} {'useful':>7} {'wasted':>7} {'facts not asked':>16}")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["MEMWARDEN_LOG_FILE"] = str(Path(tmp) / "memwarden.log")
        results = {mode: measure(mode, Path(tmp)) for mode in ("block", "nudge", "off")}
    for mode, c in results.items():
        print(
            f"{mode:<6} {c['asked']:>13} {c['asked_with_fact']:>7} {c['asked_without_fact']:>7} "
            f"{c['fact_not_asked']:>16}"
        )
    json.dump(results, sys.stderr)
    sys.stderr.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
