"""Measure (and later train) a linear head over a memory's e5 vector for injection screening.

    python scripts/train_semantic_screening.py --embed-only            # embed every row, cache it
    python scripts/train_semantic_screening.py --evaluate --out /tmp/team/h6_phase1.md

Every row ``scripts/train_screening.py`` uses (hostile and benign dev rows, the benign sets, the
calibration pool) is embedded with the default embedder exactly as the background embedder embeds
a memory: the content as the store keeps it (normalised, redacted), ``embedding_text`` (redaction
markers as one neutral word), the passage side. The vectors are cached outside the repository
(``--cache``), keyed by the vector space and the text.

Five screenings are compared under the protocol of ``train_screening.py`` (its loaders, folds,
benign sets, threshold rule and report are imported, not copied), phrase rules always in front:

- ``char``: today's character n-gram model;
- ``e5``: a logistic regression over the 384 floats of the vector alone;
- ``or``: the n-gram model or the e5 head, each over its own threshold (the offset between the
  two is searched on the same scores the thresholds are chosen on);
- ``ship``: screening as shipped (``write_head``): the n-gram model at the thresholds it would
  choose alone, the head's thresholds chosen with the model in front (the head takes what is
  left of the benign shares);
- ``stack``: one logistic regression over the n-gram model's out-of-fold score and the vector.

Each is measured as the two-fold hash split out of fold (thresholds chosen on the same scores),
validated (each test fold's thresholds chosen on an inner split of its training fold) and leave
one source out (thresholds of the hash split). Every score is standardised on the benign
calibration pool, as the n-gram model is. Needs scikit-learn (training only).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import hashlib
import io
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import cast

import numpy as np
import numpy.typing as npt
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT)]

from memwarden.govern.redactor import Redactor  # noqa: E402
from scripts import train_screening as ts  # noqa: E402

Array = npt.NDArray[np.float64]


# -- embedding ------------------------------------------------------------------------------------


def stored_embedding_text(text: str) -> str:
    """What the background embedder embeds for a memory whose content is ``text``: the content as
    the store keeps it (normalised, redacted by the built-in rules), through ``embedding_text``."""
    from memwarden.govern.markers import unmarked
    from memwarden.intake import builtin_redactor
    from memwarden.validation import normalize_content

    redactor = _REDACTOR.get("builtin")
    if redactor is None:
        redactor = _REDACTOR["builtin"] = builtin_redactor()
    return unmarked(redactor.redact(normalize_content(text)).text)


_REDACTOR: dict[str, Redactor] = {}


def embed_all(texts: Sequence[str], cache: Path, batch: int = 64) -> npt.NDArray[np.float32]:
    """The default embedder's passage vectors of ``texts`` (as stored memories), cached in
    ``cache`` by vector space and text hash."""
    from memwarden.embed.e5_onnx import E5Int8Embedder

    embedder = E5Int8Embedder()
    space = embedder.identity.model_id
    cache.mkdir(parents=True, exist_ok=True)
    keys_file, matrix_file = cache / f"{space}.keys.json", cache / f"{space}.npy"
    known: dict[str, int] = {}
    matrix = np.zeros((0, embedder.identity.dimension), dtype=np.float32)
    if keys_file.exists() and matrix_file.exists():
        known = {k: i for i, k in enumerate(json.loads(keys_file.read_text()))}
        matrix = np.load(matrix_file)
    stored = [stored_embedding_text(t) for t in texts]
    keys = [hashlib.sha256(s.encode()).hexdigest() for s in stored]
    missing = sorted({k: s for k, s in zip(keys, stored, strict=True) if k not in known}.items())
    if missing:
        started = time.perf_counter()
        out = []
        for at in range(0, len(missing), batch):
            out.append(embedder.embed_documents([s for _, s in missing[at : at + batch]]))
            done = min(at + batch, len(missing))
            print(f"  embedded {done}/{len(missing)} in {time.perf_counter() - started:.0f} s", flush=True)
        matrix = np.concatenate([matrix, *out]).astype(np.float32)
        for key, _ in missing:
            known[key] = len(known)
        order = sorted(known, key=known.__getitem__)
        np.save(matrix_file, matrix)
        keys_file.write_text(json.dumps(order))
    return matrix[[known[k] for k in keys]]


# -- the models -----------------------------------------------------------------------------------


class Head:
    """A linear score over feature rows, standardised on the calibration pool's rows."""

    def __init__(self, coef: Array, bias: float) -> None:
        self.coef, self.bias = coef, bias

    def score(self, features: Array) -> Array:
        return features @ self.coef + self.bias


class MLPHead:
    """One hidden layer (ReLU) and a logit, standardised on the calibration pool's rows."""

    def __init__(self, w1: Array, b1: Array, w2: Array, b2: float) -> None:
        self.w1, self.b1, self.w2, self.b2 = w1, b1, w2, b2

    def score(self, features: Array) -> Array:
        return np.maximum(features @ self.w1 + self.b1, 0.0) @ self.w2 + self.b2


def _training(
    rows: Sequence[ts.Row], extra_weight: float
) -> tuple[npt.NDArray[np.bool_], Array, npt.NDArray[np.bool_]]:
    """Which rows are fitted on, their sample weights (classes balanced, mean 1), their labels."""
    keep = np.array([r.trained for r in rows])
    weight = np.array([ts.outside_weight(r, extra_weight) for r in rows])[keep]
    hostile = np.array([r.hostile for r in rows])[keep]
    weight = weight * np.where(hostile, weight[~hostile].sum() / weight[hostile].sum(), 1.0)
    return keep, weight / weight.mean(), hostile


def fit_linear(
    features: Array, rows: Sequence[ts.Row], pool_features: Array, c: float, extra_weight: float
) -> Head:
    """A logistic regression (L2, classes balanced, the sample weights of ``train_screening``)
    over ``features`` of ``rows`` (rows not ``trained`` left out), standardised on the pool."""
    keep, weight, hostile = _training(rows, extra_weight)
    model = LogisticRegression(C=c, solver="liblinear", max_iter=5000, random_state=0)
    model.fit(features[keep], hostile, sample_weight=weight)
    coef, bias = model.coef_[0].astype(np.float64), float(model.intercept_[0])
    pooled = pool_features @ coef + bias
    spread = float(pooled.std())
    return Head(coef / spread, (bias - float(pooled.mean())) / spread)


def fit_mlp(
    features: Array,
    rows: Sequence[ts.Row],
    pool_features: Array,
    hidden: int,
    alpha: float,
    extra_weight: float,
    seeds: int = 1,
) -> MLPHead:
    """One-hidden-layer networks (scikit-learn's, L2 ``alpha``, seeds 0 to ``seeds`` - 1) on the
    same rows and weights as ``fit_linear``, their logits averaged and standardised on the pool.

    The mean of several networks is one network with their hidden units side by side (the
    output weights divided by their number): seeds cost nothing when scoring, and one network's
    scores moved by a few points of recall from one seed to the next."""
    keep, weight, hostile = _training(rows, extra_weight)
    parts = []
    for seed in range(seeds):
        model = MLPClassifier((hidden,), alpha=alpha, max_iter=300, random_state=seed)
        model.fit(features[keep], hostile, sample_weight=weight)
        parts.append(model)
    head = side_by_side(parts)
    pooled = head.score(pool_features)
    centre, spread = float(pooled.mean()), float(pooled.std())
    return MLPHead(head.w1, head.b1, head.w2 / spread, (head.b2 - centre) / spread)


def side_by_side(parts: Sequence[MLPClassifier]) -> MLPHead:
    """One network whose logit is the mean of ``parts``' logits (scikit-learn networks of one
    hidden layer): their hidden units side by side, the output weights divided by their number."""
    return MLPHead(
        np.concatenate([m.coefs_[0] for m in parts], axis=1),
        np.concatenate([m.intercepts_[0] for m in parts]),
        np.concatenate([m.coefs_[1][:, 0] for m in parts]) / len(parts),
        float(np.mean([m.intercepts_[1][0] for m in parts])),
    )


def shipped_weights(head: MLPHead, centre: Array, spread: Array) -> npt.NDArray[np.float32]:
    """``head``'s weights as ``screening.semantic`` reads them (the input layer, its bias, the output
    weights, one row after another), with the standardisation of the inputs by ``centre`` and
    ``spread`` folded into the first layer: the package scores the unit vector as the embedder
    gives it."""
    hidden = head.w1 / spread[:, None]
    hidden_bias = head.b1 - (centre / spread) @ head.w1
    return np.vstack([hidden, hidden_bias, head.w2]).astype(np.float32)


class Data:
    """The rows, their vectors (scaled), the pool's, and the n-gram model's scores per protocol."""

    def __init__(self, rows: list[ts.Row], pool: list[ts.Row], vectors: Array, pool_vectors: Array) -> None:
        self.rows, self.pool = rows, pool
        # Each float standardised by its mean and spread over the benign calibration pool (which
        # no model is fitted on): a unit vector's floats are a few hundredths and share a common
        # offset, and the regulariser then weighs every dimension alike. A linear map, so it folds
        # into the head's weights.
        self.centre, self.spread = pool_vectors.mean(axis=0), pool_vectors.std(axis=0)
        self.x = (vectors - self.centre) / self.spread
        self.px = (pool_vectors - self.centre) / self.spread
        self.c, self.extra, self.nb_c = 16.0, 0.1, 8.0
        # Where the n-gram model's scores are kept between runs (None: not kept).
        self.char_cache: Path | None = None


def char_scores(data: Data, train: Sequence[int], score: Sequence[int]) -> tuple[Array, Array]:
    """The n-gram model fitted on rows ``train``: its scores of rows ``score`` and of the pool."""
    rows = data.rows
    path = None
    if data.char_cache is not None:
        key = hashlib.sha256(
            json.dumps(
                [
                    data.c,
                    data.extra,
                    data.nb_c,
                    sorted(ts.OUTSIDE_WEIGHTS.items()),
                    [(rows[i].key, rows[i].weight) for i in train],
                    [rows[i].key for i in score],
                ]
            ).encode()
        ).hexdigest()[:24]
        path = data.char_cache / f"char-{key}.npz"
        if path.exists():
            kept = np.load(path)
            return kept["scores"], kept["pool"]
    model = ts.fit([rows[i] for i in train], data.c, data.extra, data.nb_c, pool=data.pool)
    scores = np.array([model.score(rows[i]) for i in score])
    pool = np.array([model.score(r) for r in data.pool])
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, scores=scores, pool=pool)
    return scores, pool


def char_oof(data: Data, members: Sequence[int], fold_of: Callable[[ts.Row], int], folds: int) -> Array:
    """Out-of-fold n-gram scores of ``members`` (indices), by ``fold_of``: index -> score array
    over all rows (NaN outside ``members``)."""
    out = np.full(len(data.rows), np.nan)
    for fold in range(folds):
        train = [i for i in members if fold_of(data.rows[i]) != fold]
        test = [i for i in members if fold_of(data.rows[i]) == fold]
        out[test] = char_scores(data, train, test)[0]
    return out


# -- thresholds -----------------------------------------------------------------------------------

Thresholds = tuple[float, float]
OFFSETS = np.linspace(-3.0, 3.0, 13)


def choose(rows: list[ts.Row], scores: Array, target_fp: float, set_fp: float) -> Thresholds:
    return ts.threshold_for(rows, ts.with_rules(rows, list(scores)), target_fp, set_fp)


def recall_at(rows: list[ts.Row], scores: Array, thresholds: Thresholds) -> float:
    margins = ts.with_rules(rows, ts.margins_of(rows, list(scores), thresholds))
    attack = [r.hostile and r.source in ts.PUBLIC_SOURCES for r in rows]
    return ts.rate(attack, margins)


def choose_or(
    rows: list[ts.Row], char: Array, head: Array, target_fp: float, set_fp: float
) -> tuple[float, Thresholds]:
    """The offset d and thresholds of ``max(char, head + d)`` that flag the most public attacks
    within the benign shares: the n-gram model over T, or the head over T - d."""
    best: tuple[float, float, Thresholds] | None = None
    for d in OFFSETS:
        combined = np.maximum(char, head + d)
        thresholds = choose(rows, combined, target_fp, set_fp)
        recall = recall_at(rows, combined, thresholds)
        if best is None or recall > best[0]:
            best = (recall, float(d), thresholds)
    assert best is not None
    return best[1], best[2]


# -- protocols ------------------------------------------------------------------------------------

# A head over the vector: fitted on (features, rows, pool features), it scores feature rows.
Fitter = Callable[[Array, Sequence[ts.Row], Array], "Head | MLPHead"]


def stack_features(char: Array, vectors: Array) -> Array:
    return np.column_stack([char, vectors])


def variants_of(heads: dict[str, Fitter]) -> list[str]:
    return ["char", *heads, *(f"or:{h}" for h in heads), *(f"ship:{h}" for h in heads), "stack"]


def hash_and_validated(
    data: Data, heads: dict[str, Fitter], stack: Fitter, target_fp: float, set_fp: float, inner: int
) -> tuple[dict[str, Array], dict[str, Array], dict[str, list[object]]]:
    """Out-of-fold scores of the two-fold hash split per single model (thresholds are chosen on
    them), and validated margins per variant: score minus the thresholds chosen on an inner
    split of the training fold."""
    rows, n = data.rows, len(data.rows)
    singles = ["char", *heads, "stack"]
    oof = {v: np.zeros(n) for v in singles}
    margins = {v: np.zeros(n) for v in variants_of(heads)}
    chosen: dict[str, list[object]] = collections.defaultdict(list)
    for fold in range(2):
        train = [i for i in range(n) if rows[i].fold != fold]
        test = [i for i in range(n) if rows[i].fold == fold]
        trows, tx = [rows[i] for i in train], data.x[train]
        # The n-gram model: out of fold inside the training fold, and fitted on all of it.
        inner_scores = {"char": char_oof(data, train, lambda r: r.inner(inner), inner)[train]}
        full_char, pool_char = char_scores(data, train, range(n))
        test_scores = {"char": full_char[test]}
        features = {name: (tx, data.px, data.x[test]) for name in heads}
        features["stack"] = (
            stack_features(inner_scores["char"], tx),
            stack_features(pool_char, data.px),
            stack_features(test_scores["char"], data.x[test]),
        )
        inner_of = np.array([r.inner(inner) for r in trows])
        for name, fitter in [*heads.items(), ("stack", stack)]:
            fx, px, testx = features[name]
            scores = np.zeros(len(train))
            for k in range(inner):
                fit_on, score_on = np.flatnonzero(inner_of != k), np.flatnonzero(inner_of == k)
                scores[score_on] = fitter(fx[fit_on], [trows[i] for i in fit_on], px).score(fx[score_on])
            inner_scores[name] = scores
            test_scores[name] = fitter(fx, trows, px).score(testx)
        other = np.array([rows[i].other for i in test])
        for name in singles:
            oof[name][test] = test_scores[name]
            t = choose(trows, inner_scores[name], target_fp, set_fp)
            chosen[name].append(t)
            margins[name][test] = test_scores[name] - np.where(other, t[1], t[0])
        for name in heads:
            d, t = choose_or(trows, inner_scores["char"], inner_scores[name], target_fp, set_fp)
            chosen[f"or:{name}"].append((d, t))
            combined = np.maximum(test_scores["char"], test_scores[name] + d)
            margins[f"or:{name}"][test] = combined - np.where(other, t[1], t[0])
            # As shipped (``write_head``): the n-gram model at its own thresholds, the head's
            # chosen with the model in front.
            char_t = choose(trows, inner_scores["char"], target_fp, set_fp)
            head_t = head_thresholds(
                trows, inner_scores["char"], inner_scores[name], char_t, target_fp, set_fp
            )
            chosen[f"ship:{name}"].append((char_t, head_t))
            margins[f"ship:{name}"][test] = np.maximum(
                test_scores["char"] - np.where(other, char_t[1], char_t[0]),
                test_scores[name] - np.where(other, head_t[1], head_t[0]),
            )
        print(f"  fold {fold} done", flush=True)
    return oof, margins, dict(chosen)


def variant_margins(v: str, rows: list[ts.Row], scores: dict[str, Array], chosen: object) -> list[float]:
    """Margins (positive: flagged) of variant ``v`` from the single models' ``scores`` of ``rows``
    and what was chosen for it: thresholds, the offset and thresholds of ``or:``, or the n-gram
    model's and the head's thresholds of ``ship:``."""
    if v.startswith("or:"):
        d, t = cast(tuple[float, Thresholds], chosen)
        return ts.margins_of(rows, list(np.maximum(scores["char"], scores[v[3:]] + d)), t)
    if v.startswith("ship:"):
        char_t, head_t = cast(tuple[Thresholds, Thresholds], chosen)
        other = np.array([r.other for r in rows])
        return list(
            np.maximum(
                scores["char"] - np.where(other, char_t[1], char_t[0]),
                scores[v[5:]] - np.where(other, head_t[1], head_t[0]),
            )
        )
    return ts.margins_of(rows, list(scores[v]), cast(Thresholds, chosen))


def leave_source_out(
    data: Data, heads: dict[str, Fitter], stack: Fitter
) -> tuple[list[int], dict[str, Array]]:
    """Scores of each public source's rows by models fitted without that source (the stacker's
    n-gram feature out of fold on a two-fold split of the rest)."""
    rows, n = data.rows, len(data.rows)
    tested: list[int] = []
    scores: dict[str, list[float]] = {v: [] for v in ("char", *heads, "stack")}
    for source in ts.PUBLIC_SOURCES:
        train = [i for i in range(n) if rows[i].source != source]
        held = [i for i in range(n) if rows[i].source == source]
        trows = [rows[i] for i in train]
        full_char, pool_char = char_scores(data, train, held)
        inner_char = char_oof(data, train, lambda r: r.fold, 2)[train]
        tested += held
        scores["char"] += list(full_char)
        for name, fitter in heads.items():
            scores[name] += list(fitter(data.x[train], trows, data.px).score(data.x[held]))
        stacked = stack(stack_features(inner_char, data.x[train]), trows, stack_features(pool_char, data.px))
        scores["stack"] += list(stacked.score(stack_features(full_char, data.x[held])))
        print(f"  without {source} done", flush=True)
    return tested, {k: np.array(v) for k, v in scores.items()}


# -- the table ------------------------------------------------------------------------------------


def quiet_report(
    title: str, rows: list[ts.Row], margins: Sequence[float], log: io.StringIO
) -> dict[str, dict[str, float]]:
    with contextlib.redirect_stdout(log):
        return ts.report(title, rows, list(margins))


def table(tables: dict[str, dict[str, dict[str, float]]], keys: Sequence[str]) -> list[str]:
    names = list(tables)
    lines = ["| group | rows | " + " | ".join(names) + " |", "|---|---:|" + "---:|" * len(names)]
    for key in keys:
        cells = [tables[name].get(key) for name in names]
        if all(c is None for c in cells):
            continue
        count = next(c["rows"] for c in cells if c is not None)
        lines.append(
            f"| {key} | {count} | "
            + " | ".join("" if c is None else f"{c['rate']:.3f}" for c in cells)
            + " |"
        )
    return lines


def ordered_keys(tables: dict[str, dict[str, dict[str, float]]], min_rows: int = 10) -> list[str]:
    keys = {k for t in tables.values() for k, v in t.items() if v["rows"] >= min_rows or "lang=" in k}
    order = (
        "flag public",
        "pass public",
        "flag kind=",
        "flag reading=",
        "flag source=",
        "flag lang=",
        "flag script=",
        "flag family=",
        "pass source=",
        "pass set=",
        "pass lang=",
        "pass script=",
        "pass family=",
    )
    out: list[str] = []
    for prefix in order:
        out += sorted(k for k in keys if k.startswith(prefix) and k not in out)
    return out


def shipped_char_thresholds() -> Thresholds:
    """The thresholds the shipped n-gram model flags at (``attack_model.json``)."""
    from memwarden.screening.attack_model import attack_model

    model = attack_model()
    return (model.threshold, model.threshold_other)


def combined_margins(
    rows: list[ts.Row], char: Array, head: Array, char_t: Thresholds, head_t: Thresholds
) -> list[float]:
    """Screening as shipped: a phrase rule, else the n-gram model over its threshold, else the
    head over its own (positive: flagged)."""
    other = np.array([r.other for r in rows])
    margin = np.maximum(
        char - np.where(other, char_t[1], char_t[0]), head - np.where(other, head_t[1], head_t[0])
    )
    return ts.with_rules(rows, list(margin))


def head_thresholds(
    rows: list[ts.Row], char: Array, head: Array, char_t: Thresholds, target_fp: float, set_fp: float
) -> Thresholds:
    """The head's thresholds with the phrase rules and the n-gram model (at ``char_t``) in front:
    a row either flags counts as flagged (it uses up its set's allowance), the rest are held to
    the head's score (``train_screening.threshold_for``)."""
    other = np.array([r.other for r in rows])
    ahead = char > np.where(other, char_t[1], char_t[0])
    return ts.threshold_for(rows, ts.with_rules(rows, list(np.where(ahead, np.inf, head))), target_fp, set_fp)


def head_shape(weights: npt.NDArray[np.float32], args: argparse.Namespace) -> dict[str, object]:
    """What a head's JSON says about its shape, in the files' order: the vector space it reads
    (the default embedder's), its input size, hidden units, and the settings that built them."""
    from memwarden.embed.e5_onnx import E5Int8Embedder

    space = E5Int8Embedder().identity
    return {
        "space": space.model_id,
        "dimension": space.dimension,
        "units": int(weights.shape[1]),
        "hidden": args.hidden,
        "seeds": args.seeds,
        "alpha": args.alpha,
    }


def write_head(data: Data, args: argparse.Namespace, out: Path) -> None:
    """Choose the head's thresholds on the hash split's out-of-fold scores with the shipped
    n-gram model in front, fit the head on every row, and write ``out`` (.json and .npy)."""
    rows, n = data.rows, len(data.rows)
    char, head = np.zeros(n), np.zeros(n)
    for fold in range(2):
        train = [i for i in range(n) if rows[i].fold != fold]
        test = [i for i in range(n) if rows[i].fold == fold]
        char[test] = char_scores(data, train, test)[0]
        fitted = fit_mlp(
            data.x[train],
            [rows[i] for i in train],
            data.px,
            args.hidden,
            args.alpha,
            args.head_extra,
            args.seeds,
        )
        head[test] = fitted.score(data.x[test])
    char_t = shipped_char_thresholds()
    head_t = head_thresholds(rows, char, head, char_t, args.target_fp, args.set_fp)
    log = io.StringIO()
    before = quiet_report("before", rows, ts.with_rules(rows, ts.margins_of(rows, list(char), char_t)), log)
    after = quiet_report("after", rows, combined_margins(rows, char, head, char_t, head_t), log)
    print(f"head thresholds {head_t[0]:.3f} Latin, {head_t[1]:.3f} other scripts (n-gram model at {char_t})")
    tables = {"rules+char": before, "rules+char+head": after}
    print("\n".join(table(tables, ordered_keys(tables))))
    final = fit_mlp(data.x, rows, data.px, args.hidden, args.alpha, args.head_extra, args.seeds)
    weights = shipped_weights(final, data.centre, data.spread)
    payload = {
        "about": "memwarden semantic injection screening: one hidden layer (ReLU) over the default embedder's "
        "passage vector, the mean of several seeds folded into one network, standardised on benign calibration "
        "sentences; rows 0..dimension-1 of semantic_model.npy are the input layer, then its bias, then the output "
        "weights; rebuilt by scripts/train_semantic_screening.py",
        "trained_on": "the rows of scripts/train_screening.py (public dev half, benign sets, own corpora)",
        **head_shape(weights, args),
        "extra_weight": args.head_extra,
        "bias": round(float(final.b2), 6),
        "threshold": round(head_t[0], 4),
        "threshold_other": round(head_t[1], 4),
        "char_thresholds": [round(t, 4) for t in char_t],
    }
    out.write_text(json.dumps(payload, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    np.save(out.with_suffix(".npy"), weights, allow_pickle=False)
    print(f"wrote {out} and {out.with_suffix('.npy')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/h6"))
    parser.add_argument("--embed-only", action="store_true")
    parser.add_argument("--evaluate", action="store_true")
    parser.add_argument("--by-source", action="store_true")
    parser.add_argument("--head-c", type=float, default=0.03)
    parser.add_argument("--stack-c", type=float, default=0.03)
    parser.add_argument("--head-extra", type=float, default=0.1)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--alpha", type=float, default=1.0)
    parser.add_argument("--seeds", type=int, default=1, help="networks averaged in the non-linear head")
    parser.add_argument("--target-fp", type=float, default=0.015)
    parser.add_argument("--set-fp", type=float, default=0.02)
    parser.add_argument("--inner-folds", type=int, default=4)
    parser.add_argument("--out", type=Path, help="--evaluate: where the Markdown table goes")
    parser.add_argument(
        "--model", type=Path, default=ROOT / "src" / "memwarden" / "screening" / "semantic_model.json"
    )
    args = parser.parse_args()

    started = time.perf_counter()
    rows = ts.load_rows(args.data)
    pool = ts.calibration_pool(args.data, rows, ts.CALIBRATION_ROWS)
    print(
        f"{len(rows)} rows, {len(pool)} calibration rows in {time.perf_counter() - started:.0f} s", flush=True
    )
    matrix = embed_all([r.text for r in rows] + [r.text for r in pool], args.cache)
    print(f"vectors {matrix.shape} in {time.perf_counter() - started:.0f} s", flush=True)
    if args.embed_only:
        return
    data = Data(rows, pool, matrix[: len(rows)].astype(np.float64), matrix[len(rows) :].astype(np.float64))
    data.char_cache = args.cache / "char-scores"
    if not args.evaluate:
        write_head(data, args, args.model)
        return
    heads: dict[str, Fitter] = {
        "e5": lambda x, r, px: fit_linear(x, r, px, args.head_c, args.head_extra),
        "mlp": lambda x, r, px: fit_mlp(x, r, px, args.hidden, args.alpha, args.head_extra, args.seeds),
    }

    def stack(x: Array, r: Sequence[ts.Row], px: Array) -> Head:
        return fit_linear(x, r, px, args.stack_c, args.head_extra)

    oof, margins, chosen = hash_and_validated(
        data, heads, stack, args.target_fp, args.set_fp, args.inner_folds
    )
    log = io.StringIO()
    variants = variants_of(heads)
    validated = {
        v: quiet_report(f"validated {v}", rows, ts.with_rules(rows, list(margins[v])), log) for v in variants
    }
    # In-sample thresholds on the hash split's out-of-fold scores (the shipped rule).
    shipped: dict[str, object] = {}
    for v in ("char", *heads, "stack"):
        shipped[v] = choose(rows, oof[v], args.target_fp, args.set_fp)
    for h in heads:
        shipped[f"or:{h}"] = choose_or(rows, oof["char"], oof[h], args.target_fp, args.set_fp)
        char_t = shipped_char_thresholds()
        shipped[f"ship:{h}"] = (
            char_t,
            head_thresholds(rows, oof["char"], oof[h], char_t, args.target_fp, args.set_fp),
        )
    in_sample = {
        v: quiet_report(
            f"hash {v}", rows, ts.with_rules(rows, variant_margins(v, rows, oof, shipped[v])), log
        )
        for v in variants
    }
    lines = [
        f"# H6 phase 1: e5 head for injection screening ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})",
        "",
        f"Command: `{' '.join(['python', *sys.argv])}`; load {os.getloadavg()[0]:.2f} at the end; "
        f"{time.perf_counter() - started:.0f} s.",
        "",
        f"Thresholds chosen inside the training folds: {json.dumps(chosen)}",
        f"Thresholds on the hash split's out-of-fold scores: {json.dumps(shipped)}",
        "",
        "## Validated (two-fold hash split, thresholds from an inner split of the training fold; rules in front)",
        "",
        *table(validated, ordered_keys(validated)),
        "",
        "## Two-fold hash split, thresholds chosen on the same out-of-fold scores (rules in front)",
        "",
        *table(
            in_sample,
            [
                k
                for k in ordered_keys(in_sample)
                if k.startswith(
                    ("flag public", "pass public", "flag kind", "flag reading", "flag lang", "flag source")
                )
            ],
        ),
    ]
    if args.out:  # the validated table now; leave one source out takes as long again
        args.out.write_text("\n".join(lines) + "\n")
    if args.by_source:
        tested_idx, held = leave_source_out(data, heads, stack)
        trows = [rows[i] for i in tested_idx]
        loso = {}
        for v in variants:
            loso[v] = quiet_report(f"loso {v}", trows, variant_margins(v, trows, held, shipped[v]), log)
        lines += [
            "",
            "## Leave one source out (thresholds of the hash split; model alone, no rules, as train_screening)",
            "",
            *table(loso, ordered_keys(loso)),
        ]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
