"""bench/locomo.py: the LoCoMo loader and scorer, on a tiny conversation written here (the
dataset itself is read only by the bench, never by tests or the package)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

from bench.locomo import load, main, normalise_evidence, session_time

CONVERSATION = [
    {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ada",
            "speaker_b": "Bo",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ada", "dia_id": "D1:1", "text": "Did you finish the pottery class?"},
                {
                    "speaker": "Bo",
                    "dia_id": "D1:2",
                    "text": "Yes, I made a blue bowl yesterday.",
                    "blip_caption": "a photo of a bowl",
                },
            ],
            "session_2_date_time": "9:00 am on 1 June, 2023",
            "session_2": [
                {"speaker": "Ada", "dia_id": "D2:1", "text": "My sister adopted a puppy named Rex."}
            ],
        },
        "qa": [
            {"question": "What did Bo make?", "answer": "a bowl", "evidence": ["D1:2"], "category": 4},
            {
                "question": "What is the puppy called?",
                "answer": "Rex",
                "evidence": ["D:2:01; D9:9"],
                "category": 1,
            },
            {"question": "Who is the king?", "answer": "none", "evidence": ["D7:7"], "category": 5},
        ],
    }
]


def test_session_dates_parse_with_twelve_hour_clock() -> None:
    assert session_time("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56)
    assert session_time("12:05 am on 1 January, 2024") == datetime(2024, 1, 1, 0, 5)


def test_malformed_evidence_is_repaired_and_unknown_turns_dropped() -> None:
    known = {"D8:6", "D9:17", "D11:26", "D30:5"}
    assert normalise_evidence(["D8:6; D9:17", "D:11:26", "D30:05", "D99:1"], known) == [
        "D8:6",
        "D9:17",
        "D11:26",
        "D30:5",
    ]


def test_turns_carry_the_storage_convention(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_text(json.dumps(CONVERSATION), encoding="utf-8")
    conv = load(path)[0]
    first, second, third = conv.turns
    assert (
        second.content
        == "[1:56 pm on 8 May, 2023] Bo: Yes, I made a blue bowl yesterday. [shared an image: a photo of a bowl]"
    )
    assert second.context == first.content and first.context == "" and third.context == ""
    assert second.thread == "conv-x/session-1" and third.thread == "conv-x/session-2"
    assert second.occurred_at == "2023-05-08T13:56:00Z"
    assert [q.evidence for q in conv.questions] == [["D1:2"], ["D2:1"]]  # the third names no real turn


def test_keyword_run_through_mcp_scores_the_questions(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_text(json.dumps(CONVERSATION), encoding="utf-8")
    out = tmp_path / "out.json"
    assert main(["--data", str(path), "--modes", "keyword", "--json", str(out)]) == 0
    result = json.loads(out.read_text())["results"][0]
    assert result["memories"] == 3
    overall = result["scores"]["overall"]
    assert overall["n"] == 2 and overall["recall@10"] == 1.0 and overall["mrr"] == 1.0
