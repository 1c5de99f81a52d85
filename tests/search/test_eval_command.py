"""``memwarden eval FILE [--fit]`` on a real database: scores per configuration, a proposal,
no side effects on the memories, one audit row; bad files fail clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memwarden.app import build_service
from memwarden.cli.main import main
from memwarden.config import load_settings
from memwarden.store.audit_logs import open_audit_log


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, cli_env: dict[str, str]) -> dict[str, str]:
    for key, value in cli_env.items():
        if key.startswith("MEMWARDEN_"):
            monkeypatch.setenv(key, value)
    monkeypatch.setenv("MEMWARDEN_EMBEDDER", "none")
    return cli_env


def _fill(env: dict[str, str]) -> dict[str, str]:
    service = build_service(load_settings(), background=False)
    try:
        ids = {}
        turns = [
            ("q", "Did you finish the pottery class project?"),
            ("a", "Yes! A blue bowl with a wavy rim."),
            ("x", "The weather was lovely on the walk."),
        ]
        for minute, (key, text) in enumerate(turns):
            ids[key] = service.memories.add(
                text, project="chat", thread="s1", occurred_at=f"2023-05-08T13:5{minute}:00Z"
            ).memory.id
        ids["deploy"] = service.memories.add("Deploys happen on Tuesdays", project="ops").memory.id
        return ids
    finally:
        service.close()


def test_eval_scores_configurations_and_fit_proposes_settings(
    env: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = _fill(env)
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        "\n".join(
            [
                json.dumps(
                    {"query": "what did they make in the pottery class", "project": "chat", "ids": [ids["a"]]}
                ),
                json.dumps({"query": "when do we deploy", "expect": "tuesdays"}),
                json.dumps({"query": "nothing matches this", "expect": "no memory says this"}),
            ]
        ),
        encoding="utf-8",
    )
    assert main(["eval", str(labels), "--fit", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["queries"] == 3 and report["scored"] == 2 and report["unresolved_lines"] == [3]
    keyword = report["configurations"]["keyword"]
    assert keyword["recall@10"] == 1.0 and keyword["thread_weight"] == 0.3 and keyword["p50_ms"] > 0
    proposed = report["configurations"]["proposed (keyword)"]
    assert proposed["mrr"] >= keyword["mrr"]
    assert set(report["proposal"]["settings"]) == {"MEMWARDEN_SEARCH_THREAD_WEIGHT"}
    assert main(["eval", str(labels)]) == 0
    out = capsys.readouterr().out
    assert "2 of 3 labelled queries scored" in out and "line(s) 3" in out and "keyword" in out
    service = build_service(load_settings(), background=False)
    try:
        assert all(m.hit_count == 0 for m in service.memories.list(limit=10))  # eval counts no use
    finally:
        service.close()
    log = open_audit_log(env["MEMWARDEN_DB"], readonly=True)
    try:
        assert [json.loads(r.detail).get("eval") for r in log.records() if r.action == "search"] == [2, 2]
    finally:
        log.close()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "line 1: not JSON"),
        ('{"query": "x"}', "line 1: give the expected memories"),
        ("", "no labelled queries"),
    ],
)
def test_a_bad_labels_file_is_refused_with_the_line(
    env: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    labels = tmp_path / "bad.jsonl"
    labels.write_text(content, encoding="utf-8")
    assert main(["eval", str(labels)]) == 1
    assert message in capsys.readouterr().err
    assert main(["eval", str(tmp_path / "missing.jsonl")]) == 1
    assert "cannot read" in capsys.readouterr().err
