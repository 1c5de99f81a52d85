"""Search quality in twelve languages on XQuAD, through the real MCP tools.

    python bench/xquad.py                                   # keyword-only, every language, default settings
    python bench/xquad.py --languages en,tr,th --analyzer match
    python bench/xquad.py --embedder builtin                # hybrid with the builtin model
    python bench/xquad.py --json out.json

Data: the development half of XQuAD (Artetxe et al., ACL 2020, CC BY-SA 4.0), read at run time
from ``../shared/data/xquad-dev/`` (or ``--data``); it is never copied into this repository. Its
README gives the scoring used here:

- each paragraph is split into sentences (``. ! ? ؟`` for alphabetic scripts, guarded for
  abbreviations and ordinals; ``। ॥`` for Hindi; ``。！？`` for Chinese; Thai has no sentence
  punctuation, so whitespace-separated pieces are joined up to at least 150 characters);
- each distinct sentence is one memory (``memory_add``), one project per language;
- a question's relevant memory is the sentence holding its first answer's start offset;
- each question is searched once with ``memory_search`` (limit 10); recall@1/5/10 (one relevant
  memory, so hit@k) and MRR@10 per language and their mean, plus search p50.

Each language gets its own database and server, so ``--analyzer`` can set
``MEMWARDEN_LANGUAGES`` per language: ``default`` (the setting's default), ``match`` (the
language's Snowball stemmer where there is one, else the default) or an explicit list.
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

LANGUAGES = ("en", "ar", "de", "el", "es", "hi", "ro", "ru", "th", "tr", "vi", "zh")
#: Snowball stemmer of each XQuAD language (Thai, Vietnamese and Chinese have none).
SNOWBALL = {
    "en": "english",
    "ar": "arabic",
    "de": "german",
    "el": "greek",
    "es": "spanish",
    "hi": "hindi",
    "ro": "romanian",
    "ru": "russian",
    "tr": "turkish",
}
LIMIT = 10
THAI_PIECE_MIN = 150
# Words before a full stop that do not end a sentence (titles, Latin and common abbreviations).
_ABBREVIATIONS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "st",
        "sr",
        "jr",
        "vs",
        "etc",
        "e.g",
        "i.e",
        "no",
        "nr",
        "ca",
        "bzw",
        "usw",
        "dh",
        "z.b",
        "u.a",
        "sog",
        "jh",
        "d.h",
        "av",
        "sra",
        "sr",
        "dra",
        "lt",
        "col",
        "gen",
        "gov",
        "sen",
        "rep",
        "inc",
        "ltd",
        "co",
        "corp",
        "dept",
        "univ",
    ]
)
_ALPHA_END = re.compile(r"[.!?؟](?=\s)")
_HINDI_END = re.compile(r"[।॥?!](?=\s|$)|\.(?=\s)")
_CHINESE_END = re.compile(r"[。！？]")


def default_data() -> Path:
    for candidate in (
        ROOT.parent / "shared/data/xquad-dev",
        ROOT.parents[1] / "shared/data/xquad-dev",
        Path("/work/shared/data/xquad-dev"),
    ):
        if (candidate / "xquad.en.json").is_file():
            return candidate
    return ROOT.parent / "shared/data/xquad-dev"


def _is_sentence_end(text: str, dot: int) -> bool:
    """False for a full stop after an abbreviation, an initial or an ordinal ("19. Jahrhundert")."""
    if text[dot] != ".":
        return True
    before = re.search(r"(\S+)$", text[:dot])
    word = before.group(1) if before else ""
    bare = word.lstrip("(\"'«„“").lower()
    if bare in _ABBREVIATIONS or (len(bare) == 1 and bare.isalpha()):
        return False
    if bare.isdigit() and len(bare) <= 2:
        return False
    after = text[dot + 1 :].lstrip()
    return not (after[:1].islower())


def sentence_spans(language: str, text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence of a paragraph, covering it (whitespace trimmed later)."""
    if language == "th":
        spans, start = [], 0
        for match in re.finditer(r"\s+", text):
            if match.start() - start >= THAI_PIECE_MIN:
                spans.append((start, match.start()))
                start = match.end()
        spans.append((start, len(text)))
        return spans
    pattern = {"hi": _HINDI_END, "zh": _CHINESE_END}.get(language, _ALPHA_END)
    spans, start = [], 0
    for match in pattern.finditer(text):
        if language == "zh" or _is_sentence_end(text, match.start()):
            spans.append((start, match.end()))
            start = match.end()
    spans.append((start, len(text)))
    return spans


@dataclass
class Language:
    code: str
    sentences: list[str] = field(default_factory=list)  # distinct, in order
    questions: list[tuple[str, int]] = field(default_factory=list)  # (question, sentence index)


def load(data: Path, code: str) -> Language:
    out = Language(code)
    index_of: dict[str, int] = {}
    raw = json.loads((data / f"xquad.{code}.json").read_text(encoding="utf-8-sig"))
    for article in raw["data"]:
        for paragraph in article["paragraphs"]:
            context = paragraph["context"]
            owners: list[tuple[int, int, int]] = []
            for start, end in sentence_spans(code, context):
                sentence = context[start:end].strip()
                if not sentence:
                    continue
                if sentence not in index_of:
                    index_of[sentence] = len(out.sentences)
                    out.sentences.append(sentence)
                owners.append((start, end, index_of[sentence]))
            for qa in paragraph["qas"]:
                offset = qa["answers"][0]["answer_start"]
                owner = next((i for s, e, i in owners if s <= offset < e), None)
                if owner is None:  # an answer in trailing whitespace: the last sentence
                    owner = owners[-1][2]
                out.questions.append((qa["question"], owner))
    return out


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def analyzer_languages(choice: str, code: str) -> str | None:
    """MEMWARDEN_LANGUAGES for a run: None keeps the setting's default."""
    if choice == "default":
        return None
    if choice == "match":
        return SNOWBALL.get(code)
    return choice


async def run_language(
    language: Language, *, embedder: str, analyzer: str, timeout_ms: int
) -> dict[str, Any]:
    """Store one language's sentences and ask its questions through one MCP client session."""
    from mcp import Client

    from memwarden.app import build_service
    from memwarden.config import load_settings
    from memwarden.mcp.server import create_server

    overrides: dict[str, Any] = {}
    configured = analyzer_languages(analyzer, language.code)
    if configured is not None:
        overrides["languages"] = configured
    if embedder == "none":
        overrides["embedder"] = "none"
    elif embedder == "builtin":
        overrides["embedder"] = "builtin"
    else:
        overrides.update(embedder="builtin", embed_model=embedder)
    with tempfile.TemporaryDirectory() as tmp:
        settings = load_settings(
            db=f"{tmp}/xquad.db",
            log_file=f"{tmp}/log",
            audit=False,
            vector_timeout_ms=timeout_ms,
            **overrides,
        )
        service = build_service(settings, background=False)
        try:
            if service.vectors is not None and not service.vectors.wait_ready(300):
                raise SystemExit(f"the embedding model did not load: {service.vectors.error}")
            async with Client(create_server(service, tools="all")) as client:
                project = f"xquad-{language.code}"
                sentence_of: dict[str, int] = {}
                add_ms: list[float] = []
                for number, sentence in enumerate(language.sentences):
                    started = time.perf_counter()
                    result = await client.call_tool("memory_add", {"content": sentence, "project": project})
                    add_ms.append((time.perf_counter() - started) * 1000)
                    if result.is_error or result.structured_content is None:
                        raise SystemExit(f"memory_add failed ({language.code}): {result.content}")
                    sentence_of.setdefault(result.structured_content["id"], number)
                hits1 = hits5 = hits10 = 0
                reciprocal = 0.0
                search_ms: list[float] = []
                degraded = 0
                for question, relevant in language.questions:
                    started = time.perf_counter()
                    result = await client.call_tool(
                        "memory_search", {"query": question, "project": project, "limit": LIMIT}
                    )
                    search_ms.append((time.perf_counter() - started) * 1000)
                    if result.is_error or result.structured_content is None:
                        raise SystemExit(f"memory_search failed ({language.code}): {result.content}")
                    out = result.structured_content
                    degraded += bool(out.get("degraded")) and embedder != "none"
                    ranked = [sentence_of.get(h["id"], -1) for h in out["hits"]]
                    if relevant in ranked:
                        rank = ranked.index(relevant) + 1
                        hits1 += rank <= 1
                        hits5 += rank <= 5
                        hits10 += rank <= LIMIT
                        reciprocal += 1.0 / rank
        finally:
            service.close()
    n = len(language.questions)
    return {
        "language": language.code,
        "analyzer_languages": configured if configured is not None else settings.languages,
        "memories": len(language.sentences),
        "questions": n,
        "recall@1": round(hits1 / n, 4),
        "recall@5": round(hits5 / n, 4),
        "recall@10": round(hits10 / n, 4),
        "mrr": round(reciprocal / n, 4),
        "search_ms_p50": round(statistics.median(search_ms), 2),
        "search_ms_p95": round(_percentile(search_ms, 0.95), 2),
        "add_ms_p50": round(statistics.median(add_ms), 2),
        "degraded_searches": degraded,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=None, help="folder of xquad.XX.json files")
    parser.add_argument(
        "--languages", default=",".join(LANGUAGES), help="XQuAD language codes, comma-separated"
    )
    parser.add_argument(
        "--embedder",
        default="none",
        help="none (keyword-only), builtin (hybrid, default model) or a builtin model name",
    )
    parser.add_argument(
        "--analyzer",
        default="default",
        help="MEMWARDEN_LANGUAGES per language: default, match (its Snowball stemmer) or a list",
    )
    parser.add_argument("--timeout-ms", type=int, default=2000, help="MEMWARDEN_VECTOR_TIMEOUT_MS")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    data = args.data or default_data()
    codes = [c.strip() for c in args.languages.split(",") if c.strip()]
    unknown = [c for c in codes if c not in LANGUAGES]
    if unknown:
        parser.error(f"unknown language {', '.join(unknown)}; XQuAD has {', '.join(LANGUAGES)}")
    if not (data / "xquad.en.json").is_file():
        parser.error(f"no XQuAD data at {data}: pass --data FOLDER")
    load_before = os.getloadavg()
    rows = []
    for code in codes:
        rows.append(
            asyncio.run(
                run_language(
                    load(data, code),
                    embedder=args.embedder,
                    analyzer=args.analyzer,
                    timeout_ms=args.timeout_ms,
                )
            )
        )
    mode = "keyword-only" if args.embedder == "none" else f"hybrid ({args.embedder})"
    print(f"XQuAD {data.name}: {mode}, analyzer {args.analyzer}; through MCP (in-memory client session)")
    print(
        f"  {'lang':<5} {'memories':>8} {'questions':>9} {'r@1':>6} {'r@5':>6} {'r@10':>6} {'MRR':>6} "
        f"{'p50 ms':>7}  analyzer"
    )
    for r in rows:
        print(
            f"  {r['language']:<5} {r['memories']:>8} {r['questions']:>9} {r['recall@1']:>6.3f} "
            f"{r['recall@5']:>6.3f} {r['recall@10']:>6.3f} {r['mrr']:>6.3f} {r['search_ms_p50']:>7.2f}"
            f"  {r['analyzer_languages'] or '-'}"
        )
    mean = {
        k: round(sum(r[k] for r in rows) / len(rows), 4) for k in ("recall@1", "recall@5", "recall@10", "mrr")
    }
    print(
        f"  {'mean':<5} {'':>8} {'':>9} {mean['recall@1']:>6.3f} {mean['recall@5']:>6.3f} "
        f"{mean['recall@10']:>6.3f} {mean['mrr']:>6.3f}"
    )
    load_after = os.getloadavg()
    print(
        f"machine load (1/5/15 min) before {load_before[0]:.2f}/{load_before[1]:.2f}/{load_before[2]:.2f}, "
        f"after {load_after[0]:.2f}/{load_after[1]:.2f}/{load_after[2]:.2f} (shared machine)"
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {
                    "data": str(data),
                    "embedder": args.embedder,
                    "analyzer": args.analyzer,
                    "languages": rows,
                    "mean": mean,
                    "load": {"before": load_before, "after": load_after},
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
