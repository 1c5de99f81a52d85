"""Recall on LoCoMo (long two-person conversations), through the real MCP tools.

    python bench/locomo.py                                  # keyword and hybrid, all conversations
    python bench/locomo.py --modes keyword --split report   # keyword-only, held-out conversations
    python bench/locomo.py --json out.json

Data: the development half of LoCoMo (Maharana et al., ACL 2024, CC BY-NC 4.0), read at run
time from ``../shared/data/locomo-dev/`` (or ``--data``); it is never copied into this
repository. Its README gives the schema and the scoring used here.

How a conversation is stored (docs/clients.md tells a harness to do the same): one memory per
dialog turn through ``memory_add``, ``content`` the turn as ``[<session date>] <Speaker>: <text>``
(plus `` [shared an image: <caption>]``), one project per conversation, and, where the server
offers them, ``context`` = the previous turn of the same session as stored, ``thread`` =
conversation and session, ``occurred_at`` = the session's date and time. The bench reads the
tool's input schema and says which of those fields it could pass.

Every question of categories 1-4 is searched once with ``memory_search`` (limit 10) through an
in-memory MCP client session (the SDK's ``Client`` on the server object: the real tool layer,
no stdio process). recall@k = |evidence ∩ top k| / |evidence|, MRR = 1 / rank of the first
evidence turn (0 when none is in the top 10); overall, per category, and for category 5
(adversarial) apart, and for the questions of categories 1-4 that hold time words ("in May 2023",
"last year": text/time_words.py, which the search boosts by) as ``time words``. ``--split
fit`` / ``report`` keeps to the conversations weights were fitted on / held out from
(``FIT_CONVERSATIONS``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

#: The conversations fusion weights are fitted on; the others are only reported.
FIT_CONVERSATIONS = ("conv-26", "conv-30", "conv-41")
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
#: The row of questions (categories 1-4) whose text holds time words.
TIME_WORDS = "time words"
LIMIT = 10
_DATE = re.compile(r"^(\d{1,2}):(\d{2})\s*(am|pm) on (\d{1,2}) (\w+),? (\d{4})$", re.IGNORECASE)


def default_data() -> Path:
    for candidate in (
        ROOT.parent / "shared/data/locomo-dev",
        ROOT.parents[1] / "shared/data/locomo-dev",
        Path("/work/shared/data/locomo-dev"),
    ):
        if (candidate / "locomo-dev.json").is_file():
            return candidate / "locomo-dev.json"
    return ROOT.parent / "shared/data/locomo-dev/locomo-dev.json"


def session_time(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' as a naive datetime (the dataset gives no time zone; UTC is used)."""
    match = _DATE.match(text.strip())
    if match is None:
        raise ValueError(f"unexpected session date {text!r}")
    hour, minute, half, day, month, year = match.groups()
    clock = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    return datetime.strptime(f"{day} {month} {year} {clock}:{minute}", "%d %B %Y %H:%M")


@dataclass
class Turn:
    dia_id: str
    session: int
    content: str
    context: str
    thread: str
    occurred_at: str


@dataclass
class Question:
    text: str
    category: int
    evidence: list[str]


@dataclass
class Conversation:
    sample_id: str
    turns: list[Turn] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


def _turn_text(date: str, turn: dict[str, Any]) -> str:
    text = f"[{date}] {turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        text += f" [shared an image: {turn['blip_caption']}]"
    return text


def normalise_evidence(raw: list[str], known: set[str]) -> list[str]:
    """Evidence ids as stored ('D8:6; D9:17' split, 'D:11:26' and 'D30:05' repaired); unknown ids dropped."""
    out: list[str] = []
    for entry in raw:
        for piece in re.split(r"[;,\s]+", str(entry)):
            match = re.match(r"^D:?(\d+):0*(\d+)$", piece.strip())
            if match:
                dia = f"D{int(match.group(1))}:{int(match.group(2))}"
                if dia in known and dia not in out:
                    out.append(dia)
    return out


def load(path: Path) -> list[Conversation]:
    conversations = []
    for item in json.loads(path.read_text(encoding="utf-8")):
        conv = Conversation(item["sample_id"])
        talk = item["conversation"]
        sessions = sorted(int(k.split("_")[1]) for k in talk if re.fullmatch(r"session_\d+", k))
        for number in sessions:
            date = talk[f"session_{number}_date_time"]
            when = session_time(date).isoformat() + "Z"
            previous = ""
            for turn in talk[f"session_{number}"]:
                content = _turn_text(date, turn)
                conv.turns.append(
                    Turn(
                        turn["dia_id"], number, content, previous, f"{conv.sample_id}/session-{number}", when
                    )
                )
                previous = content
        known = {t.dia_id for t in conv.turns}
        for qa in item["qa"]:
            evidence = normalise_evidence(qa.get("evidence", []), known)
            if evidence:
                conv.questions.append(Question(qa["question"], int(qa["category"]), evidence))
        conversations.append(conv)
    return conversations


@dataclass
class Scores:
    r1: list[float] = field(default_factory=list)
    r5: list[float] = field(default_factory=list)
    r10: list[float] = field(default_factory=list)
    rr: list[float] = field(default_factory=list)

    def add(self, ranked: list[str], evidence: list[str]) -> None:
        wanted = set(evidence)
        for k, bucket in ((1, self.r1), (5, self.r5), (10, self.r10)):
            bucket.append(len(wanted & set(ranked[:k])) / len(wanted))
        first = next((i for i, d in enumerate(ranked[:LIMIT], start=1) if d in wanted), None)
        self.rr.append(0.0 if first is None else 1.0 / first)

    def summary(self) -> dict[str, float]:
        def mean(xs: list[float]) -> float:
            return round(sum(xs) / len(xs), 4) if xs else 0.0

        return {
            "n": len(self.rr),
            "recall@1": mean(self.r1),
            "recall@5": mean(self.r5),
            "recall@10": mean(self.r10),
            "mrr": mean(self.rr),
        }


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run_mode(mode: str, conversations: list[Conversation], *, timeout_ms: int) -> dict[str, Any]:
    """Store every conversation and ask every question through one MCP client session."""
    from mcp import Client

    from memwarden.app import build_service
    from memwarden.config import load_settings
    from memwarden.mcp.server import create_server
    from memwarden.text.time_words import parse_time_words

    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(
            db=f"{tmp}/locomo.db",
            log_file=f"{tmp}/log",
            audit=False,
            embedder="builtin" if mode == "hybrid" else "none",
            vector_timeout_ms=timeout_ms,
        )
        service = build_service(settings, background=False)
        try:
            if service.vectors is not None and not service.vectors.wait_ready(120):
                raise SystemExit(f"the builtin model did not load: {service.vectors.error}")
            async with Client(create_server(service, tools="all")) as client:
                tools = {t.name: t for t in (await client.list_tools()).tools}
                offered = set(tools["memory_add"].input_schema.get("properties", {}))
                extra = [f for f in ("context", "thread", "occurred_at") if f in offered]
                add_ms: list[float] = []
                dia_of: dict[str, str] = {}
                for conv in conversations:
                    for turn in conv.turns:
                        args: dict[str, Any] = {"content": turn.content, "project": conv.sample_id}
                        args.update({f: getattr(turn, f) for f in extra})
                        started = time.perf_counter()
                        result = await client.call_tool("memory_add", args)
                        add_ms.append((time.perf_counter() - started) * 1000)
                        if result.is_error or result.structured_content is None:
                            raise SystemExit(f"memory_add failed: {result.content}")
                        dia_of[result.structured_content["id"]] = f"{conv.sample_id}/{turn.dia_id}"
                scores: dict[str, Scores] = defaultdict(Scores)
                search_ms: list[float] = []
                search_cpu_ms: list[float] = []
                degraded = 0
                for conv in conversations:
                    for question in conv.questions:
                        started, cpu = time.perf_counter(), time.process_time()
                        result = await client.call_tool(
                            "memory_search",
                            {"query": question.text, "project": conv.sample_id, "limit": LIMIT},
                        )
                        search_ms.append((time.perf_counter() - started) * 1000)
                        search_cpu_ms.append((time.process_time() - cpu) * 1000)
                        if result.is_error or result.structured_content is None:
                            raise SystemExit(f"memory_search failed: {result.content}")
                        out = result.structured_content
                        degraded += bool(out.get("degraded")) and mode == "hybrid"
                        ranked = [dia_of[h["id"]].split("/", 1)[1] for h in out["hits"]]
                        names = [
                            "overall" if question.category != 5 else "adversarial",
                            CATEGORIES[question.category],
                        ]
                        if question.category != 5 and parse_time_words(question.text) is not None:
                            names.append(TIME_WORDS)
                        for name in dict.fromkeys(names):
                            scores[name].add(ranked, question.evidence)
        finally:
            service.close()
    return {
        "mode": mode,
        "fields_passed": ["content", "project", *extra],
        "scores": {name: s.summary() for name, s in scores.items()},
        "search_ms": {
            "p50": round(statistics.median(search_ms), 2),
            "p95": round(_percentile(search_ms, 0.95), 2),
            "cpu_p50": round(statistics.median(search_cpu_ms), 2),
        },
        "add_ms": {"p50": round(statistics.median(add_ms), 2), "p95": round(_percentile(add_ms, 0.95), 2)},
        "degraded_searches": degraded,
        "memories": len(dia_of),
    }


def _rows(result: dict[str, Any]) -> Iterator[str]:
    order = ["overall", *[CATEGORIES[c] for c in (1, 2, 3, 4)], "adversarial", TIME_WORDS]
    for name in order:
        s = result["scores"].get(name)
        if s:
            yield (
                f"  {name:<12} {s['n']:>5} {s['recall@1']:>8.3f} {s['recall@5']:>8.3f} "
                f"{s['recall@10']:>9.3f} {s['mrr']:>7.3f}"
            )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data", type=Path, default=None, help="locomo-dev.json (default: ../shared/data/locomo-dev)"
    )
    parser.add_argument("--modes", default="keyword,hybrid", help="keyword, hybrid or both (comma-separated)")
    parser.add_argument("--split", choices=("all", "fit", "report"), default="all")
    parser.add_argument(
        "--timeout-ms",
        type=int,
        default=2000,
        help="MEMWARDEN_VECTOR_TIMEOUT_MS for the run (generous: the machine is shared)",
    )
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    path = args.data or default_data()
    if not path.is_file():
        parser.error(f"no LoCoMo data at {path}: pass --data PATH/locomo-dev.json")
    conversations = load(path)
    if args.split != "all":
        conversations = [
            c for c in conversations if (c.sample_id in FIT_CONVERSATIONS) == (args.split == "fit")
        ]
    load_before = os.getloadavg()
    results = [
        asyncio.run(run_mode(m.strip(), conversations, timeout_ms=args.timeout_ms))
        for m in args.modes.split(",")
        if m.strip()
    ]
    print(
        f"LoCoMo {path.parent.name}, split {args.split}: {', '.join(c.sample_id for c in conversations)}; "
        f"{sum(len(c.turns) for c in conversations)} turns; through MCP (in-memory client session)"
    )
    for result in results:
        print(
            f"\n{result['mode']}: fields {', '.join(result['fields_passed'])}; search p50 "
            f"{result['search_ms']['p50']} ms (p95 {result['search_ms']['p95']}, CPU p50 "
            f"{result['search_ms']['cpu_p50']} ms, client and server in one process); add p50 "
            f"{result['add_ms']['p50']} ms; degraded searches {result['degraded_searches']}"
        )
        print(f"  {'category':<12} {'n':>5} {'recall@1':>8} {'recall@5':>8} {'recall@10':>9} {'MRR':>7}")
        for row in _rows(result):
            print(row)
    load_after = os.getloadavg()
    print(
        f"\nmachine load (1/5/15 min) before {load_before[0]:.2f}/{load_before[1]:.2f}/{load_before[2]:.2f}, "
        f"after {load_after[0]:.2f}/{load_after[1]:.2f}/{load_after[2]:.2f} (shared machine)"
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "data": str(path),
                    "split": args.split,
                    "results": results,
                    "load": {"before": load_before, "after": load_after},
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
