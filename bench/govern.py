"""Governance: screening and redaction rates on the labelled corpora, redaction speed, audit cost.

    python bench/govern.py [--runs 3000] [--json FILE] [--data DIR]

First the public dev corpora (bench/govern_public.py: secrets, PII and injection rows nobody here
wrote, through the real write path, per corpus and family; skipped with a note when ``--data``
is missing), then the project's own corpora below.

Every timing row shows wall p50/p95 and the CPU time p50 of the same calls (the machine may
be shared: CPU time is what the call itself costs). Targets: injection screening recall >= 0.95 on the hostile corpus and false positives <= 1% on
the benign one, and screening one 200-byte memory (what a write pays) well under 0.5 ms;
redaction changes <= 1% of the precision corpus (bench/govern_corpora.py, issue
13); redacting a 1 KiB memory with every built-in rule p50 <= 0.5 ms (ASCII, and text in other
scripts, which goes through the normalisation map); audit cost <= 0.3 ms per operation. Audit cost is measured on a real SQLite file (WAL, synchronous=FULL
for memories; no embedder, so vector timing noise stays out): one ``Auditor.record`` append
alone; the time spent appending the audit row inside real searches and adds (what the caller
pays); and whole searches with the auditor switched on and off call by call on the same
database (on a shared machine that difference is mostly noise).
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from govern_corpora import (  # bench/ is on sys.path
    benign_corpus,
    hostile_corpus,
    multilingual_preferences,
    ordinary_memories,
    precision_corpus,
)
from govern_public import (
    DEFAULT_DATA,
    MissingData,
    comparison_lines,
    family_lines,
    read_rows,
    score_rows,
    summary_lines,
    xquad_questions,
)
from govern_public import score as score_public

from memwarden.app import build_service
from memwarden.config import load_settings
from memwarden.govern import Redactor
from memwarden.models import Caller

BUSINESS = (
    "Quarterly review with the Acme procurement team: renewal terms stay at net 45, the pilot in "
    "the Istanbul office moves to production in March, and the data-retention clause needs legal "
    "sign-off before the contract is countersigned. Müşteri toplantısı perşembe günü yapılacak. "
    "部署前必须运行完整的回归测试。 The onboarding checklist lives in the shared drive under ops. "
)
SECRETS = (
    "Contact jane.doe@example.org or +44 20 7946 0958, mobile 13800138000, TCKN 10000000146, "
    "SSN 123-45-6789, card 4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00, host 10.0.0.12, "
    "key AKIAIOSFODNN7EXAMPLE, postgres://app:s3cretPass@db.internal/app, password=hunter2. "
)


GLUED = (
    "我的手机号是13800138000，请回电。银行卡号4111111111111111请保密。SSNは123-45-6789です。"
    "mail ｊａｎｅ＠ｅｘａｍｐｌｅ．ｏｒｇ, card 4111\u00ad1111\u00ad1111\u00ad1111, jane.doe%40example.org. "
    "Toplantı perşembe günü, müşteri listesi ekte. 会议改到周四下午三点。Встреча перенесена на четверг. "
)


def one_kib(text: str) -> str:
    body = (text * (1024 // len(text) + 2)).encode("utf-8")[:1024]
    return body.decode("utf-8", "ignore")


class Samples(list[float]):
    """Wall milliseconds of each call, with the CPU milliseconds of the same calls (``cpu``)."""

    cpu: list[float]


def time_ms(fn: Any, runs: int) -> Samples:
    samples = Samples()
    samples.cpu = []
    for i in range(runs):
        c0 = time.process_time()
        t0 = time.perf_counter()
        fn(i)
        samples.append((time.perf_counter() - t0) * 1000)
        samples.cpu.append((time.process_time() - c0) * 1000)
    return samples


def summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    out = {"p50": round(statistics.median(ordered), 4), "p95": round(ordered[int(0.95 * len(ordered))], 4)}
    cpu = getattr(samples, "cpu", None)
    if cpu:
        out["cpu_p50"] = round(statistics.median(cpu), 4)
    return out


def memories_of_200_bytes(texts: list[str]) -> list[str]:
    """Benign corpus sentences joined into memories of about 200 bytes (a typical memory)."""
    out: list[str] = []
    current = ""
    for text in texts:
        current = f"{current} {text}".strip()
        if len(current.encode("utf-8")) >= 200:
            out.append(current.encode("utf-8")[:200].decode("utf-8", "ignore"))
            current = ""
    return out


def bench_screening(runs: int) -> dict[str, Any]:
    """What injection screening costs one write: ``screen_text`` on a 200-byte memory, and its
    two parts on the same memories: the phrase rules (on the unwrapped text) and the n-gram
    model (its view of the text and the score). The model backs the rules up, so it should
    cost less than they do."""
    from memwarden.screening import model_view, rule_flags, screen_text
    from memwarden.screening.attack_model import attack_model, attack_score
    from memwarden.screening.unwrap import exposed_text

    memories = memories_of_200_bytes([text for _, text in benign_corpus()])
    screen_text(memories[0])  # compile the patterns outside the timing
    model = attack_model()

    def memory(i: int) -> str:
        return memories[i % len(memories)]

    result = {
        "memories": len(memories),
        "per_write_200b": summary(time_ms(lambda i: screen_text(memory(i)), runs)),
        "rules_200b": summary(time_ms(lambda i: rule_flags(exposed_text(memory(i))), runs)),
        "model_200b": summary(time_ms(lambda i: attack_score(model_view(memory(i)), model), runs)),
    }
    heads = semantic_heads_cost(memories[:200], runs)
    if heads is not None:
        result["semantic_heads_per_vector"] = heads
    return result


@functools.cache
def default_embedder() -> Any:
    """The default model (``E5Int8Embedder``), one instance for the run: it loads on first use."""
    from memwarden.embed.e5_onnx import E5Int8Embedder

    return E5Int8Embedder()


def semantic_heads_cost(memories: list[str], runs: int) -> dict[str, float] | None:
    """What the semantic heads (``screening.semantic``: both of them) cost one stored vector, scored
    alone as the smallest batch of the background embedder; None without the default model."""
    from memwarden.errors import EmbeddingUnavailable
    from memwarden.screening.semantic import heads_for, semantic_flagged

    embedder = default_embedder()
    try:
        vectors = embedder.embed_documents(memories)
    except EmbeddingUnavailable:
        return None
    heads = heads_for(embedder.identity)
    semantic_flagged(heads, vectors[:1], memories[:1])
    return summary(
        time_ms(
            lambda i: semantic_flagged(
                heads, vectors[i % len(memories)][None, :], [memories[i % len(memories)]]
            ),
            runs,
        )
    )


def bench_redaction(runs: int) -> dict[str, Any]:
    redactor = Redactor()
    clean = one_kib(BUSINESS)
    dirty = one_kib(SECRETS + BUSINESS)
    glued = one_kib(GLUED + BUSINESS)
    redactor.redact(dirty)  # warm the regex caches
    redactor.redact(glued)
    cpu = time.process_time()
    wall = time.perf_counter()
    result = {
        "rules": len(redactor.rules),
        "no_matches": summary(time_ms(lambda i: redactor.redact(clean), runs)),
        "with_secrets": summary(time_ms(lambda i: redactor.redact(dirty), runs)),
        "glued_and_evasive": summary(time_ms(lambda i: redactor.redact(glued), runs)),
        "matches_in_dirty": redactor.redact(dirty).matches,
        "matches_in_glued": redactor.redact(glued).matches,
    }
    result["cpu_s"] = round(time.process_time() - cpu, 3)
    result["wall_s"] = round(time.perf_counter() - wall, 3)
    return result


def bench_corpora() -> dict[str, Any]:
    """Screening recall and false positives, and how much of the precision corpus redaction changes."""
    from memwarden.screening import screen_text

    hostile, benign, precision = hostile_corpus(), benign_corpus(), precision_corpus()
    missed = [label for label, text in hostile if not screen_text(text)]
    flagged = [label for label, text in benign if screen_text(text)]
    redactor = Redactor()
    changed = [text for _, text in precision if redactor.redact(text).matches]
    t0 = time.perf_counter()
    for _, text in benign:
        screen_text(text)
    screen_ms = (time.perf_counter() - t0) * 1000 / len(benign)
    return {
        "hostile": len(hostile),
        "hostile_missed": len(missed),
        "recall": round(1 - len(missed) / len(hostile), 4),
        "benign": len(benign),
        "benign_flagged": len(flagged),
        "false_positive_rate": round(len(flagged) / len(benign), 4),
        "precision_sentences": len(precision),
        "precision_changed": len(changed),
        "precision_changed_rate": round(len(changed) / len(precision), 4),
        "screen_ms_mean": round(screen_ms, 4),
        "missed_labels": missed,
        "flagged_labels": flagged,
    }


def semantic_flags(texts: list[str]) -> list[bool] | None:
    """Which of ``texts``, stored as a memory's content, the semantic screening head flags once
    the default embedder has embedded them (``screening.semantic``); None when the model is not
    installed."""
    from memwarden.errors import EmbeddingUnavailable
    from memwarden.screening.semantic import heads_for, semantic_flagged

    embedder = default_embedder()
    try:
        vectors = embedder.embed_documents(texts)
    except EmbeddingUnavailable as exc:
        print(f"semantic screening skipped: {exc.message}")
        return None
    heads = heads_for(embedder.identity)
    return semantic_flagged(heads, vectors, texts) if heads else None


# The kinds of ordinary text ``bench_languages`` counts per language.
KINDS = ("preferences", "questions", "ordinary")


def bench_languages(data: Path) -> dict[str, dict[str, int]]:
    """Ordinary text flagged per language: the standing preferences written here in the 17
    languages of the public attacks (fitted on), the XQuAD questions the screening model was never
    fitted on (``xquad_questions``, skipped when the data is missing), and the half of the ordinary
    memories in 20 languages that no model was fitted on (``ordinary_memories``: preferences and
    notes written by people who never saw the screening). Issue 32 asks at most 2 % per language:
    a user writing Japanese must keep their preferences in recall. ``*_semantic``: flagged at
    write time or, once the vector is stored, by the semantic heads."""
    from memwarden.screening import screen_text

    texts: list[tuple[str, str, str]] = [
        (lang, "preferences", text) for lang, text in multilingual_preferences()
    ]
    try:
        questions = xquad_questions(data.parent)
    except MissingData:
        questions = []
    texts += [(lang, "questions", text) for lang, _, text, trained in questions if not trained]
    texts += [(lang, "ordinary", text) for lang, _, text in ordinary_memories(fitted=False)]
    by_head = semantic_flags([text for _, _, text in texts]) or [False] * len(texts)
    counts: dict[str, dict[str, int]] = {}
    for (lang, kind, text), head in zip(texts, by_head, strict=True):
        entry = counts.setdefault(
            lang,
            {key: 0 for kind_ in KINDS for key in (kind_, f"{kind_}_flagged", f"{kind_}_semantic")},
        )
        flagged = bool(screen_text(text))
        entry[kind] += 1
        entry[f"{kind}_flagged"] += flagged
        entry[f"{kind}_semantic"] += flagged or head
    return dict(sorted(counts.items()))


def language_lines(counts: dict[str, dict[str, int]]) -> list[str]:
    """One line per language: each kind of ordinary text flagged (``fresh``: the ordinary memories
    no model saw), and all pooled; each at write time, then with the semantic heads after the
    vector (``->``)."""

    def cell(flagged: int, semantic: int, total: int) -> str:
        if not total:
            return f"{'-':>5} {'-':>7} {'-':>7}"
        return f"{total:5} {flagged / total:7.3f} {semantic / total:7.3f}"

    names = {"preferences": "prefs", "questions": "quest", "ordinary": "fresh", "pooled": "all"}
    heading = " ".join(f"{names[kind]:>5} {'FP':>7} {'->':>7}" for kind in (*KINDS, "pooled"))
    lines = [f"{'benign text by language':24} {heading}  target <= 0.02 (->: with the semantic heads)"]
    for lang, c in counts.items():
        pooled = [sum(c[f"{kind}{k}"] for kind in KINDS) for k in ("_flagged", "_semantic", "")]
        cells = [cell(c[f"{kind}_flagged"], c[f"{kind}_semantic"], c[kind]) for kind in KINDS]
        lines.append(f"{lang:24} {' '.join(cells)} {cell(*pooled)}")
    return lines


def bench_audit(runs: int) -> dict[str, Any]:
    """Time spent recording the audit row inside real searches and adds, and whole searches
    with the auditor switched on and off call by call on the same service and database."""
    from memwarden.store.sqlite.audit import SQLiteAuditLog

    inside: list[float] = []
    original = SQLiteAuditLog.append
    original_in = SQLiteAuditLog.append_in

    def timed_append(self: SQLiteAuditLog, *args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return original(self, *args, **kwargs)
        finally:
            inside.append((time.perf_counter() - t0) * 1000)

    def timed_append_in(self: SQLiteAuditLog, *args: Any, **kwargs: Any) -> Any:
        # Adds write their audit row inside the memory's own transaction.
        t0 = time.perf_counter()
        try:
            return original_in(self, *args, **kwargs)
        finally:
            inside.append((time.perf_counter() - t0) * 1000)

    with tempfile.TemporaryDirectory() as tmp:
        service = build_service(
            load_settings(db=str(Path(tmp) / "bench.db"), log_file=str(Path(tmp) / "log"), embedder="none")
        )
        auditor = service.auditor
        assert auditor is not None
        try:
            for n in range(500):
                service.memories.add(
                    f"memory {n} about project {n % 13} and the renewal of contract {n % 29}"
                )
            who = Caller("bench", "default")
            append = time_ms(
                lambda i: auditor.record(
                    "search",
                    who,
                    query=f"renewal {i}",
                    memory_ids=["01JD3Z5X9Q2W8E7R6T5Y4V3K2M"],
                    result_count=1,
                ),
                runs,
            )
            SQLiteAuditLog.append = timed_append  # type: ignore[method-assign]
            SQLiteAuditLog.append_in = timed_append_in  # type: ignore[method-assign]
            with_audit, without = [], []
            for i in range(runs):  # alternate, so machine noise falls on both sides alike
                service.searcher.auditor = auditor if i % 2 == 0 else None
                t0 = time.perf_counter()
                service.searcher.search(f"renewal contract {i % 29}", limit=5)
                (with_audit if i % 2 == 0 else without).append((time.perf_counter() - t0) * 1000)
            service.searcher.auditor = auditor
            in_search = list(inside)
            inside.clear()
            time_ms(lambda i: service.memories.add(f"bench add {i} for the audit cost"), min(runs, 300))
            in_add = list(inside)
        finally:
            SQLiteAuditLog.append = original  # type: ignore[method-assign]
            SQLiteAuditLog.append_in = original_in  # type: ignore[method-assign]
            service.searcher.auditor = auditor
            service.close()
    return {
        "append_alone": summary(append),
        "audit_inside_search": summary(in_search),
        "audit_inside_add": summary(in_add),
        "search_with_audit": summary(with_audit),
        "search_without_audit": summary(without),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3000)
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of the public corpora")
    args = parser.parse_args()
    try:
        public: dict[str, Any] | None = score_public(data=args.data)
        # The injection rows again with the default embedder: the semantic head flags after the
        # vector is stored, so the combined figure is write-time screening or the head.
        semantic: dict[str, Any] | None = score_rows(
            "injection", read_rows(args.data / "injection.jsonl"), semantic=True
        )
    except MissingData as exc:
        print(f"public corpora skipped: {exc}\n")
        public = semantic = None
    corpora = bench_corpora()
    languages = bench_languages(args.data)
    redaction = bench_redaction(args.runs)
    audit = bench_audit(min(args.runs, 1000))
    screening = bench_screening(min(args.runs, 3000))
    if public is not None:
        for result in public.values():
            print("\n".join(family_lines(result, 8)))
        if semantic is not None:
            for breakdown in ("lang", "family"):
                print("\n".join(comparison_lines(public["injection"], semantic, breakdown)))
            print(
                f"injection with the semantic head: recall {semantic['recall']}, "
                f"false positives {semantic['false_positive_rate']} (write time: "
                f"{public['injection']['recall']}, {public['injection']['false_positive_rate']}); "
                "the dev rows are the head's training rows: optimistic, see docs/governance.md for held-out figures"
            )
        print("\n".join(summary_lines(public)))
        print("targets: secrets and PII recall >= 0.97; ordinary sentences (PII keep rows) changed <= 0.01\n")
    print(f"{'own corpus':40} {'cases':>7} {'rate':>8}  target")
    print(f"{'screening recall (hostile)':40} {corpora['hostile']:7} {corpora['recall']:8.4f}  >= 0.95")
    print(
        f"{'screening false positives (benign)':40} {corpora['benign']:7} {corpora['false_positive_rate']:8.4f}  <= 0.01"
    )
    print(
        f"{'redaction changed (precision corpus)':40} {corpora['precision_sentences']:7} "
        f"{corpora['precision_changed_rate']:8.4f}  <= 0.01"
    )
    print(f"screening mean {corpora['screen_ms_mean']:.3f} ms per memory\n")
    print("\n".join(language_lines(languages)) + "\n")
    rows = [
        (
            "screen one 200-byte memory (per write)",
            screening["per_write_200b"],
            "<= 1",  # issue 32: at most a millisecond per memory
        ),
        ("  of which the phrase rules", screening["rules_200b"], "reported"),
        ("  of which the n-gram model", screening["model_200b"], "< the rules"),
        *(
            [
                (
                    "semantic heads, one stored vector (after)",
                    screening["semantic_heads_per_vector"],
                    "reported",
                )
            ]
            if "semantic_heads_per_vector" in screening
            else []
        ),
        (
            "redact 1 KiB, no matches",
            redaction["no_matches"],
            "<= 0.5",
        ),
        (
            f"redact 1 KiB, {redaction['matches_in_dirty']} matches",
            redaction["with_secrets"],
            "<= 0.5",
        ),
        (
            f"redact 1 KiB CJK/evasive, {redaction['matches_in_glued']} matches",
            redaction["glued_and_evasive"],
            "<= 0.5",
        ),
        (
            "audit append alone (one row)",
            audit["append_alone"],
            "<= 0.3",
        ),
        (
            "audit row inside a search",
            audit["audit_inside_search"],
            "<= 0.3",
        ),
        (
            "audit row inside an add",
            audit["audit_inside_add"],
            "<= 0.3",
        ),
        (
            "search, audit on (whole call)",
            audit["search_with_audit"],
            "",
        ),
        (
            "search, audit off (whole call)",
            audit["search_without_audit"],
            "",
        ),
    ]
    print(f"{'measure':40} {'p50 ms':>9} {'p95 ms':>9} {'CPU p50':>9}  target")
    for name, times, target in rows:
        cpu = f"{times['cpu_p50']:9.4f}" if "cpu_p50" in times else f"{'-':>9}"  # rows timed inside calls
        print(f"{name:40} {times['p50']:9.4f} {times['p95']:9.4f} {cpu}  {target}")
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    print(
        f"redaction timing: {redaction['cpu_s']} s CPU in {redaction['wall_s']} s wall; load average {' '.join(load)}"
    )
    result = {
        "corpora": corpora,
        "languages": languages,
        "public": public,
        "public_injection_semantic": semantic,
        "redaction": redaction,
        "audit": audit,
        "screening": screening,
        "python": sys.version.split()[0],
        "loadavg": load,
    }
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
