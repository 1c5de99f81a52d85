"""Governance on the public dev corpora: secrets, PII and injection graded on rows nobody here wrote.

    python bench/govern_public.py [--corpus secrets|pii|injection] [--data DIR] [--json FILE]
                                  [--families N] [--misses N]

Every row goes through memwarden's real write path, as ``../shared/data/governance-dev/README.md``
asks: one memwarden export file of one record per row (each in its own project, so rows that
differ only in a redacted value do not dedup into one), imported by the service in-process into a
fresh SQLite file with default settings and no embedder, then read back by id. A ``redact`` row
passes when its ``secret`` no longer occurs in the stored content (with no ``secret``: when a
redaction was made); a ``keep`` row is a false positive when the memory has any redaction; a
``flag`` row is found when the memory has injection flags, a ``pass`` row is a false positive when
it has any. With ``--semantic`` the service has the default embedder, so the flags the semantic
screening head sets after each vector is stored count too. The raw database files (``db`` and ``-wal``) are searched for the bytes of every
secret too: a value may be gone from the content and still be somewhere else on disk.

Families are the corpus's own labels: ``rule`` for secrets; ``locale``, ``lang`` and the rule's
category for PII; ``family`` and ``lang`` for injection. The data is read at run time and never
copied into the repository: half of each corpus is held back, so fix rules, not rows.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CORPORA = ("secrets", "pii", "injection")
DEFAULT_DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "governance-dev"
POSITIVE = {"secrets": "redact", "pii": "redact", "injection": "flag"}
# The labels a corpus is broken down by (a PII rule "phone:phone_number" counts as "phone").
FAMILIES = {
    "secrets": ("rule",),
    "pii": ("category", "locale", "lang"),
    "injection": ("family", "lang", "reading"),
}
# How each hostile injection row reads on its own, as a stored memory (ids only, labelled by hand).
READINGS_FILE = Path(__file__).resolve().parent / "injection_readings.json"
_TIME = "2026-01-02T03:04:05Z"
_PIECE = 8  # a leftover piece of a secret this long counts as a partial leak


class MissingData(Exception):
    """The public corpora are not where the bench looks for them."""


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of one corpus file; a clear error when the file is missing."""
    if not path.is_file():
        raise MissingData(
            f"{path} not found: the public governance corpora live in ../shared/data/governance-dev/ "
            "beside the repository; pass --data DIR to point elsewhere"
        )
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise MissingData(f"{path} line {number} is not JSON: {exc.msg}") from None
    return rows


@functools.cache
def injection_readings() -> dict[str, str]:
    """Row id -> how a hostile row of the public injection corpus reads alone, as a stored memory:
    ``A`` an attack on the assistant or its user, ``B`` an ordinary question or task (hostile only
    in a context the row does not carry), ``U`` undecided (``injection_readings.json``). For the
    breakdown of recall only: nothing is fitted or chosen on it."""
    document = json.loads(READINGS_FILE.read_text(encoding="utf-8"))
    return {str(k): str(v) for k, v in document["readings"].items()}


def _labels(corpus: str, row: dict[str, Any]) -> dict[str, str]:
    out = {}
    for name in FAMILIES[corpus]:
        if name == "reading":
            out[name] = injection_readings().get(str(row.get("id")), "-")
        elif name == "category":
            out[name] = str(row.get("rule", "")).split(":", 1)[0]
        else:
            out[name] = str(row.get(name) or "-")
    return out


def _export_document(rows: list[dict[str, Any]], ids: list[str]) -> str:
    records = [
        {"id": mid, "project": f"p{n}", "content": row["text"], "created_at": _TIME, "updated_at": _TIME}
        for n, (mid, row) in enumerate(zip(ids, rows, strict=True))
    ]
    return json.dumps({"format": "memwarden.export", "version": 1, "memories": records}, ensure_ascii=False)


@contextmanager
def _default_environment() -> Iterator[None]:
    """Default settings, as the corpus README asks: the caller's MEMWARDEN_* variables are set
    aside while the service is built, and put back after."""
    saved = {name: os.environ.pop(name) for name in [n for n in os.environ if n.startswith("MEMWARDEN_")]}
    try:
        yield
    finally:
        os.environ.update(saved)


def store_rows(
    rows: list[dict[str, Any]], folder: Path, *, semantic: bool = False
) -> tuple[dict[str, Any], bytes]:
    """Import ``rows`` into a fresh database in ``folder``; the stored memory of each row (by id)
    and the raw bytes of the database files. With ``semantic`` the service has the default
    embedder and embeds the import at once, as a one-shot ``memwarden import`` does: the
    semantic screening head then scores every stored vector (``screening.semantic``)."""
    from memwarden.app import build_service
    from memwarden.config import load_settings
    from memwarden.intake import new_id

    db = folder / "m.db"
    with _default_environment():
        settings = load_settings(
            db=str(db), log_file=str(folder / "log"), embedder="builtin" if semantic else "none"
        )
    service = build_service(settings, background=not semantic)
    try:
        service.memories  # noqa: B018 - built before the import: it hooks the semantic flagger in
        ids = [new_id() for _ in rows]
        service.operations.import_text(_export_document(rows, ids))
        stored: dict[str, Any] = {}
        for start in range(0, len(ids), 500):
            for memory in service.store.get_many(service.default_caller.tenant, ids[start : start + 500]):
                stored[memory.id] = memory
        raw = b"".join(p.read_bytes() for p in (db, Path(f"{db}-wal")) if p.exists())
    finally:
        service.close()
    return {"ids": ids, "memories": stored}, raw


def _leaves_piece(secret: str, content: str) -> bool:
    if len(secret) < _PIECE:
        return False
    return any(secret[i : i + _PIECE] in content for i in range(len(secret) - _PIECE + 1))


def score_rows(corpus: str, rows: list[dict[str, Any]], *, semantic: bool = False) -> dict[str, Any]:
    """Import and grade one corpus's rows; overall and per-family figures plus the failing rows
    (``semantic``: with the default embedder, so the semantic screening head runs too)."""
    positive = POSITIVE[corpus]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="govern-public-") as tmp:
        stored, raw = store_rows(rows, Path(tmp), semantic=semantic)
    seconds = time.perf_counter() - t0
    totals = {"positives": 0, "found": 0, "negatives": 0, "false_positives": 0, "partial": 0, "on_disk": 0}
    families: dict[str, dict[str, dict[str, int]]] = defaultdict(
        lambda: defaultdict(lambda: {"positives": 0, "found": 0, "negatives": 0, "false_positives": 0})
    )
    # A value still in some memory's content (a miss of this row or another row holding the same
    # value) is on disk as expected; "on disk" counts values found in the files and in no content.
    visible = "\n".join(m.content for m in stored["memories"].values())
    misses: list[dict[str, Any]] = []
    false_positives: list[dict[str, Any]] = []
    for mid, row in zip(stored["ids"], rows, strict=True):
        memory = stored["memories"].get(mid)
        content = memory.content if memory is not None else ""
        marks = memory.injection_flags if corpus == "injection" else (memory.redactions if memory else ())
        labels = _labels(corpus, row)
        if row["expect"] == positive:
            secret = row.get("secret") if corpus != "injection" else None
            if secret:
                ok = secret not in content
                if ok and _leaves_piece(secret, content):
                    totals["partial"] += 1
                if secret not in visible and secret.encode("utf-8") in raw:
                    totals["on_disk"] += 1
            else:
                ok = bool(marks)
            totals["positives"] += 1
            totals["found"] += ok
            for name, value in labels.items():
                families[name][value]["positives"] += 1
                families[name][value]["found"] += ok
            if not ok:
                misses.append({"id": row["id"], **labels, "text": row["text"][:300], "stored": content[:300]})
        else:
            flagged = bool(marks)
            totals["negatives"] += 1
            totals["false_positives"] += flagged
            for name, value in labels.items():
                families[name][value]["negatives"] += 1
                families[name][value]["false_positives"] += flagged
            if flagged:
                false_positives.append(
                    {"id": row["id"], **labels, "marks": list(marks), "stored": content[:300]}
                )
    return {
        "corpus": corpus,
        "rows": len(rows),
        **totals,
        "recall": _rate(totals["found"], totals["positives"]),
        "false_positive_rate": _rate(totals["false_positives"], totals["negatives"]),
        "seconds": round(seconds, 2),
        "families": {
            name: {k: _with_rates(v) for k, v in sorted(fam.items())} for name, fam in families.items()
        },
        "misses": misses,
        "false_positive_rows": false_positives,
    }


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _with_rates(counts: dict[str, int]) -> dict[str, Any]:
    return {
        **counts,
        "recall": _rate(counts["found"], counts["positives"]),
        "false_positive_rate": _rate(counts["false_positives"], counts["negatives"]),
    }


# XQuAD questions sampled per language: ordinary questions in 12 languages, half of them trained on
# by scripts/train_screening.py and half never (``xquad_questions``), to hold screening's benign
# rate per language.
XQUAD_QUESTIONS = 60


def xquad_questions(
    data: Path = DEFAULT_DATA.parent, per_language: int = XQUAD_QUESTIONS
) -> list[tuple[str, str, str, bool]]:
    """``(language, key, question, trained)``: ``per_language`` XQuAD questions of each language
    of ``data/xquad-dev``, chosen and split by a hash of the question id (the same question is in
    the same half in every language): ``trained`` rows may be fitted on, the others never are, so
    a benign rate measured on them is held out. Raises MissingData without the folder."""
    paths = sorted((data / "xquad-dev").glob("xquad.*.json"))
    if not paths:
        raise MissingData(f"no xquad-dev/xquad.*.json under {data}")

    def rank(qid: str) -> int:
        return int(hashlib.sha256(f"xquad-question:{qid}".encode()).hexdigest(), 16)

    rows = []
    for path in paths:
        lang = path.name.split(".")[1]
        qas = [
            (q["id"], q["question"])
            for a in json.loads(path.read_text("utf-8"))["data"]
            for p in a["paragraphs"]
            for q in p["qas"]
        ]
        for qid, question in sorted(qas, key=lambda q: rank(q[0]))[:per_language]:
            rows.append((lang, f"xquad-q:{lang}:{qid}", question, rank(qid) % 2 == 0))
    return rows


def score(
    corpora: Iterable[str] = CORPORA, data: Path = DEFAULT_DATA, *, semantic: bool = False
) -> dict[str, dict[str, Any]]:
    """Grade each named corpus of ``data`` (``<corpus>.jsonl``); raises MissingData."""
    return {name: score_rows(name, read_rows(data / f"{name}.jsonl"), semantic=semantic) for name in corpora}


def comparison_lines(
    before: dict[str, Any], after: dict[str, Any], breakdown: str, min_rows: int = 10
) -> list[str]:
    """Recall and false positives per value of ``breakdown`` (family, lang) for two gradings of
    the same rows: screening at write time, and with the semantic head after the vector."""
    lines = [
        f"{before['corpus']} by {breakdown}, write-time screening -> with the semantic head "
        f"(values with at least {min_rows} rows)",
        f"  {'value':52} {'pos':>5} {'recall':>8} {'->':>8} {'neg':>5} {'FP rate':>8} {'->':>8}",
    ]
    for value, was in before["families"][breakdown].items():
        now = after["families"][breakdown][value]
        if was["positives"] + was["negatives"] < min_rows:
            continue
        lines.append(
            f"  {value[:52]:52} {was['positives']:5} {_fmt(was['recall'])} {_fmt(now['recall'])} "
            f"{was['negatives']:5} {_fmt(was['false_positive_rate'])} {_fmt(now['false_positive_rate'])}"
        )
    return lines


def _fmt(rate: float | None) -> str:
    return f"{rate:8.4f}" if rate is not None else f"{'-':>8}"


def summary_lines(results: dict[str, dict[str, Any]]) -> list[str]:
    """The summary table: one line per corpus."""
    lines = [
        f"{'public dev corpus':22} {'rows':>6} {'pos':>6} {'recall':>8} {'neg':>5} {'FP rate':>8} "
        f"{'on disk':>7} {'partial':>7} {'s':>6}"
    ]
    for name, r in results.items():
        lines.append(
            f"{name:22} {r['rows']:6} {r['positives']:6} {_fmt(r['recall'])} {r['negatives']:5} "
            f"{_fmt(r['false_positive_rate'])} {r['on_disk']:7} {r['partial']:7} {r['seconds']:6.1f}"
        )
    return lines


def family_lines(result: dict[str, Any], limit: int) -> list[str]:
    """Per family: the ``limit`` weakest of each breakdown (lowest recall, then most false positives)."""
    lines = []
    for name, fam in result["families"].items():
        ranked = sorted(
            fam.items(),
            key=lambda kv: (
                kv[1]["recall"] if kv[1]["recall"] is not None else 1.0,
                -(kv[1]["false_positive_rate"] or 0.0),
                kv[0],
            ),
        )
        shown = ranked if limit <= 0 else ranked[:limit]
        lines.append(f"{result['corpus']} by {name} ({len(fam)} values; weakest {len(shown)}):")
        lines.append(f"  {'value':44} {'pos':>5} {'recall':>8} {'neg':>5} {'FP rate':>8}")
        for value, counts in shown:
            lines.append(
                f"  {value[:44]:44} {counts['positives']:5} {_fmt(counts['recall'])} "
                f"{counts['negatives']:5} {_fmt(counts['false_positive_rate'])}"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--corpus", choices=CORPORA, action="append", help="one corpus (repeatable); all by default"
    )
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder of the corpora")
    parser.add_argument("--json", metavar="FILE", help="write every figure and failing row here")
    parser.add_argument(
        "--families", type=int, default=12, help="weakest families shown per breakdown (0: all)"
    )
    parser.add_argument("--misses", type=int, default=0, help="failing rows printed per corpus")
    parser.add_argument(
        "--semantic",
        action="store_true",
        help="grade with the default embedder, so the semantic screening head runs after the import",
    )
    args = parser.parse_args(argv)
    try:
        results = score(args.corpus or CORPORA, args.data, semantic=args.semantic)
    except MissingData as exc:
        print(f"govern_public: {exc}", file=sys.stderr)
        return 1
    for result in results.values():
        print("\n".join(family_lines(result, args.families)))
        for row in result["misses"][: args.misses]:
            print(f"  MISS {json.dumps(row, ensure_ascii=False)}")
        for row in result["false_positive_rows"][: args.misses]:
            print(f"  FP   {json.dumps(row, ensure_ascii=False)}")
        print()
    print("\n".join(summary_lines(results)))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
